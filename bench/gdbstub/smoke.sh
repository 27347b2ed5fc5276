#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of the GDB-server benchmark on gtsim's default 256-thread device
# with two attaches, three ^Cs, 1 MiB reads and one breakpoint cycle of 256
# dispatches: it must finish, list every thread and print every row.
# Timings are not judged (bench/README.md), nor are breakpoint hits zestub
# misses: a race in zestub loses a few of them in some runs (the README).
. "$top_srcdir/tests/lib/tap.sh"
check() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; } # status description
# The rows the report must have: one check each, plus the exit status and
# the thread list.
set -- "loopback RTT" "qC round trip" "vAttach -> stop reply" "attach + qfThreadInfo list" \
    "attach + qXfer:threads list" "Ctrl-C -> stop reply" "x read, isabase" \
    "x read, device buffer" "m read, isabase" "m read, device buffer" \
    "Ctrl-C to stop:" "no breakpoint: vAck -> W (256 dispatches)" \
    "breakpoint: vAck -> W (256 dispatches)" "per reported hit" \
    "per dispatch, above no breakpoint" "breakpoint cycle, 256 dispatches:"
tap_plan $(($# + 2))
out=$(python3 "$top_srcdir/bench/gdbstub/bench_gdbstub.py" --smoke --builddir "$top_builddir" 2>&1)
rc=$?
check $rc "the benchmark exits 0 (no ERROR row)"
for row in "$@"; do
    echo "$out" | grep -qF "$row"
    check $? "the report has '$row'"
done
echo "$out" | grep -qF "256 threads of 256"
check $? "the thread list has every hardware thread"
[ $fail = 0 ] || echo "$out" | sed 's/^/# /'
tap_done
