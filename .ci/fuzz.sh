#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI's bounded fuzzing: builds the libFuzzer version of every target of
# tests/fuzz with clang (`make fuzz-<target>` in a configured build tree),
# runs each for FUZZ_SECONDS (default 90) on a temporary copy of its
# checked-in corpus (tests/fuzz/corpus/<target>/), and prints one TAP line
# and one summary line per target. A crash, leak, timeout or broken promise
# fails the run and names the reproducer (kept in FUZZ_ARTIFACTS, default a
# directory under the build tree); replay it with the plain program, e.g.
# `tests/fuzz/fuzz_symbols FILE`.
#
# Usage: .ci/fuzz.sh [BUILD_TREE]   (default _build, configured already)
# Without clang: installs it when CI=true and running as root, else every
# target is skipped with the reason (exit 0).
set -uo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
tree="${1:-_build}"
case "$tree" in /*) ;; *) tree="$top/$tree" ;; esac
seconds="${FUZZ_SECONDS:-90}"
artifacts="${FUZZ_ARTIFACTS:-$tree/fuzz-artifacts}"
# target name, corpus folder, extra libFuzzer options
targets=(
    "xtab xtab"
    "rsp rsp -max_len=4096"
    "symbols symbols"
    "gtsim_wire gtsim_wire"
    "merge_json merge_json"
)
echo "1..${#targets[@]}"

skip_all() {
    local i=0
    for t in "${targets[@]}"; do
        i=$((i + 1))
        echo "ok $i - fuzz_${t%% *} # SKIP $1"
    done
    echo "fuzz: skipped: $1"
    exit 0
}

if ! command -v clang >/dev/null 2>&1; then
    if [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ]; then
        echo "# fuzz: installing clang (CI, root)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang; } >/dev/null 2>&1 ||
            skip_all "clang is not installed and apt-get install clang failed"
    else
        skip_all "clang is not installed (apt-get install -y clang; CI=true as root installs it)"
    fi
fi
[ -f "$tree/Makefile" ] || skip_all "$tree is not a configured build tree"

mkdir -p "$artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
i=0
for t in "${targets[@]}"; do
    i=$((i + 1))
    read -r name corpus extra <<<"$t"
    prog="$tree/tests/fuzz/fuzz_${name}_libfuzzer"
    log="$artifacts/fuzz_$name.log"
    if ! make -s -C "$tree" "fuzz-${name//_/-}" >"$log" 2>&1; then
        echo "not ok $i - fuzz_$name: the libFuzzer build failed (see $log)"
        echo "fuzz_$name: build failed"
        status=1
        continue
    fi
    rm -rf "${work:?}/$name" && mkdir -p "$work/$name"
    cp -R "$top/tests/fuzz/corpus/$corpus/." "$work/$name/" 2>/dev/null
    rm -f "$artifacts/fuzz_$name-"*
    # -timeout: a single input taking this long is a hang; the targets'
    # own limits are far below it (fuzz_gtsim_wire waits 10 s for an end).
    # shellcheck disable=SC2086
    (cd "$artifacts" && top_srcdir="$top" "$prog" -max_total_time="$seconds" -timeout=30 \
        -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$artifacts/fuzz_$name-" \
        $extra "$work/$name" >>"$log" 2>&1)
    rc=$?
    runs="$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)"
    runs="${runs:-0}"
    found="$(find "$artifacts" -maxdepth 1 -name "fuzz_$name-*" -type f | head -n 5)"
    crashes="$(printf '%s' "$found" | grep -c . || true)"
    if [ "$rc" -eq 0 ] && [ -z "$found" ] && [ "$runs" -gt 0 ]; then
        echo "ok $i - fuzz_$name: $runs executions in $seconds s, no crash"
    else
        echo "not ok $i - fuzz_$name: exit $rc after $runs executions (log: $log)"
        grep -a -m 3 -E 'ERROR:|broken promise|SUMMARY:' "$log" | sed 's/^/#   /'
        for f in $found; do
            echo "#   reproducer: $f (replay: $tree/tests/fuzz/fuzz_$name $f)"
        done
        status=1
    fi
    echo "fuzz_$name: executions=$runs crashes=$crashes seconds=$seconds"
done
exit $status
