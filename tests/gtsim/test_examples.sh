#!/bin/sh
# SPDX-License-Identifier: MIT
# The example programs through the Debian loader, with and without gtsim,
# on every platform and in both of the loader's handle modes.
ex="$top_builddir/examples"
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 11 # 3 platforms, intercept, 16K threads, 2 without a driver, pagefault, 3 executed

for plat in gen12lp xehpg xehpc; do
    out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=$plat" "$ex/vadd" 2>&1)
    if [ $? -eq 0 ] && printf '%s' "$out" | grep -q "vadd: PASSED"; then ok "vadd on $plat"
    else notok "vadd on $plat" "$out"; fi
done
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" ZE_ENABLE_LOADER_INTERCEPT=1 "$ex/vadd" 2>&1)
if [ $? -eq 0 ]; then ok "vadd in the loader's intercept mode"; else notok "vadd intercept" "$out"; fi
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=xehpc,tiles=2,slices=8,subslices=8,eus=8,threads=16" "$ex/vadd" 2>&1)
if [ $? -eq 0 ]; then ok "vadd on a 16384-thread device"; else notok "vadd 16K" "$out"; fi

# Without gtsim the Debian loader finds no driver (there is no Intel GPU).
out=$(env -u ZE_ENABLE_ALT_DRIVERS "$ex/vadd" 2>&1)
rc=$?
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q "no Level Zero driver was found"; then
    ok "without gtsim vadd says no driver was found"
elif printf '%s' "$out" | grep -q "RTLD_DEEPBIND"; then
    # Intel's real driver (from intel-opencl-icd) dlopens with RTLD_DEEPBIND,
    # which the sanitizer runtime refuses; nothing of ours is involved.
    skip "without gtsim vadd says no driver was found" "the installed Intel driver cannot load under ASan"
else notok "without gtsim vadd says no driver was found (rc $rc)" "$out"; fi
out=$(ZE_ENABLE_ALT_DRIVERS=/nonexistent/libze_none.so "$ex/vadd" 2>&1)
rc=$?
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q "no Level Zero driver was found"; then
    ok "with a driver path that does not exist vadd says no driver was found"
else notok "with a missing driver vadd says no driver was found (rc $rc)" "$out"; fi

out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" "$ex/pagefault" 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "ZE_RESULT_ERROR_DEVICE_LOST" &&
    printf '%s' "$out" | grep -q "gtsim: page fault at 0x.* in kernel 'oob'"; then
    ok "pagefault: device lost, stderr says where"
else notok "pagefault: device lost, stderr says where (rc $rc)" "$out"; fi

# Executed (exec=1, xehpc): the kernel computes, and the fault is the store's.
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=xehpc,exec=1" "$ex/vadd" --expect-sum 2>&1)
rc=$?
if printf '%s' "$out" | grep -q "exec=1 ignored"; then
    skip "vadd --expect-sum executed on xehpc" "$(printf '%s' "$out" | grep "exec=1 ignored")"
elif [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "c = a + b: verified (0 wrong)"; then
    ok "vadd --expect-sum executed on xehpc"
else notok "vadd --expect-sum executed on xehpc (rc $rc)" "$out"; fi
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=xehpc,exec=1" "$ex/pagefault" 2>&1)
rc=$?
p=$(printf '%s' "$out" | sed -n 's/^launching oob(p=\(0x[0-9a-f]*\) freed.*/\1/p')
if printf '%s' "$out" | grep -q "exec=1 ignored"; then
    skip "pagefault executed: faults at p" "$(printf '%s' "$out" | grep "exec=1 ignored")"
elif [ $rc -eq 0 ] && [ -n "$p" ] && printf '%s' "$out" | grep -q "gtsim: page fault at $p in kernel 'oob'"; then
    ok "pagefault executed: the store faults at p[0] ($p)"
else notok "pagefault executed: faults at p (rc $rc)" "$out"; fi

# Without libiga64, exec=1 says so and the threads walk as before.
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_IGA_LIBRARY=/nonexistent/libiga64.so.1 \
    GTSIM_CONFIG="platform=xehpc,exec=1" "$ex/vadd" 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "gtsim: exec=1 ignored, threads walk instructions: libiga64.so.1 not found" &&
    printf '%s' "$out" | grep -q "vadd: PASSED"; then
    ok "exec=1 without libiga64: a note on stderr, vadd runs walking"
else notok "exec=1 without libiga64 (rc $rc)" "$out"; fi
tap_done
