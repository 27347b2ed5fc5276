#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs run.sh again and again (a flake hunt, not part of make check) and
# counts the runs with a failed or missing check; each failing run's TAP is
# kept. From the build tree:
#   GTSIM_LIB=$PWD/.libs/libze_gtsim.so top_builddir=$PWD \
#       CONF_PROGRAMS=test_fault_slm ../tests/conformance/repeat.sh 1000 [KEEP_DIR]
# The CONF_* variables of run.sh choose the matrix. Load the machine with
# something else meanwhile (another build, a second copy of this) to make
# races likelier. Exit status 1 when any run failed.
runs="${1:?usage: repeat.sh RUNS [KEEP_DIR]}"
keep="${2:-${TMPDIR:-/tmp}/conformance-repeat}"
here="$(dirname "$0")"
mkdir -p "$keep" || exit 2
failed=0
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    out="$keep/run-$i.tap"
    sh "$here/run.sh" >"$out" 2>&1
    if grep -q '^not ok' "$out" || ! grep -q '^ok' "$out"; then
        failed=$((failed + 1))
        echo "run $i failed: $out"
    else
        rm -f "$out"
    fi
done
echo "$runs runs, $failed failed"
[ "$failed" -eq 0 ]
