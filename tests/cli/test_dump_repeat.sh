#!/bin/sh
# SPDX-License-Identifier: MIT
# Dumps in a row (issue 16): ZESTUB_DUMP_ROUNDS (default 15 in make check;
# 200 by hand, recorded in tests/cli/README.md) runs of
# `zestub dump --on page-fault --json F -- examples/pagefault`, each a fresh
# program on gtsim. Every run must end with status 5 (faulted, dump written)
# and a JSON record naming the faulting oob thread at oob.cl:7, and no
# lost device (zestub let go of it after the dump: a detach, not a loss;
# every record said "lost_devices":[0] before 2026-11-29); afterwards no
# pagefault process is left and gtsim left no socket of a dumped program.
zestub="$top_builddir/zestub"
app="$top_builddir/examples/pagefault"
rounds=${ZESTUB_DUMP_ROUNDS:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/lib/tap.sh"

if [ -z "$GTSIM_LIB" ]; then
    echo "1..0 # SKIP GTSIM_LIB is not set"
    exit 0
fi
tap_plan 5
export ZE_ENABLE_ALT_DRIVERS="$GTSIM_LIB" GTSIM_CONFIG="platform=xehpc,subslices=2,eus=2,threads=4"

bad_status="" bad_record="" bad_lost="" pids=""
i=1
while [ "$i" -le "$rounds" ]; do
    "$zestub" dump --on page-fault --timeout 120 --json "$tmp/d-$i.json" -- "$app" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 5 ] || bad_status="$bad_status round $i: status $rc: $(tail -n 3 "$tmp/err" | tr '\n' ' ')
"
    pid=$(python3 - "$tmp/d-$i.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("unreadable: %s" % e)
    sys.exit(0)
threads = d.get("threads") or [t for dev in d.get("devices", []) for t in dev.get("threads", [])]
fault = [t for t in threads if t.get("reason") == "page-fault"]
where = [(t.get("kernel"), t.get("line")) for t in fault]
ok = fault and all(w == ("oob", 7) for w in where)
pid = d.get("pid")
ok = ok and isinstance(pid, int) and pid > 0
lost = d.get("lost_devices")
print(("ok %d" % pid if ok else "bad: %d faulting threads at %r" % (len(fault), where[:3]))
      + (" lost %r" % lost if lost is not None else ""))
PY
)
    case "$pid" in
    *\ lost\ *) bad_lost="$bad_lost round $i: lost_devices ${pid#* lost }
" ;;
    esac
    pid=${pid%% lost *}
    case "$pid" in
    ok\ *) pids="$pids ${pid#ok }" ;;
    *) bad_record="$bad_record round $i: $pid
" ;;
    esac
    i=$((i + 1))
done
[ -z "$bad_status" ] && ok "$rounds dumps in a row: each ends with status 5 (faulted, dump written)" ||
    notok "$rounds dumps in a row: each ends with status 5" "$bad_status"
[ -z "$bad_record" ] && ok "each record names the faulting oob threads at oob.cl:7" ||
    notok "each record names the faulting oob threads at oob.cl:7" "$bad_record"
[ -z "$bad_lost" ] && ok "no record names a lost device (zestub detached, nothing was lost)" ||
    notok "no record names a lost device" "$bad_lost"
left=""
for p in $pids; do
    [ -d "/proc/$p" ] && left="$left $p"
done
[ -z "$left" ] && ok "no dumped program is left running" || notok "programs left running:$left"
stale=""
for p in $pids; do
    for s in /tmp/gtsim-*/"$p".sock; do [ -e "$s" ] && stale="$stale $s"; done
done
[ -z "$stale" ] && ok "gtsim left no socket of a dumped program" || notok "stale sockets:$stale"

tap_done
