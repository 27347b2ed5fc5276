#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every conformance program under every simulated configuration, in
# both of the loader's handle modes, as one TAP stream: each check is
# prefixed with [configuration mode program].
#   CONF_CONFIGS="gen12lp tiles2"  only these configurations
#   CONF_MODES="direct"            only these loader modes
#   CONF_PROGRAMS="test_events"    only these programs
#   CONF_REAL_DRIVER=1             no gtsim: the driver the loader finds
dir="${top_builddir:-$(dirname "$0")/../..}/tests/conformance"
[ -x "$dir/test_attach" ] || dir="$(dirname "$0")"
tiles="platform=xehpc,tiles=2,subslices=2,eus=2,threads=4"
all_programs="test_attach test_events test_breakpoint test_runcontrol test_detach test_fault_slm test_tiles test_interrupt test_interrupt_signal test_concurrent"

# name|GTSIM_CONFIG|programs (empty: all)|CONF_TILE_ATTACH
config_line() {
    case "$1" in
    gen12lp) echo "gen12lp|platform=gen12lp||" ;;
    xehpg) echo "xehpg|platform=xehpg||" ;;
    xehpc) echo "xehpc|platform=xehpc||" ;;
    tiles2) echo "tiles2|$tiles||1" ;;
    notile) echo "notile|$tiles,tile_attach=0|test_attach test_tiles|0" ;;
    spread) echo "spread|platform=xehpc,interrupt_spread_ms=200|test_runcontrol|" ;;
    exec) echo "exec|platform=xehpc,exec=1,subslices=2,eus=2,threads=4||" ;;
    exectiles) echo "exectiles|$tiles,exec=1,pace=20|test_tiles|1" ;;
    real) echo "real|||" ;;
    *) echo "unknown configuration $1" >&2; exit 99 ;;
    esac
}

if [ -n "$CONF_REAL_DRIVER" ]; then
    configs="${CONF_CONFIGS:-real}"
    unset GTSIM_LIB ZE_ENABLE_ALT_DRIVERS GTSIM_CONFIG
else
    configs="${CONF_CONFIGS:-gen12lp xehpg xehpc tiles2 notile spread exec exectiles}"
    if [ -z "$GTSIM_LIB" ]; then
        echo "1..0 # SKIP GTSIM_LIB is not set (set CONF_REAL_DRIVER=1 for a real GPU)"
        exit 0
    fi
fi
modes="${CONF_MODES:-direct intercept}"
n=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for c in $configs; do
    line=$(config_line "$c") || exit 99
    cfg=$(echo "$line" | cut -d'|' -f2)
    progs=$(echo "$line" | cut -d'|' -f3)
    tile_attach=$(echo "$line" | cut -d'|' -f4)
    [ -n "$progs" ] || progs="$all_programs"
    [ -n "$CONF_PROGRAMS" ] && progs=$(for p in $progs; do
        case " $CONF_PROGRAMS " in *" $p "*) echo "$p" ;; esac
    done)
    for m in $modes; do
        for p in $progs; do
            tag="$c $m $p"
            start=$(date +%s)
            (
                [ -n "$cfg" ] && export GTSIM_CONFIG="$cfg"
                [ -n "$tile_attach" ] && export CONF_TILE_ATTACH="$tile_attach"
                if [ "$m" = intercept ]; then
                    export ZE_ENABLE_LOADER_INTERCEPT=1
                else
                    unset ZE_ENABLE_LOADER_INTERCEPT
                fi
                # The programs have their own watchdog; this is the last resort.
                exec timeout -s KILL 300 "$dir/$p"
            ) >"$tmp/out" 2>&1
            rc=$?
            awk -v n="$n" -v tag="$tag" -v rc="$rc" -v secs="$(($(date +%s) - start))" \
                -v state="$tmp/state" '
                /^(not )?ok / {
                    bad = ($0 ~ /^not ok/)
                    sub(/^(not )?ok [0-9]*/, "")
                    sub(/^ *- */, "")
                    n++; results++; fails += bad
                    printf "%s %d - [%s] %s\n", bad ? "not ok" : "ok", n, tag, $0
                    next
                }
                /^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; next }
                /^Bail out!/ { n++; fails++; bailed = 1; printf "not ok %d - [%s] %s\n", n, tag, $0; next }
                { print "# " $0 }
                END {
                    if (!bailed && plan != results) {
                        n++; fails++
                        printf "not ok %d - [%s] planned %d checks, ran %d (exit %d)\n", n, tag, plan, results, rc
                    } else if (rc != 0 && fails == 0) {
                        n++; fails++
                        printf "not ok %d - [%s] exit status %d\n", n, tag, rc
                    }
                    printf "# [%s] %d checks, %d failed, %d s\n", tag, results, fails, secs
                    print n, (fails ? 1 : 0) > state
                }' "$tmp/out"
            read -r n bad <"$tmp/state"
            [ "$bad" -eq 0 ] || fail=1
        done
    done
done
echo "1..$n"
exit $fail
