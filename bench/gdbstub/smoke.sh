#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of the GDB-server benchmark on gtsim's default 256-thread device
# with two attaches, three ^Cs and 1 MiB reads: it must finish, list every
# thread and print every row. Timings are not judged (bench/README.md).
out=$(python3 "$top_srcdir/bench/gdbstub/bench_gdbstub.py" --smoke --builddir "$top_builddir" 2>&1)
rc=$?
n=0
fails=0
check() {
    n=$((n + 1))
    if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=1; fi
}
check $rc "the benchmark exits 0 (no ERROR row)"
for row in "loopback RTT" "qC round trip" "vAttach -> stop reply" "attach + qfThreadInfo list" \
    "attach + qXfer:threads list" "Ctrl-C -> stop reply" "x read, isabase" \
    "x read, device buffer" "m read, isabase" "m read, device buffer" \
    "Ctrl-C to stop:"; do
    echo "$out" | grep -qF "$row"
    check $? "the report has '$row'"
done
echo "$out" | grep -qF "256 threads of 256"
check $? "the thread list has every hardware thread"
[ $fails = 0 ] || echo "$out" | sed 's/^/# /'
echo "1..$n"
exit $fails
