#!/bin/sh
# SPDX-License-Identifier: MIT
# `zestub devices` (human and --json) on every gtsim platform and on a
# 2-tile device with sub-device attach on and off; exit statuses.
zestub="$top_builddir/zestub"
. "$top_srcdir/tests/lib/tap.sh"
show() { printf '%s\n' "$1" | sed 's/^/# /'; }

if [ -z "$GTSIM_LIB" ]; then
    echo "1..0 # SKIP GTSIM_LIB is not set"
    exit 0
fi
tap_plan 26
run() { # config args...: sets out and rc
    cfg=$1
    shift
    out=$(ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="$cfg" "$zestub" "$@" 2>&1)
    rc=$?
}
expect() { # description pattern (grep -E on the last run's output)
    if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -Eq -- "$2"; then ok "$1"; else
        notok "$1"; show "$out"; echo "# exit $rc, wanted: $2"
    fi
}
# Checks the last run's JSON with a Python expression over `d` (the list).
json() { # description expression
    if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if ('"$2"') else 1)' 2>/dev/null; then ok "$1"; else
        notok "$1"; show "$out"; echo "# exit $rc, wanted: $2"
    fi
}

run "platform=gen12lp,slices=1,subslices=6,eus=16,threads=7" devices
expect "gen12lp topology" \
    "^    topology: 1 slices x 6 subslices x 16 EUs x 7 threads = 672 threads$"
expect "gen12lp ids and PCI slot" "^    id 8086:9a49  pci 0000:3a:00\.0  uuid [0-9a-f-]{36}$"
expect "gen12lp attachable" "^    attachable: yes$"
expect "gen12lp summary" "^1 device \(1 root, 0 sub-devices\), 1 attachable$"
run "platform=gen12lp,slices=1,subslices=6,eus=16,threads=7" devices --json
json "gen12lp JSON" 'len(d) == 1 and d[0]["device_id"] == "0x9a49" and d[0]["threads"] == 672 and d[0]["parent"] is None and d[0]["can_attach"] is True and d[0]["why_not"] is None'

run "platform=xehpg,slices=2,subslices=4,eus=16,threads=8" devices
expect "xehpg topology" \
    "^    topology: 2 slices x 4 subslices x 16 EUs x 8 threads = 1024 threads$"
expect "xehpg id" "^    id 8086:56a0 "
run "platform=xehpg,slices=2,subslices=4,eus=16,threads=8" devices --json
json "xehpg JSON" 'len(d) == 1 and d[0]["vendor_id"] == "0x8086" and (d[0]["slices"], d[0]["subslices_per_slice"], d[0]["eus_per_subslice"], d[0]["threads_per_eu"], d[0]["threads"]) == (2, 4, 16, 8, 1024)'

run "platform=xehpc" devices
expect "xehpc default topology" \
    "^    topology: 1 slices x 4 subslices x 8 EUs x 8 threads = 256 threads$"
expect "xehpc id" "^    id 8086:0bd5 "
run "platform=xehpc,devices=2" devices --json
json "two root devices, each its own PCI slot" 'len(d) == 2 and d[1]["index"] == 1 and d[0]["pci_slot"] == "0000:3a:00.0" and d[1]["pci_slot"] == "0000:3b:00.0" and all(x["can_attach"] for x in d)'

tiles="platform=xehpc,tiles=2,slices=2,subslices=4,eus=8,threads=8"
run "$tiles" devices
expect "2-tile root spans both tiles" \
    "^    topology: 4 slices x 4 subslices x 8 EUs x 8 threads = 1024 threads$"
expect "2-tile root lists its sub-devices" "^    sub-devices: 2$"
expect "sub-device 1 listed after its root" "^\[2\] sub-device 1 of \[0\]: "
expect "tile topology" "^    topology: 2 slices x 4 subslices x 8 EUs x 8 threads = 512 threads$"
expect "tile attach on: all attachable" "^3 devices \(1 root, 2 sub-devices\), 3 attachable$"
run "$tiles" devices --json
json "2-tile JSON" 'len(d) == 3 and d[0]["sub_devices"] == 2 and [x["parent"] for x in d] == [None, 0, 0] and [x["subdevice_id"] for x in d] == [None, 0, 1] and [x["threads"] for x in d] == [1024, 512, 512] and all(x["can_attach"] for x in d)'

run "$tiles,tile_attach=0" devices
expect "tile attach off: only the root attachable" "^3 devices \(1 root, 2 sub-devices\), 1 attachable$"
expect "tile attach off: the reason is given" "^    attachable: no: .*tile attach"
run "$tiles,tile_attach=0" devices --json
json "tile attach off JSON" 'd[0]["can_attach"] and not d[1]["can_attach"] and not d[2]["can_attach"] and "tile attach" in d[1]["why_not"] and d[0]["why_not"] is None'

# Exit statuses.
run "platform=nope" devices
# A bad GTSIM_CONFIG: gtsim says what is wrong, zestub that the driver
# ZE_ENABLE_ALT_DRIVERS names did not start (not "install the runtime").
if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q "GTSIM_CONFIG: unknown platform" &&
    printf '%s\n' "$out" | grep -q "ZE_ENABLE_ALT_DRIVERS names failed to initialise" &&
    ! printf '%s\n' "$out" | grep -q "install Intel"; then
    ok "zeInit failure: exit 1 and what to do"
else notok "zeInit failure: exit 1 and what to do"; show "$out"; echo "# exit $rc"; fi
run "" devices --bogus
[ "$rc" -eq 2 ] && ok "unknown option: exit 2" || { notok "unknown option: exit 2"; show "$out"; }
run "" bogus
[ "$rc" -eq 2 ] && ok "unknown command: exit 2" || { notok "unknown command: exit 2"; show "$out"; }
run "" --attach 1
if [ "$rc" -eq 2 ] && printf '%s\n' "$out" | grep -q "^usage: zestub"; then ok "server without COMM: usage, exit 2"
else notok "server without COMM: usage, exit 2"; show "$out"; fi
run "" --version
expect "--version" "^zestub [0-9]"
run "" --help
expect "--help lists devices" "^  devices \[--json\]"
tap_done
