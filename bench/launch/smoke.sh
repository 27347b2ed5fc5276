#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of bench/launch with tiny counts: the three ways run and the
# table is printed. Timing is never judged here.
echo "1..1"
out=$(python3 "$top_srcdir/bench/launch/bench_launch.py" --builddir "$top_builddir" \
    --launches 20 --rounds 1 2>&1)
if echo "$out" | grep -q "^wrapped "; then
    echo "ok 1 - bench_launch.py runs plain, debug and wrapped and prints the ratios"
else
    echo "not ok 1 - bench_launch.py"
    echo "$out" | sed 's/^/# /' | tail -n 20
fi
