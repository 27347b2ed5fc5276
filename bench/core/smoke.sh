#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke run of bench/core on a 16-thread device, one round: it must finish
# and print every row. Timings and sizes are not judged here.
echo "1..1"
out=$(python3 "$top_srcdir/bench/core/bench_core.py" --builddir "$top_builddir" --threads 16 \
    --config "platform=xehpc,subslices=2,eus=2,threads=4,pace=1" --reps 1 2>&1)
rc=$?
missing=""
for row in "plain sequential write (baseline)" "peak RSS MiB: without" "(b) page-fault core, --core-light:"; do
    echo "$out" | grep -qF "$row" || missing="$missing '$row'"
done
if [ $rc = 0 ] && [ -z "$missing" ]; then
    echo "ok 1 - bench_core.py runs with and without --core and prints every row"
else
    echo "not ok 1 - bench_core.py (exit $rc, missing:$missing)"
    echo "$out" | sed 's/^/# /' | tail -n 20
fi
