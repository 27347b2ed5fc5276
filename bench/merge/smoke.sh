#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of bench/merge: 20 copies of a hand-made 8-thread hang dump
# merged once, the table printed. Timing is never judged here.
echo "1..1"
out=$(python3 "$top_srcdir/bench/merge/bench_merge.py" --builddir "$top_builddir" \
    --synthetic 8 --sizes 20 2>&1)
if echo "$out" | grep -Eq "^ +20 this +[0-9.]+ +[0-9.]+ +6$"; then
    echo "ok 1 - bench_merge.py merges 20 ranks and prints time and peak RSS"
else
    echo "not ok 1 - bench_merge.py"
    echo "$out" | sed 's/^/# /' | tail -n 20
fi
