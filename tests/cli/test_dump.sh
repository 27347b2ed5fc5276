#!/bin/sh
# SPDX-License-Identifier: MIT
# zestub dump against real applications on gtsim: page faults on every
# platform, --on now against a running kernel, a 16,384-thread device with
# all registers, timeouts, and a dumping process killed at several points.
zestub="$top_builddir/zestub"
ex="$top_builddir/examples"
check="python3 $top_srcdir/tests/cli/check_dump.py"
fixtures="$top_srcdir/tests/kernels/fixtures"
tmp=$(mktemp -d)
. "$top_srcdir/tests/lib/tap.sh"
cleanup() { kill -9 $(jobs -p) 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB"

. "$top_srcdir/tests/cli/run_check.sh"

# The plan, fixed: check_dump.py makes 7 checks of every document, plus one
# per option (--status, --kernel, --fixture, --min-threads, --reason), two
# for --app-output and three for --max-reads-per-thread; run_check adds one.
#   1. per platform: 2 + (7 + 1 + 2 + 1 + 1 + 1) + 1 = 16, three times  48
#   2. human format                                                      1
#   3. --on now: 2 + (7 + 1 + 1 + 1 + 1 + 1) + 1                        15
#   4. 16,384 threads: 1 + (7 + 1 + 1 + 3) + 1                          14
#   5. timeout: 1 + (7 + 1) + 1                                         10
#   6. killed dumps                                                      4
#   7. errors                                                            3
tap_plan 96

# Waits (up to 20 s) until file $1 contains $2.
wait_for() {
    i=0
    while [ $i -lt 200 ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
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

# 1. page fault on each platform: dump attaches during the app's pause.
for plat in gen12lp xehpg xehpc; do
    export GTSIM_CONFIG="platform=$plat"
    rm -f "$tmp/pf.json" # the previous platform's must not stand in for this one
    ZET_ENABLE_PROGRAM_DEBUGGING=1 "$ex/pagefault" 2 >"$tmp/app.out" 2>&1 &
    app=$!
    "$zestub" dump --attach $app --on page-fault --timeout 30 --json "$tmp/pf.json" 2>"$tmp/dump.err"
    rc=$?
    wait_exit $app 30
    if [ $rc -eq 0 ]; then ok "$plat: dump --on page-fault exits 0"; else notok_file "$plat: dump exits 0 (got $rc)" "$tmp/dump.err"; fi
    if [ $app_rc -eq 0 ]; then ok "$plat: the application finishes after the dump"; else notok_file "$plat: application finishes (rc $app_rc)" "$tmp/app.out"; fi
    run_check 13 "$tmp/pf.json" "$plat:" $check "$tmp/pf.json" --prefix "$plat:" --status 0 --app-output "$tmp/app.out" \
        --kernel oob --fixture "$fixtures/oob-$plat.elf" --reason page-fault
done
unset GTSIM_CONFIG

# 2. the human format by default.
ZET_ENABLE_PROGRAM_DEBUGGING=1 "$ex/pagefault" 2 >"$tmp/app.out" 2>&1 &
app=$!
"$zestub" dump --attach $app --timeout 30 >"$tmp/human.out" 2>&1
rc=$?
wait_exit $app 30
if [ $rc -eq 0 ] && grep -q "^page fault at 0x.* (mapping)" "$tmp/human.out" &&
    grep -q "thread .* page-fault at pc 0x.* in oob (.*oob.cl:[0-9]*:[0-9]*)" "$tmp/human.out"; then
    ok "human format names the fault, the kernel and the source line"
else notok_file "human format" "$tmp/human.out"; fi

# 3. --on now against a long-running kernel: stops, dumps, resumes.
export GTSIM_CONFIG="platform=xehpc,pace=20"
ZET_ENABLE_PROGRAM_DEBUGGING=1 "$ex/vadd" >"$tmp/app.out" 2>&1 &
app=$!
wait_for "$tmp/app.out" "^device:" && sleep 0.5
"$zestub" dump --attach $app --on now --timeout 30 --json "$tmp/now.json" 2>"$tmp/dump.err"
rc=$?
wait_exit $app 60
if [ $rc -eq 0 ]; then ok "dump --on now exits 0"; else notok_file "dump --on now exits 0 (got $rc)" "$tmp/dump.err"; fi
if [ $app_rc -eq 0 ]; then ok "the kernel finishes normally after --on now"; else notok_file "vadd after --on now (rc $app_rc)" "$tmp/app.out"; fi
run_check 12 "$tmp/now.json" "now:" $check "$tmp/now.json" --prefix "now:" --status 0 --kernel vadd --reason interrupt \
    --min-threads 1 --fixture "$fixtures/vadd-xehpc.elf"

# 4. 16,384 threads, all registers: bounded register reads per thread.
export GTSIM_CONFIG="platform=xehpc,tiles=2,slices=8,subslices=8,eus=8,threads=16,pace=20"
ZET_ENABLE_PROGRAM_DEBUGGING=1 "$ex/vadd" >"$tmp/app.out" 2>&1 &
app=$!
wait_for "$tmp/app.out" "^device:" && sleep 0.5
"$zestub" dump --attach $app --on now --registers all --timeout 60 --json "$tmp/big.json" 2>"$tmp/dump.err"
rc=$?
wait_exit $app 60
if [ $rc -eq 0 ] && [ $app_rc -eq 0 ]; then ok "16384 threads: full dump with all registers, app finishes"
else notok_file "16384 threads: dump rc $rc, app rc $app_rc" "$tmp/dump.err"; fi
# xehpc reports 12 register sets (level-zero-facts.md section 8).
run_check 12 "$tmp/big.json" "16k:" $check "$tmp/big.json" --prefix "16k:" --status 0 --min-threads 1 --max-reads-per-thread 12

# 5. timeout: no page fault comes; the current state is dumped, status 3.
export GTSIM_CONFIG="platform=xehpc,pace=20"
ZET_ENABLE_PROGRAM_DEBUGGING=1 "$ex/vadd" >"$tmp/app.out" 2>&1 &
app=$!
wait_for "$tmp/app.out" "^device:"
"$zestub" dump --attach $app --on page-fault --timeout 1 --json "$tmp/to.json" 2>"$tmp/dump.err"
rc=$?
wait_exit $app 60
if [ $rc -eq 3 ] && [ $app_rc -eq 0 ]; then ok "timeout: status 3, application unharmed"
else notok_file "timeout: status $rc (want 3), app rc $app_rc" "$tmp/dump.err"; fi
run_check 8 "$tmp/to.json" "timeout:" $check "$tmp/to.json" --prefix "timeout:" --status 3

# 6. a dumping process killed at any point never leaves the application stuck.
for when in 0.2 0.6 1.0 1.5; do
    ZET_ENABLE_PROGRAM_DEBUGGING=1 "$ex/vadd" >"$tmp/app.out" 2>&1 &
    app=$!
    wait_for "$tmp/app.out" "^device:"
    "$zestub" dump --attach $app --on now --registers all --timeout 30 --json "$tmp/k.json" 2>/dev/null &
    dumper=$!
    sleep $when
    kill -9 $dumper 2>/dev/null
    wait $dumper 2>/dev/null
    wait_exit $app 60
    if [ $app_rc -eq 0 ]; then ok "dump killed after ${when}s: the application finishes"
    else notok_file "dump killed after ${when}s: application rc $app_rc" "$tmp/app.out"; fi
done
unset GTSIM_CONFIG

# 7. errors: no such process; a process that does not use Level Zero.
"$zestub" dump --attach 999999 --timeout 2 >"$tmp/e.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -qi "no such process" "$tmp/e.out"; then ok "no such process: status 1 with a reason"
else notok_file "no such process (status $rc)" "$tmp/e.out"; fi
sleep 30 &
sl=$!
"$zestub" dump --attach $sl --timeout 1 >"$tmp/e.out" 2>&1
rc=$?
kill $sl
if [ $rc -eq 1 ] && grep -q "has not loaded Level Zero" "$tmp/e.out" &&
    ! grep -q "too early" "$tmp/e.out"; then ok "no Level Zero: status 1, said so (not 'too early')"
else notok_file "no Level Zero (status $rc)" "$tmp/e.out"; fi
"$zestub" dump --on sometimes >"$tmp/e.out" 2>&1
rc=$?
if [ $rc -eq 2 ]; then ok "usage error: status 2"; else notok_file "usage error (status $rc)" "$tmp/e.out"; fi
"$zestub" dump --attach 1 --json "$tmp/same" --core "$tmp/same" >"$tmp/e.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "name the same file" "$tmp/e.out"; then
    ok "--json and --core naming one file: usage error, said so"
else notok_file "--json = --core (status $rc)" "$tmp/e.out"; fi

tap_done
