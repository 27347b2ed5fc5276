#!/bin/sh
# SPDX-License-Identifier: MIT
# SPIR-V modules through the real loader: tests/kernels/vadd.cl is turned
# into SPIR-V by ocloc now (-spv_only), gtsim compiles it with ocloc for
# its platform, caches the result per user, and the module loads and runs
# like a native one. Without ocloc: the build fails and the log names the
# package to install.
probe="$top_builddir/tests/gtsim/il_probe"
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 16

work=$(mktemp -d "${TMPDIR:-/tmp}/zestub-spirv.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
BUILD_FAILURE=0x70000004

run() { # out-file env... -- probe-args...
    out=$1
    shift
    env ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG=platform=xehpc "$@" >"$out" 2>&1
}
has() { grep -q -- "$2" "$1"; }
check() { # desc file pattern
    if has "$2" "$3"; then ok "$1"; else notok_file "$1 (wanted: $3)" "$2"; fi
}

# No ocloc: a build failure whose log says what to install (never a crash).
printf '\003\002\043\007\000\000\001\000\000\000\000\000\001\000\000\000\000\000\000\000' \
    >"$work/tiny.spv"
run "$work/none.out" XDG_CACHE_HOME="$work/cache0" GTSIM_OCLOC=/nonexistent/ocloc \
    "$probe" "$work/tiny.spv" spirv "-g"
check "without ocloc zeModuleCreate fails with MODULE_BUILD_FAILURE" "$work/none.out" \
    "^create $BUILD_FAILURE$"
check "... and its build log names intel-opencl-icd" "$work/none.out" \
    "^log .*Install Debian's package intel-opencl-icd"
check "the device reports SPIR-V 1.2 as the runtime does" "$work/none.out" "^spirv-version 1.2$"

ocloc=${GTSIM_OCLOC:-ocloc}
if ! command -v "$ocloc" >/dev/null 2>&1; then
    while [ "$n" -lt "$planned" ]; do
        skip "SPIR-V compiled by ocloc" "no ocloc in PATH (install intel-opencl-icd)"
    done
    tap_done
fi
ocloc=$(command -v "$ocloc")

# SPIR-V from the test kernel, made now, as an application's build makes it.
cp "$top_srcdir/tests/kernels/vadd.cl" "$work/"
if (cd "$work" && "$ocloc" compile -q -file vadd.cl -device pvc -spv_only -output_no_suffix \
    -output vadd -options "-g") >"$work/spv.log" 2>&1 && [ -s "$work/vadd.spv" ]; then
    ok "ocloc -spv_only turns tests/kernels/vadd.cl into SPIR-V"
else
    notok_file "ocloc -spv_only turns tests/kernels/vadd.cl into SPIR-V" "$work/spv.log"
fi

# ocloc through a wrapper that counts its runs, to see the cache work.
printf '#!/bin/sh\necho run >>"%s/ocloc.calls"\nexec "%s" "$@"\n' "$work" "$ocloc" \
    >"$work/ocloc-counting"
chmod +x "$work/ocloc-counting"
calls() { cat "$work/ocloc.calls" 2>/dev/null | wc -l | tr -d ' '; }
cache="$work/cache"
run "$work/a.out" XDG_CACHE_HOME="$cache" GTSIM_OCLOC="$work/ocloc-counting" \
    "$probe" "$work/vadd.spv" spirv "-g -ze-opt-disable -ze-nonsense"
check "a SPIR-V module builds with -g" "$work/a.out" "^create 0x0$"
check "... and has the kernel vadd" "$work/a.out" "^kernel vadd$"
check "... with DWARF, so -g reached ocloc" "$work/a.out" "^debug-info [0-9]* 1$"
check "... and its kernel launches" "$work/a.out" "^launch 0x0$"
check "an option ocloc has no counterpart for is named in the build log" "$work/a.out" \
    "^log .*build option -ze-nonsense has no ocloc equivalent"
# Executed (exec=1 on xehpc): the SPIR-V kernel IGC compiled now computes
# the sums (optimized code: -O0 code needs branches gtsim does not model
# yet, gtsim/README.md "Executing instructions").
env ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG=platform=xehpc,exec=1 \
    XDG_CACHE_HOME="$work/cache-exec" "$probe" "$work/vadd.spv" spirv "-g" >"$work/x.out" 2>&1
if grep -q "exec=1 ignored" "$work/x.out"; then
    skip "SPIR-V vadd executed (exec=1): the output holds the sums" "$(grep "exec=1 ignored" "$work/x.out")"
else
    check "SPIR-V vadd executed (exec=1): the output holds the sums" "$work/x.out" "^sum 1$"
fi

mode=$(stat -c %a "$cache/gtsim" 2>/dev/null)
entries=$(ls "$cache/gtsim" 2>/dev/null | grep -c '\.zebin$')
if [ "$mode" = 700 ] && [ "$entries" = 1 ]; then ok "the cache is private (0700) and holds one zebin"
else notok "the cache is private (0700) and holds one zebin (mode $mode, $entries entries)"; fi

run "$work/b.out" XDG_CACHE_HOME="$cache" GTSIM_OCLOC="$work/ocloc-counting" \
    "$probe" "$work/vadd.spv" spirv "-g -ze-opt-disable -ze-nonsense"
if has "$work/b.out" "^launch 0x0$" && [ "$(calls)" = 1 ]; then
    ok "the same IL and flags load from the cache without running ocloc again"
else notok_file "the same IL and flags load from the cache ($(calls) ocloc runs)" "$work/b.out"; fi
run "$work/c.out" XDG_CACHE_HOME="$cache" GTSIM_OCLOC="$work/ocloc-counting" \
    "$probe" "$work/vadd.spv" spirv "-g"
if has "$work/c.out" "^launch 0x0$" && [ "$(calls)" = 2 ]; then
    ok "other flags are another cache entry (ocloc runs again)"
else notok_file "other flags are another cache entry ($(calls) ocloc runs)" "$work/c.out"; fi

# IL that ocloc refuses (a SPIR-V version no compiler knows).
python3 - "$work/vadd.spv" "$work/badver.spv" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[4:8] = (0x00090000).to_bytes(4, 'little')
open(sys.argv[2], 'wb').write(d)
EOF
run "$work/d.out" XDG_CACHE_HOME="$cache" "$probe" "$work/badver.spv" spirv "-g"
check "IL ocloc refuses is a MODULE_BUILD_FAILURE whose log says ocloc failed" "$work/d.out" \
    "^log .*could not compile the module for -device pvc"

run "$work/e.out" XDG_CACHE_HOME="$cache" "$probe" "$work/vadd.spv" spirv "-g" 7=1
check "a specialization constant the module does not declare fails the build" "$work/e.out" \
    "^log .*no specialization constant with SpecId 7"

# A link planted where the cache directory goes is not followed.
mkdir -p "$work/planted/elsewhere" "$work/planted/home"
ln -s "$work/planted/elsewhere" "$work/planted/home/gtsim"
run "$work/f.out" XDG_CACHE_HOME="$work/planted/home" "$probe" "$work/vadd.spv" spirv "-g"
if has "$work/f.out" "^launch 0x0$" && has "$work/f.out" "not caching" &&
    [ -z "$(ls "$work/planted/elsewhere")" ]; then
    ok "a symlink in place of the cache directory is refused (the build still works)"
else notok_file "a symlink in place of the cache directory is refused" "$work/f.out"; fi
tap_done
