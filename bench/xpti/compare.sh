#!/bin/sh
# SPDX-License-Identifier: MIT
# Before/after in one run window: this tree's bench_xpti run against two
# builds of the XPTI libraries (each a .libs directory holding libxptifw.so
# and libzestub_xpti.so), three interleaved performance runs of each, then
# one memory run of each. Run from the build directory:
#   ../bench/xpti/compare.sh BEFORE_LIBS AFTER_LIBS OUTDIR
# e.g. BEFORE_LIBS = a build of the baseline commit, AFTER_LIBS = .libs.
set -u
[ $# = 3 ] || { echo "usage: $0 BEFORE_LIBS AFTER_LIBS OUTDIR" >&2; exit 2; }
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd) out=$3
bin=bench/xpti/.libs/bench_xpti
[ -x "$bin" ] || { echo "$0: run it from the build directory after make" >&2; exit 2; }
noop=$(pwd)/.libs/xpti_bench_subscriber.so
# The dispatch floor's library is this build's, after the one under test.
floor=$(pwd)/.libs
mkdir -p "$out"
for r in 1 2 3; do
    for v in before after; do
        [ $v = before ] && libs=$before || libs=$after
        LD_LIBRARY_PATH=$libs:$floor "$bin" --subscriber "$noop" --trace-points 10000 \
            --type performance --test-id 1,2 --num-threads 0,1,2 --tp-frequency 10 \
            >"$out/perf-$v-$r.txt" 2>&1
    done
done
for v in after before; do
    [ $v = before ] && libs=$before || libs=$after
    LD_LIBRARY_PATH=$libs:$floor "$bin" --type memory --subscriber "$libs/libzestub_xpti.so" \
        --submissions 10000000 --sites 1000 >"$out/mem-$v.txt" 2>&1
done
echo "$out: perf-{before,after}-{1,2,3}.txt, mem-{before,after}.txt"
