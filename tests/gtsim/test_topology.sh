#!/bin/sh
# SPDX-License-Identifier: MIT
# Device, sub-device and thread counts seen through the real loader match
# GTSIM_CONFIG, for every platform and a 16,384-thread two-tile device.
probe="$top_builddir/tests/gtsim/topology_probe"
mask= # ZE_AFFINITY_MASK for check, when set
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 15 # eight configurations, one bad configuration, six affinity masks

check() { # config expected-line-pattern description
    out=$(env ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="$1" \
        ${mask:+"ZE_AFFINITY_MASK=$mask"} "$probe" 2>&1)
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

# ZE_AFFINITY_MASK, read as Intel's runtime reads it: listed roots and
# tiles only; a root left with one tile is a root without sub-devices.
two="platform=xehpc,tiles=2"
mask=0.1; check "$two" "^devices 1$" "mask 0.1: one device"
mask=0.1; check "$two" \
    "^device 0 sub - id 0x0bd5 .* total 256 subflag 0 subid 0 pci 0000:3a:00.0$" \
    "mask 0.1: the device is one tile's size, a root (no sub-device flag)"
out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="$two" ZE_AFFINITY_MASK=0.1 "$probe" 2>&1)
if ! printf '%s\n' "$out" | grep -q "^device 0 sub [0-9]"; then ok "mask 0.1: no sub-devices"
else notok "mask 0.1: no sub-devices" "$out"; fi
mask=0.1,0.0; check "$two" "^device 0 sub 1 .*subflag 1 subid 1" "mask 0.1,0.0: both tiles stay"
mask=1; check "platform=xehpc,devices=2" "^device 0 sub - .* pci 0000:3b:00.0$" \
    "mask 1: only the second root device, as device 0"
mask=7,x,0.5; check "platform=xehpc,devices=2" "^zeInit failed 0x78000001$" \
    "mask of entries that name nothing: no driver (zeInit UNINITIALIZED)"
mask=

out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=nope" "$probe" 2>&1)
if printf '%s\n' "$out" | grep -q "unknown platform 'nope'"; then ok "bad config is explained on stderr"
else notok "bad config is explained on stderr"; printf '%s\n' "$out" | sed 's/^/# /'; fi
tap_done
