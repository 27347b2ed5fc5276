#!/bin/sh
# SPDX-License-Identifier: MIT
# Rebuilds tests/kernels/fixtures from the OpenCL C sources next to this
# script: one zebin per kernel file and platform (<kernel>-<platform>.elf),
# straight from ocloc, plus the instruction boundaries iga64 sees in every
# .text.* section of it (<kernel>-<platform>.insns).
#
# Usage: tests/kernels/regen.sh [fixtures-dir]
# Environment: OCLOC, IGA64, READELF, OBJCOPY, PYTHON override the tools found
# in PATH.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/fixtures}
OCLOC=${OCLOC:-ocloc}
IGA64=${IGA64:-iga64}
READELF=${READELF:-readelf}
OBJCOPY=${OBJCOPY:-objcopy}
PYTHON=${PYTHON:-python3}

die() {
    echo "regen.sh: $*" >&2
    exit 1
}

for tool in "$OCLOC" "$IGA64" "$READELF" "$OBJCOPY" "$PYTHON"; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "'$tool' not found (ocloc: package intel-opencl-icd; iga64: libigc-tools; readelf/objcopy: binutils; python3)"
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zestub-kernels.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Per-kernel compile options. loop_call is built without optimisation so that
# IGC keeps scale_add() as a real stack call, which is what gives the module a
# .debug_frame and a second FUNC symbol; the others are built optimised
# because only optimised builds contain compacted (8-byte) instructions.
options_for() {
    case $1 in
    loop_call) echo "-g -cl-opt-disable" ;;
    *) echo "-g" ;;
    esac
}

# gtsim platform name, ocloc device, iga64 platform.
platforms="gen12lp:tgllp:12p1 xehpg:dg2:12p71 xehpc:pvc:12p72"

# Emits the .insns lines for one raw .text dump: offset, length, base
# mnemonic and flags, taken from iga64's own disassembly so the decoder is
# checked against an independent implementation.
insns_of() { # <raw-bin> <iga-platform> <size>
    "$IGA64" -d -p "$2" -Xprint-pc "$1" >"$work/dis.txt" 2>"$work/dis.err" ||
        die "iga64 failed on $1: $(cat "$work/dis.err")"
    awk -v size="$3" '
        function hex(s,    i, v) {
            v = 0
            s = tolower(s)
            for (i = 1; i <= length(s); i++)
                v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v
        }
        /^\/\* \[[0-9A-Fa-f]+\] +\*\// {
            pc = $0; sub(/^\/\* \[/, "", pc); sub(/\].*/, "", pc)
            body = $0; sub(/^\/\* \[[0-9A-Fa-f]+\] +\*\/ */, "", body)
            code = body; sub(/\/\/.*/, "", code)
            opts = ""
            if (match(code, /\{[^}]*\}[ \t]*$/))
                opts = substr(code, RSTART + 1, RLENGTH - 1)
            n = split(code, f, /[ \t]+/)
            mn = ""
            for (i = 1; i <= n; i++)
                if (f[i] != "" && substr(f[i], 1, 1) != "(") { mn = f[i]; break }
            sub(/\..*/, "", mn)
            cnt++
            pcs[cnt] = hex(pc); mns[cnt] = mn
            cmp[cnt] = (opts ~ /(^|[{,])Compacted([,}]|$)/)
            eot[cnt] = (opts ~ /(^|[{,])EOT([,}]|$)/)
            bp[cnt] = (opts ~ /(^|[{,])Breakpoint([,}]|$)/)
        }
        END {
            end = 0
            for (i = 1; i <= cnt; i++) {
                len = cmp[i] ? 8 : 16
                next_pc = (i < cnt) ? pcs[i + 1] : pcs[i] + len
                if (next_pc - pcs[i] != len || next_pc > size) {
                    printf("instruction at 0x%x: length %d disagrees with compaction\n",
                           pcs[i], next_pc - pcs[i]) > "/dev/stderr"
                    exit 1
                }
                line = sprintf("%04x %d %s", pcs[i], len, mns[i])
                if (cmp[i]) line = line " compacted"
                if (mns[i] == "send" || mns[i] == "sendc") line = line " send"
                if (eot[i]) line = line " eot"
                if (bp[i]) line = line " breakpoint"
                print line
                end = next_pc
            }
            # IGC pads .text with zeros; an 8-byte remainder is too short for
            # the native instruction its clear compaction bit announces.
            if (end < size)
                printf("padding %04x %d\n", end, size - end)
        }' "$work/dis.txt"
}

for src in "$here"/*.cl; do
    kernel=$(basename "$src" .cl)
    # printf_sum has no fixture: tests/gtsim/test_printf.sh compiles it when
    # it runs (and this ocloc writes it without .debug_info).
    [ "$kernel" = printf_sum ] && continue
    cp "$src" "$work/"
    for triple in $platforms; do
        plat=${triple%%:*}
        rest=${triple#*:}
        device=${rest%%:*}
        iga=${rest#*:}
        elf=$out/$kernel-$plat.elf
        insns=$out/$kernel-$plat.insns
        # PWD=/proc/self/cwd makes LLVM record that as DW_AT_comp_dir (it
        # trusts $PWD when it is absolute and names the current directory), so
        # the fixtures do not depend on where the checkout or the temporary
        # directory is; relative_comp_dir.py then turns it into tests/kernels/
        # (same length), a directory that exists in every checkout.
        (cd "$work" && PWD=/proc/self/cwd "$OCLOC" compile -q -file "$kernel.cl" \
            -device "$device" -options "$(options_for "$kernel")" --format zebin \
            -output "$kernel-$plat" -output_no_suffix -out_dir "$work/out") \
            >"$work/ocloc.log" 2>&1 ||
            die "ocloc failed for $kernel on $device: $(cat "$work/ocloc.log")"
        cp "$work/out/$kernel-$plat" "$elf"
        "$PYTHON" "$here/relative_comp_dir.py" "$elf" || die "cannot rewrite the comp_dir of $elf"

        "$READELF" -SW "$elf" | grep -q ' \.ze_info ' || die "$elf has no .ze_info"
        "$READELF" -SW "$elf" | grep -q ' \.debug_info ' || die "$elf has no .debug_info"

        {
            echo "# SPDX-License-Identifier: MIT"
            echo "# Generated by tests/kernels/regen.sh from $kernel.cl (ocloc -device $device," \
                "iga64 -p $iga). Do not edit."
            echo "# <offset-hex> <length> <mnemonic> [compacted] [send] [eot] [breakpoint]"
            echo "platform $plat"
            "$READELF" -SW "$elf" | sed -n 's/^ *\[ *[0-9]*\] \(\.text\.[^ ]*\) .*/\1/p' |
                while read -r sec; do
                    "$OBJCOPY" -I elf64-little -O binary --only-section="$sec" "$elf" "$work/text.bin"
                    size=$(wc -c <"$work/text.bin" | tr -d ' ')
                    echo "kernel ${sec#.text.} size 0x$(printf '%x' "$size")"
                    insns_of "$work/text.bin" "$iga" "$size" || exit 1
                done
        } >"$insns.tmp"
        mv "$insns.tmp" "$insns"
        echo "regen.sh: wrote $(basename "$elf") $(basename "$insns")"
    done
done
