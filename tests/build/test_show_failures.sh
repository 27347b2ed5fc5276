#!/bin/sh
# SPDX-License-Identifier: MIT
# build-aux/show-failures.sh, what ./quickstart check prints when tests
# fail (issue 31 item 11): each failing check with its own diagnostics,
# even when later checks of the same test printed more than a tail would
# show; a test that died without a failing check shows its tail; a log
# that only passed is not shown.
. "$top_srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 6
mkdir -p "$tmp/tests/a" "$tmp/tests/b"
{
    echo "1..3"
    echo "ok 1 - first"
    echo "PASS: t 1 - first"
    echo "not ok 2 - the pid line was not seen in 60 s"
    echo "FAIL: t 2 - the pid line was not seen in 60 s"
    echo "# the reason the check gave"
    echo "ok 3 - third"
    echo "PASS: t 3 - third"
    i=0
    while [ $i -lt 60 ]; do echo "# a later check's chatter $i"; i=$((i + 1)); done
} >"$tmp/tests/a/test_fail.log"
{
    echo "1..2"
    echo "ok 1 - only"
    echo "PASS: c 1 - only"
    echo "Segmentation fault"
    echo "ERROR: c - exited with status 139"
} >"$tmp/tests/b/test_crash.log"
printf '1..1\nok 1 - fine\nPASS: p 1 - fine\n' >"$tmp/tests/b/test_pass.log"

out=$("$top_srcdir/build-aux/show-failures.sh" "$tmp" 2>&1)
case "$out" in
*"not ok 2 - the pid line was not seen in 60 s"*) ok "the failing check is shown" ;;
*) notok "the failing check is shown" "$out" ;;
esac
case "$out" in
*"# the reason the check gave"*) ok "with its own diagnostic line" ;;
*) notok "with its own diagnostic line" "$out" ;;
esac
case "$out" in
*"chatter"*) notok "a later passing check's lines are left out" "$out" ;;
*) ok "a later passing check's lines are left out" ;;
esac
case "$out" in
*"==> $tmp/tests/b/test_crash.log"*"Segmentation fault"*) ok "a test that crashed shows its tail" ;;
*) notok "a test that crashed shows its tail" "$out" ;;
esac
case "$out" in
*test_pass.log*) notok "a log that only passed is not shown" "$out" ;;
*) ok "a log that only passed is not shown" ;;
esac
if grep -q 'build-aux/show-failures.sh' "$top_srcdir/quickstart"; then
    ok "./quickstart check prints its failures through it"
else notok "./quickstart check prints its failures through it"; fi
tap_done
