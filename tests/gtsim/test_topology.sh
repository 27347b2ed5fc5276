#!/bin/sh
# SPDX-License-Identifier: MIT
# Device, sub-device and thread counts seen through the real loader match
# GTSIM_CONFIG, for every platform and a 16,384-thread two-tile device.
probe="$top_builddir/tests/gtsim/topology_probe"
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 9 # eight configurations, one bad configuration

check() { # config expected-line-pattern description
    out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="$1" "$probe" 2>&1)
    if printf '%s\n' "$out" | grep -Eq -- "$2"; then ok "$3"; else
        notok "$3"; printf '%s\n' "$out" | sed 's/^/# /'; echo "# wanted: $2"
    fi
}

check "platform=gen12lp,slices=1,subslices=6,eus=16,threads=7" \
    "^device 0 sub - id 0x9a49 vendor 0x8086 slices 1 subslices 6 eus 16 threads 7 total 672 subflag 0" \
    "gen12lp counts"
check "platform=xehpg,slices=2,subslices=4,eus=16,threads=8" \
    "^device 0 sub - id 0x56a0 vendor 0x8086 slices 2 subslices 4 eus 16 threads 8 total 1024 subflag 0" \
    "xehpg counts"
check "platform=xehpc,slices=1,subslices=4,eus=8,threads=8" \
    "^device 0 sub - id 0x0bd5 vendor 0x8086 slices 1 subslices 4 eus 8 threads 8 total 256 subflag 0" \
    "xehpc counts"
check "platform=xehpc,devices=2" "^devices 2$" "two root devices"
check "platform=xehpc,devices=2" "^device 1 sub - .* pci 0000:3b:00.0" "second device has its own PCI slot"
big="platform=xehpc,tiles=2,slices=8,subslices=8,eus=8,threads=16"
check "$big" "^device 0 sub - .*slices 16 subslices 8 eus 8 threads 16 total 16384 subflag 0" \
    "16384-thread root device spans both tiles"
check "$big" "^device 0 sub 1 .*slices 8 subslices 8 eus 8 threads 16 total 8192 subflag 1 subid 1" \
    "each tile is a sub-device with half the threads"
check "platform=xehpc,tiles=1" "^devices 1$" "no sub-devices without tiles"
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=nope" "$probe" 2>&1)
if printf '%s\n' "$out" | grep -q "unknown platform 'nope'"; then ok "bad config is explained on stderr"
else notok "bad config is explained on stderr"; printf '%s\n' "$out" | sed 's/^/# /'; fi
tap_done
