#!/bin/sh
# SPDX-License-Identifier: MIT
# A kernel that calls printf, through the real loader with exec=1:
# tests/kernels/printf_sum.cl is turned into SPIR-V by ocloc now; gtsim
# gives the kernel a printf buffer (.ze_info printf_buffer), its A64
# untyped atomic add reserves room in it, the kernel runs on past the
# printf and computes its sums, and the output gtsim cannot format yet is
# named as dropped on stderr. Skips without ocloc or libiga64.
probe="$top_builddir/tests/gtsim/il_probe"
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 5

work=$(mktemp -d "${TMPDIR:-/tmp}/zestub-printf.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
mkdir -m 700 "$work/cache"

check() { # desc file pattern
    if grep -q -- "$3" "$2"; then ok "$1"; else notok_file "$1 (wanted: $3)" "$2"; fi
}

ocloc=${GTSIM_OCLOC:-ocloc}
if ! command -v "$ocloc" >/dev/null 2>&1; then
    while [ "$n" -lt "$planned" ]; do
        skip "printf kernel" "no ocloc in PATH (install intel-opencl-icd)"
    done
    tap_done
fi
cp "$top_srcdir/tests/kernels/printf_sum.cl" "$work/"
if (cd "$work" && "$ocloc" compile -q -file printf_sum.cl -device pvc -spv_only -output_no_suffix \
    -output printf_sum -options "-g") >"$work/spv.log" 2>&1 && [ -s "$work/printf_sum.spv" ]; then
    ok "ocloc -spv_only turns tests/kernels/printf_sum.cl into SPIR-V"
else
    notok_file "ocloc -spv_only turns tests/kernels/printf_sum.cl into SPIR-V" "$work/spv.log"
fi

run() { # out err config
    env ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="$3" XDG_CACHE_HOME="$work/cache" \
        "$probe" "$work/printf_sum.spv" spirv "-g" >"$1" 2>"$2"
}

run "$work/x.out" "$work/x.err" platform=xehpc,exec=1
if grep -q "exec=1 ignored" "$work/x.err"; then
    why=$(grep "exec=1 ignored" "$work/x.err")
    while [ "$n" -lt 4 ]; do skip "printf kernel executed" "$why"; done
else
    check "exec=1: the printf kernel's launch succeeds (no illegal instruction)" "$work/x.out" \
        "^launch 0x0$"
    check "... and it computed every sum, past its printf" "$work/x.out" "^sum 1$"
    check "... and stderr says its printf output was reserved in the buffer and dropped" \
        "$work/x.err" "^gtsim: kernel 'printf_sum' wrote [1-9][0-9]* bytes of printf output; gtsim does not format printf output, dropped$"
fi
# Walking threads compute nothing and reserve nothing: no note.
run "$work/w.out" "$work/w.err" platform=xehpc
if grep -q "^launch 0x0$" "$work/w.out" && ! grep -q "printf" "$work/w.err"; then
    ok "exec=0: the launch succeeds and no printf output is reported"
else
    notok_file "exec=0: the launch succeeds and no printf output is reported" "$work/w.err"
fi
tap_done
