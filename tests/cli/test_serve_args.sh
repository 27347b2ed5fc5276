#!/bin/sh
# SPDX-License-Identifier: MIT
# The server's command line (cli/serve.c): the port is taken before the
# attach, usage errors exit 2 with a short message, --once and a bare COMM
# need something to serve, and zestub --help lists every server option.
zestub="$top_builddir/zestub"
. "$top_srcdir/tests/lib/tap.sh"
show() { printf '%s\n' "$1" | sed 's/^/# /'; }
# The driver matters only to the old order (attach first); without it the
# checks still run.
if [ -n "$GTSIM_LIB" ]; then
    ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB"
    export ZE_ENABLE_ALT_DRIVERS
fi
run() { # args...: sets out (stdout and stderr) and rc; 10 s at most
    out=$(timeout 10 "$zestub" "$@" 2>&1)
    rc=$?
}
check() { # description wanted-rc pattern [pattern that must not appear]
    if [ "$rc" -eq "$2" ] && printf '%s\n' "$out" | grep -Eq -- "$3" &&
        { [ -z "$4" ] || ! printf '%s\n' "$out" | grep -Eq -- "$4"; }; then ok "$1"; else
        notok "$1"; show "$out"; echo "# exit $rc, wanted $2 and: $3${4:+, not: $4}"
    fi
}

tap_plan 11
tmp=$(mktemp -d)
sleep 300 &
sleeper=$!
# A port someone else holds: zestub must fail on it before attaching.
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
time.sleep(60)' "$tmp/port" &
holder=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$tmp/port" 2>/dev/null)

run --attach "127.0.0.1:$port" "$sleeper"
check "busy port: exit 1 on the port, before any attach" 1 \
    "cannot listen on 127.0.0.1:$port" "attach"
kill "$holder" "$sleeper" 2>/dev/null
wait 2>/dev/null
rm -rf "$tmp"

run --multi "nohost:noport"
check "a COMM that does not parse is a usage error (exit 2)" 2 "is not \[HOST\]:PORT"
run --multi "unix:"
check "unix: without a path is a usage error (exit 2)" 2 "needs a path"

run --once :0
check "--once without --attach or --multi: exit 2, saying why" 2 \
    "--once needs --attach PID or --multi"

run :0
check "a bare COMM (nothing to attach, no --multi): exit 2, saying why" 2 \
    "nothing to serve: give --attach PID, -- PROGRAM, or --multi"
run unix:"$(mktemp -u)"
check "... for a unix: socket too" 2 "nothing to serve"

run --help
check "zestub --help lists --log-level" 0 "--log-level LEVEL"
check "zestub --help lists --library-ack-timeout" 0 "--library-ack-timeout DURATION"
check "zestub --help has the server's own option list (--once explained)" 0 \
    "--once +serve one client"

run --bogus
check "an unknown option: a short error and where to look, exit 2" 2 \
    "unknown option '--bogus'" "usage:"
check "... which points at zestub --help" 2 "try 'zestub --help'"
tap_done
