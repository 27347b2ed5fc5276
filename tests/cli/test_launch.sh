#!/bin/sh
# SPDX-License-Identifier: MIT
# zestub dump's output patterns and the launcher ranks, with programs that
# never create a Level Zero module (each leaves its clean-exit record at
# once): %r from each launcher's variable and their order, %p, %h, %%, an
# unknown sequence, and the exit status passed through.
zestub="$top_builddir/zestub"
tmp=$(mktemp -d)
. "$top_srcdir/tests/lib/tap.sh"
trap 'rm -rf "$tmp"' EXIT
export ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB"
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID
tap_plan 10

# $1: expected file name, then the environment assignments.
rank_case() {
    want=$1
    shift
    rm -f "$tmp"/r-*.json
    env "$@" "$zestub" dump --json "$tmp/r-%r.json" -- true 2>"$tmp/err"
    if [ -f "$tmp/$want" ] && grep -q '"program":{"path":"true","exit_code":0' "$tmp/$want"; then
        ok "$* -> $want"
    else notok_file "$* -> $want (got: $(ls "$tmp" | tr '\n' ' '))" "$tmp/err"; fi
}
rank_case r-3.json OMPI_COMM_WORLD_RANK=3
rank_case r-5.json PMI_RANK=5
rank_case r-6.json PMIX_RANK=6
rank_case r-7.json SLURM_PROCID=7
rank_case r-1.json OMPI_COMM_WORLD_RANK=1 SLURM_PROCID=9
rank_case r-0.json FOO=1

"$zestub" dump --json "$tmp/p-%p-%h-%%.json" -- true 2>"$tmp/err"
f=$(ls "$tmp" | grep '^p-')
pid=$(echo "$f" | sed 's/^p-\([0-9]*\)-.*/\1/')
if [ "$f" = "p-$pid-$(hostname)-%.json" ] && grep -q "\"pid\":$pid," "$tmp/$f"; then
    ok "%p is the program's pid, %h the host, %% a percent sign"
else notok_file "%p %h %% (got $f)" "$tmp/err"; fi

"$zestub" dump --json "$tmp/bad-%x.json" -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "%x is not" "$tmp/err"; then ok "an unknown %-sequence is a usage error"
else notok_file "unknown sequence: status $rc" "$tmp/err"; fi

OMPI_COMM_WORLD_RANK=2 "$zestub" dump --json "$tmp/s-%r.json" -- sh -c 'exit 9' 2>"$tmp/err"
rc=$?
if [ $rc -eq 9 ] && grep -q '"rank":2,' "$tmp/s-2.json" && grep -q '"status":9,' "$tmp/s-2.json"; then
    ok "a clean-exit record carries the rank; the program's status passes through"
else notok_file "status $rc" "$tmp/err"; fi
# zestub ignores SIGPIPE itself; the program must get the default back.
"$zestub" dump --json "$tmp/pipe.json" -- sh -c 'kill -PIPE $$; echo survived' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 141 ] && ! grep -q survived "$tmp/out" && grep -q '"signal":13,' "$tmp/pipe.json"; then
    ok "the program starts with SIGPIPE at its default (killed: 128+13, signal 13 in the record)"
else notok_file "SIGPIPE: status $rc" "$tmp/err"; fi
tap_done
