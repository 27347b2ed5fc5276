#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of bench/hang on a 256-thread device, once: the hang dump and
# its baseline run and the table is printed. Timing is never judged here.
echo "1..1"
out=$(python3 "$top_srcdir/bench/hang/bench_hang.py" --builddir "$top_builddir" \
    --threads 256 --reps 1 --format human 2>&1)
if echo "$out" | grep -q "^    256 human "; then
    echo "ok 1 - bench_hang.py dumps a hang and its baseline and prints the ratios"
else
    echo "not ok 1 - bench_hang.py"
    echo "$out" | sed 's/^/# /' | tail -n 20
fi
