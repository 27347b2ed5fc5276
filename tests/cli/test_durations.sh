#!/bin/sh
# SPDX-License-Identifier: MIT
# One duration syntax (cli/duration.c) for --timeout, --on hang= and
# --library-ack-timeout: plain seconds or 500ms, 10s, 2m, 1h. An accepted
# value gets past option parsing (to the usage error for the missing
# --attach or port); a refused one names the option and the syntax. The
# 24-hour bound of --timeout shows that units scale: 1440m is accepted,
# 1441m is not.
zestub="$top_builddir/zestub"
. "$top_srcdir/tests/lib/tap.sh"
run() { out=$(timeout 10 "$zestub" "$@" </dev/null 2>&1); rc=$?; }
accepted() { # option-name args...
    name=$1; shift
    run "$@"
    if [ "$rc" -eq 2 ] && ! printf '%s\n' "$out" | grep -q -- "$name.*takes"; then
        ok "accepted: $*"
    else notok "accepted: $*" "exit $rc: $out"; fi
}
refused() { # option-name args...
    name=$1; shift
    run "$@"
    if [ "$rc" -eq 2 ] && printf '%s\n' "$out" | grep -q -- "$name.*takes a duration.*500ms"; then
        ok "refused: $*"
    else notok "refused: $*" "exit $rc: $out"; fi
}

tap_plan 23
for v in 5 5s 1.5 500ms 2m 1h 1440m; do accepted --timeout dump --timeout "$v"; done
accepted --timeout dump --timeout=10s
for v in 0 0s -1 1441m 25h 5x abc nan 0x10 " 5" ""; do refused --timeout dump --timeout "$v"; done
accepted hang= dump --on hang=1441 --timeout 2m
for v in 5s 0; do accepted --library-ack-timeout --library-ack-timeout "$v"; done
refused --library-ack-timeout --library-ack-timeout 2x
tap_done
