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
unset OMPI_COMM_WORLD_SIZE PMI_SIZE SLURM_NTASKS SLURM_NPROCS
tap_plan 18

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
# A name without %r under a launcher of several ranks: each rank its own
# file (every rank writing and removing one file keeps at most one record).
rm -f "$tmp"/same*
SLURM_PROCID=0 SLURM_NTASKS=2 "$zestub" dump --json "$tmp/same.json" -- true 2>"$tmp/err0" &
SLURM_PROCID=1 SLURM_NTASKS=2 "$zestub" dump --json "$tmp/same.json" -- true 2>"$tmp/err1"
wait $!
if grep -q '"rank":0,' "$tmp/same.r0.json" && grep -q '"rank":1,' "$tmp/same.r1.json" &&
    [ ! -e "$tmp/same.json" ]; then
    ok "two ranks, --json without %r: same.r0.json and same.r1.json, each with its rank"
else notok_file "two ranks (got: $(ls "$tmp" | tr '\n' ' '))" "$tmp/err1"; fi
if grep -q "has no %r.*rank 1 of 2 (SLURM_PROCID) writes $tmp/same.r1.json" "$tmp/err1"; then
    ok "stderr says which file the rank writes, and why"
else notok_file "the note" "$tmp/err1"; fi
rm -f "$tmp"/same*
SLURM_PROCID=0 SLURM_NTASKS=1 "$zestub" dump --json "$tmp/same.json" -- true 2>"$tmp/err"
if [ -f "$tmp/same.json" ] && ! grep -q "has no %r" "$tmp/err"; then
    ok "a job of one rank keeps the name as given, with no note"
else notok_file "one rank (got: $(ls "$tmp" | tr '\n' ' '))" "$tmp/err"; fi
rm -f "$tmp"/same*
PMI_RANK=2 "$zestub" dump --json "$tmp/same" -- true 2>"$tmp/err"
if grep -q '"rank":2,' "$tmp/same.r2" && [ ! -e "$tmp/same" ]; then
    ok "rank 2 with no job size given, a name with no extension: same.r2"
else notok_file "rank 2 (got: $(ls "$tmp" | tr '\n' ' '))" "$tmp/err"; fi
rm -f "$tmp"/same*
# Slurm's %t in a --multi-prog line: the name holds the rank already.
SLURM_PROCID=3 SLURM_NTASKS=4 "$zestub" dump --json "$tmp/same-3.json" -- true 2>"$tmp/err"
if grep -q '"rank":3,' "$tmp/same-3.json" && ! grep -q "has no %r" "$tmp/err"; then
    ok "a name that holds the rank's number (Slurm's %t: same-3.json for rank 3) is kept"
else notok_file "same-3.json (got: $(ls "$tmp" | tr '\n' ' '))" "$tmp/err"; fi
SLURM_PROCID=1 SLURM_NTASKS=2 "$zestub" dump --json /dev/null -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && ! grep -q "has no %r" "$tmp/err"; then
    ok "/dev/null stays /dev/null under a launcher (not a file to share)"
else notok_file "/dev/null: status $rc" "$tmp/err"; fi
# Another zestub writing the same name: its NAME.partial (flock held) is
# left alone, and this one says why instead of removing it.
# The lock is this shell's (fd 9, not passed on to zestub): no process
# left behind to hold the test's output open.
printf 'being written' >"$tmp/busy.json.partial"
exec 9<"$tmp/busy.json.partial"
flock -n 9 || echo "# could not lock busy.json.partial"
"$zestub" dump --json "$tmp/busy.json" -- true 2>"$tmp/err" 9<&-
rc=$?
if [ $rc -eq 7 ] && grep -q "another zestub is writing it" "$tmp/err" &&
    [ "$(cat "$tmp/busy.json.partial")" = "being written" ] && [ ! -e "$tmp/busy.json" ]; then
    ok "NAME.partial locked by another writer: status 7, said why, that partial untouched"
else notok_file "busy partial: status $rc" "$tmp/err"; fi
exec 9<&-
"$zestub" dump --json "$tmp/busy.json" -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '"program":{"path":"true"' "$tmp/busy.json" &&
    [ ! -e "$tmp/busy.json.partial" ]; then
    ok "the same partial once its writer is gone: taken for a stale one, replaced"
else notok_file "stale partial: status $rc" "$tmp/err"; fi
# zestub ignores SIGPIPE itself; the program must get the default back.
"$zestub" dump --json "$tmp/pipe.json" -- sh -c 'kill -PIPE $$; echo survived' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 141 ] && ! grep -q survived "$tmp/out" && grep -q '"signal":13,' "$tmp/pipe.json"; then
    ok "the program starts with SIGPIPE at its default (killed: 128+13, signal 13 in the record)"
else notok_file "SIGPIPE: status $rc" "$tmp/err"; fi
tap_done
