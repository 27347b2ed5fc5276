#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The VS Code launch.json of doc/user-guide.md: it parses as JSON, each
configuration is a cdt-gdb-adapter `gdbtarget` attach without `program`,
and the GDB commands the adapter would run for it (preConnectCommands,
then the target's connectCommands or `target TYPE HOST:PORT`) connect
stock GDB to zestub serving vadd on gtsim: the threads are listed and
detach leaves the application to finish. The adapter itself is not run
here (skipped without gdb)."""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.gdb_or_skip()
env = h.small_device(20)
with open(os.path.join(h.srcdir, "doc", "user-guide.md")) as f:
    guide = f.read()
blocks = re.findall(r"```json\n(.*?)```", guide, re.S)
try:
    launch = json.loads(blocks[0]) if blocks else {}
except ValueError as e:
    launch = {"error": str(e)}
configs = launch.get("configurations", [])
# The plan from the guide itself: 1, then 3 per configuration.
t = h.Tap(1 + 3 * len(configs))
t.ok(len(configs) >= 2, "the guide's launch.json parses and has its configurations", launch)
for cfg in configs:
    name = cfg.get("name", "?")
    tgt = cfg.get("target", {})
    t.ok(cfg.get("type") == "gdbtarget" and cfg.get("request") == "attach" and
         "program" not in cfg and any("remotetimeout" in c
                                      for c in cfg.get("preConnectCommands", [])),
         "%s: gdbtarget attach, no program, remotetimeout before connecting" % name, cfg)
    with h.guarded(t, name):
        app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
        extended = any("extended-remote" in c for c in tgt.get("connectCommands", []))
        srv = h.Zestub(env, "--multi") if extended else h.Zestub(env, "--attach", str(app.pid))
        cmds = list(cfg.get("preConnectCommands", []))
        if "connectCommands" in tgt:
            cmds += tgt["connectCommands"]
        else:
            cmds.append("target %s %s:%s" % (tgt.get("type", "remote"), tgt.get("host"),
                                              tgt.get("port")))
        cmds = [c.replace("2345", str(srv.port)).replace("${input:pid}", str(app.pid))
                for c in cmds]
        rc, out = h.gdb_batch(gdb, cmds + ["info threads", "detach"])
        t.ok(rc == 0 and re.search(r"^\*?\s+1\s+Thread \d+\.1\b", out, re.M) and
             "rror" not in out, "%s: GDB connects and lists the threads" % name, out[-1500:])
        t.eq(h.wait_exit(app), 0, "%s: the application finishes after detach" % name)
sys.exit(t.done())
