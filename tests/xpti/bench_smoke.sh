#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of the XPTI benchmark with tiny counts: it must parse its options,
# pass its semantic checks, print both performance tables (with Notify's
# dispatch floor) and a memory row
# (with libzestub_xpti.so). Timings are not judged here (see bench/README.md).
bench="$top_builddir/bench/xpti/bench_xpti"
sub="$top_builddir/.libs/xpti_bench_subscriber.so"
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 8
check() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; } # status description
out=$("$bench" --subscriber "$sub" --trace-points 50 --type semantic --test-id 1:3:1 --num-threads 0 2>&1)
check $? "semantic run exits 0"
echo "$out" | grep -q "semantic test 3 (notifications): pass"
check $? "semantic tests pass"
out=$("$bench" --subscriber "$sub" -t 50 -y performance -i 1,2 -n 0,2 -f 50 2>&1)
check $? "performance run exits 0"
echo "$out" | grep -q "TP LU+Notify" && echo "$out" | grep -q "Str.Lookup"
check $? "both performance tables printed"
echo "$out" | grep -Eq "dispatch floor .*: [0-9.]+ ns, CPU [0-9.]+ \(Notify x[0-9.]+ of it"
check $? "Notify's dispatch floor measured beside it"
"$bench" --type performance >/dev/null 2>&1
[ $? = 2 ]
check $? "missing required options are rejected"
out=$("$bench" --type memory --subscriber "$top_builddir/.libs/libzestub_xpti.so" --submissions 3000 --sites 10 2>&1)
check $? "memory run exits 0"
echo "$out" | grep -Eq "^ +3000 .* +10/[0-9]+ .* [0-9a-f]{16}\$"
check $? "memory row printed with the table's fill and the checksum"
tap_done
