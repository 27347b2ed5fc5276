# SPDX-License-Identifier: MIT
# Sourced by the shell tests of tests/gtsim: TAP with the plan first.
#   tap_plan N        prints 1..N before the first check
#   ok DESC / notok DESC [DETAIL] / skip DESC WHY   one check each
#   tap_done          reports every planned check that never ran as not ok,
#                     fails when more ran than planned; exits with the result
n=0
fail=0
planned=
tap_plan() { planned=$1; echo "1..$planned"; }
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
    n=$((n + 1)); fail=1; echo "not ok $n - $1"
    [ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/# /'
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
