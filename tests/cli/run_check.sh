# SPDX-License-Identifier: MIT
# Sourced by the tests/cli scripts: runs a Python checker whose "ok - " /
# "not ok - " lines join the script's TAP (the ok/notok of tests/lib/tap.sh,
# which the script sources first). The caller says how many checks the
# checker owes, so a checker that dies half-way, is given an empty or
# missing file, or prints fewer lines leaves "not ok" results instead of a
# shorter count; one more check says whether it ran to the end and exited
# with a status that agrees.
#
#   run_check COUNT FILE LABEL COMMAND [ARG...]
#     FILE is the output under check (missing or empty: a failure);
#     LABEL names the run in the results.
run_check() {
    want=$1 file=$2 label=$3
    shift 3
    if [ ! -s "$file" ]; then
        i=0
        while [ $i -lt "$want" ]; do
            i=$((i + 1))
            notok "$label check $i of $want not run: $file is missing or empty"
        done
        notok "$label the checker ran ($file is missing or empty)"
        return 1
    fi
    "$@" >"$tmp/check.out" 2>&1
    rc=$?
    got=0 bad=0
    while IFS= read -r line; do
        case "$line" in
        "ok - "*) got=$((got + 1)); ok "${line#ok - }" ;;
        "not ok - "*) got=$((got + 1)) bad=$((bad + 1)); notok "${line#not ok - }" ;;
        "#"*) echo "$line" ;;
        *) echo "# $line" ;; # a traceback or stray output: shown, never a result
        esac
    done <"$tmp/check.out"
    i=$got
    while [ $i -lt "$want" ]; do
        i=$((i + 1))
        notok "$label check $i of $want not reached: the checker stopped after $got"
    done
    # The exit status must agree with the results: 0 when all passed, 1
    # when some failed; anything else (a crash is 1 with no failure) is not.
    agrees=0
    [ $rc -eq 0 ] && [ $bad -eq 0 ] && agrees=1
    [ $rc -eq 1 ] && [ $bad -gt 0 ] && agrees=1
    if [ "$got" -eq "$want" ] && [ $agrees -eq 1 ]; then
        ok "$label the checker ran its $want checks (exit status $rc)"
    else
        notok "$label the checker ran its $want checks (it gave $got, $bad failed, exit status $rc)"
    fi
}
