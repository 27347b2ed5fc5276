#!/bin/sh
# SPDX-License-Identifier: MIT
# zetdebug under Intel's newest loader (1.32, API 1.5+), which exports
# zetDebugGetThreadRegisterSetProperties: zetdebug finds it with dlsym, the
# loader asks gtsim for its 1.5 Debug table and routes the query to gtsim,
# which answers per thread (a thread that is not stopped is refused); and
# gtsim's own test of the query runs through that loader. That loader is
# not in CI: ZE_NEW_LOADER_DIR names its lib directory (default
# /tmp/l0new/install/lib); without it the test skips.
. "$top_srcdir/tests/lib/tap.sh"
dir=${ZE_NEW_LOADER_DIR:-/tmp/l0new/install/lib}
if [ ! -e "$dir/libze_loader.so.1" ]; then
    echo "1..0 # SKIP no newer Level Zero loader: $dir/libze_loader.so.1 is absent (set ZE_NEW_LOADER_DIR)"
    exit 0
fi
prog=$top_builddir/tests/zetdebug/test_zetdebug
out=${TMPDIR:-/tmp}/zd_new_loader.$$
trap 'rm -f "$out" "$out.ldd"' EXIT
tap_plan 4
if LD_LIBRARY_PATH=$dir ldd "$prog" >"$out.ldd" 2>&1 && grep -q "$dir/libze_loader" "$out.ldd"; then
    ok "test_zetdebug resolves libze_loader.so.1 from $dir"
else
    notok_file "test_zetdebug resolves libze_loader.so.1 from $dir" "$out.ldd"
fi
if nm -D "$dir/libze_loader.so.1" | grep -q ' T zetDebugGetThreadRegisterSetProperties$'; then
    ok "that loader exports zetDebugGetThreadRegisterSetProperties"
else
    notok "that loader exports zetDebugGetThreadRegisterSetProperties"
fi
if LD_LIBRARY_PATH=$dir "$prog" >"$out" 2>&1 && ! grep -q '^not ok' "$out" &&
    grep -q 'thread register sets per thread' "$out"; then
    ok "test_zetdebug passes under that loader, gtsim answering per thread"
else
    notok_file "test_zetdebug passes under that loader, gtsim answering per thread" "$out"
fi
gt=$top_builddir/tests/gtsim/test_thread_regsets
if LD_LIBRARY_PATH=$dir "$gt" >"$out" 2>&1 && ! grep -q '^not ok' "$out" &&
    grep -q "through the loader's" "$out" && grep -q '^ok .*vadd: GRF has 128' "$out"; then
    ok "gtsim's per-thread query through that loader (test_thread_regsets)"
else
    notok_file "gtsim's per-thread query through that loader (test_thread_regsets)" "$out"
fi
tap_done
