#!/bin/sh
# SPDX-License-Identifier: MIT
# show-failures.sh [DIR]: after a failed `make check`, each test log under
# DIR (default .) with a failing check, and under it each failing check
# with its own diagnostics (the "# " lines the test printed for it, at most
# 30 each), not the log's tail, where a later passing check can push the
# reason out. A log without a failing check but with an ERROR (a crash, a
# wrong plan) shows its last 40 lines. Used by ./quickstart check.
dir="${1:-.}"
find "$dir" -name '*.log' ! -name 'config.log' ! -name 'test-suite.log' ! -path '*/_inst/*' \
    -exec grep -l -E '^(not ok|Bail out|ERROR)' {} + 2>/dev/null | sort |
    while read -r f; do
        echo "==> $f"
        if grep -q -E '^(not ok|Bail out)' "$f"; then
            awk '/^(not ok|Bail out)/ { shown = 0; on = 1; print; next }
                 /^(ok |PASS:|SKIP:|XFAIL:|XPASS:|ERROR:)/ { on = 0; next }
                 on && /^#/ && shown++ < 30 { print }' "$f"
        else
            tail -n 40 "$f"
        fi
    done
