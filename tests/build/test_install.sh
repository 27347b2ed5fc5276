#!/bin/sh
# SPDX-License-Identifier: MIT
# Installing zestub elsewhere than the configured prefix, the two ways the
# GNU standards offer: `make install prefix=DIR` after a default configure
# (from this build tree: nothing is rebuilt, so the other tests running on
# it are not disturbed) and `configure --prefix=DIR && make install` (a
# build of its own: minutes, so only with ZESTUB_TEST_CONFIGURE_INSTALL=1).
# Each installed tree must work: zestub --help, every man page it points at
# installed and rendering without warnings (man -l, else groff), the bash
# completion loading, the XPTI subscriber and dispatcher installed (the
# subscriber uses whichever framework the application loaded: no
# DT_NEEDED on one, xpti/README.md), and launch mode finding its preload library under the new prefix.
. "$top_srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The nested make must not take the outer make check's jobserver or TESTS.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u TESTS make "$@"; }

render() { # man page: its warnings, nothing when clean
    if command -v man >/dev/null 2>&1; then
        LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
    else
        groff -man -ww -z "$1" 2>&1
    fi
}

check_tree() { # DIR label
    d=$1 l=$2
    if help=$("$d/bin/zestub" --help 2>&1) && printf '%s\n' "$help" | grep -q "zestub dump"; then
        ok "$l: zestub --help runs"
    else notok "$l: zestub --help runs" "$help"; fi

    # The man pages the --help texts name, and no source-tree file.
    helps=$(for c in "" devices dump merge doctor; do "$d/bin/zestub" $c --help 2>&1; done)
    pages=$(printf '%s\n' "$helps" | grep -oE 'zestub(-[a-z]+)?\(1\)|man zestub(-[a-z]+)?' |
        sed 's/^man //; s/(1)$//' | sort -u | tr '\n' ' ')
    bad=
    for p in zestub zestub-dump zestub-merge $pages; do
        [ -f "$d/share/man/man1/$p.1" ] || bad="$bad $p.1 (not installed)"
    done
    src=$(printf '%s\n' "$helps" | grep -nE '(cli|doc|gtsim)/[A-Za-z_-]+\.md' || true)
    if [ -z "$bad" ] && [ -z "$src" ]; then
        ok "$l: the man pages --help names are installed (${pages:-none named}), no source file named"
    else notok "$l: the man pages --help names are installed" "missing:$bad
source files named: $src"; fi

    if ! command -v man >/dev/null 2>&1 && ! command -v groff >/dev/null 2>&1; then
        skip "$l: man pages render without warnings" "neither man nor groff here"
    else
        out=
        n_pages=0
        for f in "$d"/share/man/man1/*.1; do
            n_pages=$((n_pages + 1))
            w=$(render "$f")
            [ -z "$w" ] || out="$out$f: $w
"
        done
        if [ "$n_pages" -ge 5 ] && [ -z "$out" ]; then
            ok "$l: $n_pages man pages render without warnings"
        else notok "$l: man pages render without warnings ($n_pages found)" "$out"; fi
    fi

    comp="$d/share/bash-completion/completions/zestub"
    if [ -f "$comp" ] && out=$(bash -c '. "$1" && complete -p zestub' sh "$comp" 2>&1) &&
        printf '%s\n' "$out" | grep -q -- '-F _zestub'; then
        ok "$l: the bash completion is installed and loads"
    else notok "$l: the bash completion is installed and loads" "$out"; fi

    out=$(ls -l "$d/lib/libzestub_xpti.so" "$d/lib/libxptifw.so" 2>&1; readelf -d "$d/lib/libzestub_xpti.so" 2>&1)
    if [ -f "$d/lib/libzestub_xpti.so" ] && [ -f "$d/lib/libxptifw.so" ] &&
        printf '%s\n' "$out" | grep -q "Dynamic section" &&
        ! printf '%s\n' "$out" | grep -q "NEEDED.*libxptifw"; then
        ok "$l: the subscriber and the dispatcher installed, the subscriber bound to no framework"
    else notok "$l: the subscriber and the dispatcher installed, the subscriber bound to no framework" "$out"; fi

    # Launch mode with a program that never creates a module: it must find
    # the installed libzestub_launch.so (not the configured path) and the
    # program runs to its end (status 0, its clean-exit record).
    out=$(env -u ZESTUB_LAUNCH_LIB ZE_ENABLE_ALT_DRIVERS="$d/lib/zestub/libze_gtsim.so" \
        timeout 60 "$d/bin/zestub" dump --json "$tmp/$l.json" -- /bin/true 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q '"exit_code":0' "$tmp/$l.json" 2>/dev/null; then
        ok "$l: launch mode finds its preload library under the new prefix"
    else notok "$l: launch mode finds its preload library under the new prefix" "exit $rc: $out"; fi
}

tap_plan 14
a="$tmp/prefix-a"
if mk -C "$top_builddir" install prefix="$a" >"$tmp/install-a.log" 2>&1; then
    ok "make install prefix=DIR"
else notok_file "make install prefix=DIR" "$tmp/install-a.log"; fi
check_tree "$a" "make install prefix="

if [ "${ZESTUB_TEST_CONFIGURE_INSTALL:-0}" != 1 ]; then
    for c in "configure --prefix=DIR && make install" "its --help" "its man pages" \
        "their rendering" "its completion" "its subscriber" "its launch mode"; do
        skip "$c" "a build of its own takes minutes: ZESTUB_TEST_CONFIGURE_INSTALL=1 runs it"
    done
    tap_done
fi
b="$tmp/prefix-b"
mkdir "$tmp/build-b"
if (cd "$tmp/build-b" && "$top_srcdir/configure" --prefix="$b" >../configure-b.log 2>&1 &&
    mk -j2 install >../install-b.log 2>&1); then
    ok "configure --prefix=DIR && make install"
else notok_file "configure --prefix=DIR && make install" "$tmp/install-b.log"; fi
check_tree "$b" "configure --prefix="
tap_done
