#!/bin/bash
# SPDX-License-Identifier: MIT
# contrib/bash-completion/zestub driven as bash drives it (COMP_WORDS,
# COMP_CWORD, then COMPREPLY): values of --on, hang= left open for its
# duration (nospace), and after `--` a program and its files, not options.
. "$top_srcdir/tests/lib/tap.sh"
# compopt works only while readline runs a completion: record its options
# instead.
compopt() { opts="$opts $*"; }
# shellcheck source=/dev/null
. "$top_srcdir/contrib/bash-completion/zestub"
complete_words() { # words...: the last one is being completed
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    opts=
    _zestub
    reply="${COMPREPLY[*]}"
}
has() { case " $reply " in *" $1 "*) return 0 ;; esac; return 1; }
says() { printf 'COMPREPLY: %s\ncompopt:%s' "$reply" "$opts"; }

tap_plan 9
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/app.bin"
: >"$tmp/input.txt"

if complete -p zestub 2>/dev/null | grep -q -- '-F _zestub'; then
    ok "sourcing it registers _zestub for zestub"
else
    notok "sourcing it registers _zestub for zestub" "$(complete -p zestub 2>&1)"
fi

complete_words zestub dump --on h
if [ "$reply" = "hang=" ] && [[ $opts == *"-o nospace"* ]]; then
    ok "--on h completes to hang= with no space after it"
else notok "--on h completes to hang= with no space after it" "$(says)"; fi

complete_words zestub dump --on ""
if has page-fault && has stop && has now && has hang= && [[ $opts != *nospace* ]]; then
    ok "--on with nothing typed offers every trigger, spaces after them"
else notok "--on with nothing typed offers every trigger, spaces after them" "$(says)"; fi

complete_words zestub dump --on p
if [ "$reply" = page-fault ] && [[ $opts != *nospace* ]]; then
    ok "--on p completes to page-fault followed by a space"
else notok "--on p completes to page-fault followed by a space" "$(says)"; fi

complete_words zestub dump --t
if [ "$reply" = --timeout ]; then ok "options still complete before --"
else notok "options still complete before --" "$(says)"; fi

complete_words zestub dump --json x.json -- "$tmp/ap"
if [ "$reply" = "$tmp/app.bin" ] && [[ $opts == *filenames* ]]; then
    ok "after -- a path completes to the program file"
else notok "after -- a path completes to the program file" "$(says)"; fi

complete_words zestub dump -- bas
if has bash && ! has --attach; then ok "after -- a bare word completes to commands"
else notok "after -- a bare word completes to commands" "$(says)"; fi

complete_words zestub dump -- ./app --
if ! has --attach && ! has --json && ! has --on; then
    ok "the program's own arguments get no zestub options"
else notok "the program's own arguments get no zestub options" "$(says)"; fi

complete_words zestub :2345 -- "$tmp/app.bin" "$tmp/in"
if [ "$reply" = "$tmp/input.txt" ]; then
    ok "the server's program arguments complete to files"
else notok "the server's program arguments complete to files" "$(says)"; fi
tap_done
