# SPDX-License-Identifier: MIT
# Sourced by the shell tests (. "$top_srcdir/tests/lib/tap.sh"): TAP with
# the plan first.
#   tap_plan N              prints 1..N before the first check
#   ok DESC                 a passed check
#   notok DESC [DETAIL]     a failed check; DETAIL (text) follows as comments
#   notok_file DESC FILE    a failed check; the last 30 lines of FILE (when
#                           it exists: a log, an output) follow as comments
#   skip DESC WHY           a check that cannot run here, and why
#   tap_done                reports every planned check that never ran as not
#                           ok, fails when more ran than planned; exits with
#                           the result (0 all passed, 1 otherwise)
# A test that cannot run at all prints "1..0 # SKIP reason" and exits 0.
n=0
fail=0
planned=
tap_plan() { planned=$1; echo "1..$planned"; }
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
    n=$((n + 1)); fail=1; echo "not ok $n - $1"
    [ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/# /'
}
notok_file() {
    notok "$1"
    [ ! -f "$2" ] || sed 's/^/# /' "$2" | tail -n 30
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
tap_done() {
    ran=$n
    while [ "$n" -lt "$planned" ]; do
        notok "planned check $((n + 1)) of $planned never ran (only $ran ran)"
    done
    if [ "$ran" -gt "$planned" ]; then
        fail=1; echo "# $ran checks ran, $planned were planned"
    fi
    exit $fail
}
