#!/bin/sh
# SPDX-License-Identifier: MIT
# zestub dump joined with the application's XPTI table, on gtsim:
# examples/sycl_like plays the SYCL runtime through libxptifw with our
# subscriber loaded, and every joined field is checked against what the
# example logged. Then two devices with concurrent tasks, and an
# application without a table.
zestub="$top_builddir/zestub"
ex="$top_builddir/examples"
check="python3 $top_srcdir/tests/cli/check_xpti.py"
tmp=$(mktemp -d)
. "$top_srcdir/tests/lib/tap.sh"
cleanup() { kill -9 $(jobs -p) 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB"
export ZET_ENABLE_PROGRAM_DEBUGGING=1
# env execs the program (through libtool's wrapper, which execs too), so $!
# is the application; the example also prints its pid, which is what we
# attach to.
traced="env XPTI_TRACE_ENABLE=1 XPTI_SUBSCRIBERS=$top_builddir/.libs/libzestub_xpti.so
    XPTI_FRAMEWORK_DISPATCHER=$top_builddir/.libs/libxptifw.so"

. "$top_srcdir/tests/cli/run_check.sh"

# The plan, fixed: check_xpti.py makes 14 checks in demo mode, 6 in
# concurrent mode, 3 in absent mode; run_check adds one per run.
#   1. demo: 1 + 14 + 1                                                16
#   2. human format                                                     1
#   3. per mode: 3 dumps + 1 + 3 x (6 + 1) = 25, two modes             50
#   4. no table: 1 + 3 + 1 + 1                                          6
tap_plan 73

# Waits (up to 60 s) until file $1 has $3 lines matching $2.
wait_lines() {
    i=0
    while [ $i -lt 600 ]; do
        [ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# The pid sycl_like printed in file $1 (empty after 60 s without one: a
# loaded CI machine has taken more than 20). Every run writes a file of its
# own: a reused name could still hold the previous run's pid when this
# reads it, before the new application's shell has truncated it (under
# load the human-format check attached to an application that had ended).
app_pid() {
    wait_lines "$1" "^sycl_like: pid " 1 && sed -n 's/^sycl_like: pid \([0-9]*\)$/\1/p' "$1"
}

# Waits for pid $1 to exit (up to $2 seconds); sets $app_rc.
wait_exit() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$1" 2>/dev/null; then app_rc=124; kill -9 "$1"; wait "$1" 2>/dev/null; return 1; fi
    wait "$1"
    app_rc=$?
    return 0
}

# 1. the demo: a launch on a freed buffer, dumped on its page fault (JSON).
$traced "$ex/sycl_like" 2 >"$tmp/app.out" 2>&1 &
app=$!
"$zestub" dump --attach "$(app_pid "$tmp/app.out")" --on page-fault --timeout 30 --registers none \
    --json "$tmp/demo.json" 2>"$tmp/dump.err"
rc=$?
wait_exit $app 30
if [ $rc -eq 0 ] && [ $app_rc -eq 0 ]; then ok "demo: dump exits 0, the application finishes"
else notok_file "demo: dump rc $rc, application rc $app_rc" "$tmp/app.out"; fi
run_check 14 "$tmp/demo.json" "demo:" $check demo "$tmp/demo.json" "$tmp/app.out" "demo:"

# 2. the same in the human format: the lines a user reads.
$traced "$ex/sycl_like" 2 >"$tmp/app2.out" 2>&1 &
app=$!
"$zestub" dump --attach "$(app_pid "$tmp/app2.out")" --on page-fault --timeout 30 --registers none \
    >"$tmp/human.out" 2>&1
rc=$?
wait_exit $app 30
sub=$(sed -n 's/^submit kernel oob instance 1 queue 0x1 device 0 at \([^ ]*\) uid=.*/\1/p' "$tmp/app2.out")
freed=$(sed -n 's/^free \(0x[0-9a-f]*\) at .*/\1/p' "$tmp/app2.out" | head -n 1)
freed_at=$(sed -n 's/^free 0x[0-9a-f]* at \([^ ]*\) uid=.*/\1/p' "$tmp/app2.out" | head -n 1)
alloc_at=$(sed -n "s/^alloc $freed size 256 at \([^ ]*\) uid=.*/\1/p" "$tmp/app2.out")
if [ $rc -eq 0 ] && [ -n "$sub" ] && [ -n "$alloc_at" ] &&
    grep -q "^  in freed allocation $freed (256 bytes) at offset 128$" "$tmp/human.out" &&
    grep -qF "    allocated at $alloc_at in demo" "$tmp/human.out" &&
    grep -qF "    freed at $freed_at in demo" "$tmp/human.out" &&
    grep -q "page-fault at pc 0x.* in oob (.*oob.cl:[0-9]*:[0-9]*)" "$tmp/human.out" &&
    grep -qF "      submitted at $sub in demo: task instance 1 on queue 0x1" "$tmp/human.out"; then
    ok "human format: kernel and device line, submitting line, allocating and freeing lines"
else notok_file "human format (submitted at '$sub', allocated at '$alloc_at', freed at '$freed_at')" "$tmp/human.out"; fi

# 3. two devices, a queue and a host thread each, tasks back to back:
#    dumped three times while they run. Different kernels on the two
#    devices: each thread's task is known exactly. The same kernel on both:
#    the table cannot tell the devices apart, so both tasks are candidates.
export GTSIM_CONFIG="devices=2,pace=40"
for mode in unique ambiguous; do
    same=""
    [ $mode = ambiguous ] && same=--same-kernel
    # On until the dumps are done: on a loaded machine 8 rounds could end
    # before the third dump and leave it nothing running to find.
    $traced "$ex/sycl_like" --concurrent 8 $same --until "$tmp/conc-$mode.done" \
        >"$tmp/conc-$mode.out" 2>&1 &
    app=$!
    pid=$(app_pid "$tmp/conc-$mode.out")
    rm -f "$tmp"/conc?.json
    if wait_lines "$tmp/conc-$mode.out" "^submit kernel .* device 1 " 1 &&
        wait_lines "$tmp/conc-$mode.out" "^submit kernel .* device 0 " 1; then
        for k in 1 2 3; do
            sleep 0.7
            "$zestub" dump --attach "$pid" --on now --timeout 30 --registers none \
                --json "$tmp/conc$k.json" 2>"$tmp/dump.err"
            rc=$?
            if [ $rc -eq 0 ]; then ok "$mode $k: dump --on now exits 0"
            else notok_file "$mode $k: dump exits 0 (got $rc)" "$tmp/dump.err"; fi
        done
    else
        for k in 1 2 3; do
            notok_file "$mode $k: no dump, the example did not submit on both devices" "$tmp/conc-$mode.out"
        done
    fi
    touch "$tmp/conc-$mode.done"
    wait_exit $app 120
    if [ $app_rc -eq 0 ]; then ok "$mode: the application finishes every round"
    else notok_file "$mode: application rc $app_rc" "$tmp/conc-$mode.out"; fi
    for k in 1 2 3; do
        run_check 6 "$tmp/conc$k.json" "$mode $k:" \
            $check concurrent "$tmp/conc$k.json" "$tmp/conc-$mode.out" "$mode $k:" $mode
    done
done
unset GTSIM_CONFIG

# 4. an application that is not instrumented: everything works, one note.
"$ex/pagefault" 2 >"$tmp/app.out" 2>&1 &
app=$!
"$zestub" dump --attach $app --on page-fault --timeout 30 --registers none \
    --json "$tmp/plain.json" 2>"$tmp/dump.err"
rc=$?
wait_exit $app 30
if [ $rc -eq 0 ] && [ $app_rc -eq 0 ]; then ok "no table: dump exits 0, the application finishes"
else notok_file "no table: dump rc $rc, application rc $app_rc" "$tmp/dump.err"; fi
run_check 3 "$tmp/plain.json" "no table:" $check absent "$tmp/plain.json" $app "no table:"
"$ex/pagefault" 2 >"$tmp/app.out" 2>&1 &
app=$!
"$zestub" dump --attach $app --on page-fault --timeout 30 --registers none >"$tmp/human.out" 2>&1
rc=$?
wait_exit $app 30
if [ $rc -eq 0 ] && [ "$(grep -c "XPTI" "$tmp/human.out")" -eq 1 ] &&
    grep -q "^note: no XPTI table for pid $app (application not instrumented): no submission sites or allocations$" "$tmp/human.out" &&
    grep -q "page-fault at pc 0x.* in oob" "$tmp/human.out" && ! grep -q "submitted\|allocated" "$tmp/human.out"; then
    ok "no table, human format: one note, the rest as before"
else notok_file "no table, human format" "$tmp/human.out"; fi

tap_done
