#!/bin/sh
# SPDX-License-Identifier: MIT
# The committed fixtures are what their sources make: regen.sh is run into
# a scratch folder with the ocloc and iga64 found here, and every file of
# tests/kernels/fixtures must come out byte for byte the same (and nothing
# else may come out). A kernel source edited without `make regen-kernels`,
# a fixture edited by hand, or a regen.sh that no longer runs fails here.
# Skips, saying why, without ocloc (intel-opencl-icd) or iga64
# (libigc-tools). A different IGC than Debian 12's would also fail: the
# fixtures are that compiler's output, and the message says so.
. "$top_srcdir/tests/lib/tap.sh"

fixtures="$top_srcdir/tests/kernels/fixtures"
# One check that regen.sh runs, one per committed fixture, one that it
# made nothing the fixtures lack.
count=$(ls "$fixtures" | wc -l)
tap_plan $((count + 2))

OCLOC=${OCLOC:-ocloc}
IGA64=${IGA64:-iga64}
for tool in "$OCLOC" "$IGA64"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        while [ "$n" -lt "$planned" ]; do
            skip "fixtures regenerated" "no $tool in PATH (ocloc: intel-opencl-icd; iga64: libigc-tools)"
        done
        tap_done
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/zestub-regen.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

if OCLOC="$OCLOC" IGA64="$IGA64" sh "$top_srcdir/tests/kernels/regen.sh" "$work/out" \
    >"$work/regen.log" 2>&1; then
    ok "regen.sh rebuilds the fixtures from tests/kernels/*.cl"
else
    notok_file "regen.sh rebuilds the fixtures from tests/kernels/*.cl" "$work/regen.log"
fi

compiler=$(dpkg-query -W -f '${Version}' intel-opencl-icd 2>/dev/null || echo "unknown")
for path in "$fixtures"/*; do
    f=$(basename "$path")
    if [ ! -f "$work/out/$f" ]; then
        notok "$f: regen.sh made no such file"
    elif cmp -s "$path" "$work/out/$f"; then
        ok "$f: the same bytes as regen.sh makes now"
    else
        case $f in
        *.insns) diff -u "$path" "$work/out/$f" | head -n 30 >"$work/why" ;;
        *) cmp -l "$path" "$work/out/$f" 2>&1 | wc -l | sed 's/$/ bytes differ/' >"$work/why" ;;
        esac
        echo "edited source or fixture, or a compiler other than the one the fixtures" \
            "came from (intel-opencl-icd here: $compiler); see tests/kernels/README.md" >>"$work/why"
        notok_file "$f: differs from what regen.sh makes now" "$work/why"
    fi
done

extra=$(cd "$work/out" 2>/dev/null && for f in *; do
    [ -e "$fixtures/$f" ] || printf '%s ' "$f"
done)
if [ -z "$extra" ]; then
    ok "regen.sh makes no file the fixtures lack"
else
    notok "regen.sh makes files the fixtures lack" "$extra"
fi
tap_done
