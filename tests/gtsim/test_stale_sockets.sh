#!/bin/sh
# SPDX-License-Identifier: MIT
# gtsim's debug endpoint leaves its socket behind when the process is
# SIGKILLed (no atexit); the next process that opens the endpoint removes
# the sockets of pids that no longer exist and keeps those of live ones.
# In a runtime directory of its own (GTSIM_RUNTIME_DIR), removed at the end.
ex="$top_builddir/examples"
. "$top_srcdir/tests/lib/tap.sh"
tap_plan 8 # the killed process's socket, the two pids, six after a vadd run
check() { if eval "$1"; then ok "$2"; else notok "$2" "$3"; fi; }

rt=$(mktemp -d) || exit 99
live= victim=
trap 'kill -9 $live $victim 2>/dev/null; rm -rf "$rt"' EXIT
dir="$rt/gtsim-$(id -u)"
mkdir -m 700 "$dir" || exit 99
mksock() { python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1"; }
run_vadd() {
    GTSIM_RUNTIME_DIR="$rt" ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" "$ex/vadd" "$@" 2>&1
}

# A process killed while its endpoint is open leaves its socket.
mkfifo "$rt/out"
GTSIM_RUNTIME_DIR="$rt" ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" \
    GTSIM_CONFIG="platform=xehpc,subslices=2,eus=2,threads=4,pace=20" \
    "$ex/vadd" --print-buffers >"$rt/out" 2>&1 &
victim=$!
exec 3<"$rt/out"
while read -r line <&3; do
    case "$line" in buffers:*) break ;; esac
done
kill -9 "$victim"
wait "$victim" 2>/dev/null
exec 3<&-
check '[ -S "$dir/$victim.sock" ]' "a SIGKILLed process leaves $victim.sock" "$(ls -l "$dir")"

# A pid that no longer exists (a child already reaped), one that does (a
# sleeping child), a name that is no pid and a file that is no socket.
sh -c 'exit 0' &
dead=$!
wait "$dead"
sleep 300 &
live=$!
mksock "$dir/$dead.sock"
mksock "$dir/$live.sock"
mksock "$dir/notapid.sock"
: >"$dir/$((dead + 1000000)).sock"
check '! kill -0 "$dead" 2>/dev/null && kill -0 "$live"' "pid $dead is gone, pid $live lives"

out=$(run_vadd)
rc=$?
check '[ $rc -eq 0 ] && printf "%s" "$out" | grep -q "vadd: PASSED"' "vadd runs on gtsim" "$out"
check '[ ! -e "$dir/$victim.sock" ]' "the killed process's socket is removed" "$(ls -l "$dir")"
check '[ ! -e "$dir/$dead.sock" ]' "the socket of pid $dead (gone) is removed" "$(ls -l "$dir")"
check '[ -S "$dir/$live.sock" ]' "the socket of pid $live (alive) stays" "$(ls -l "$dir")"
check '[ -S "$dir/notapid.sock" ] && [ -f "$dir/$((dead + 1000000)).sock" ]' \
    "a name that is no pid and a file that is no socket stay" "$(ls -l "$dir")"
check '[ $(ls "$dir" | wc -l) -eq 3 ]' "vadd's own socket is gone after it exits" "$(ls -l "$dir")"
tap_done
