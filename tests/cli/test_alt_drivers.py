#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An empty entry in ZE_ENABLE_ALT_DRIVERS (an empty value, a comma at its
start or end, two commas in a row) makes the Level Zero loader dlopen ""
and recurse until the stack overflows (doc: level-zero-facts.md, section
1). Every zestub command that opens Level Zero must say so and exit 1, not
die with SIGSEGV: `zestub devices`, `zestub doctor` (the tool that checks
the set-up), `zestub dump --attach` and the server's `--attach`, however
long the driver paths are."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

zestub = os.path.join(h.top, "zestub")
gtsim = os.environ.get("GTSIM_LIB") or os.path.join(h.top, ".libs", "libze_gtsim.so")
# A long path (distcheck builds deep in the tree) must not cut the reason
# off the message: CI's distcheck once lost "loader" that way.
LONG = "/nonexistent/" + "d" * 240 + "/libze_gtsim.so"
VALUES = ["", gtsim + ",", "," + gtsim, gtsim + ",," + gtsim, LONG + ",," + LONG]
COMMANDS = [
    ["devices"],
    ["doctor"],
    ["dump", "--attach", str(os.getpid()), "--on", "now", "--timeout", "2"],
    ["--once", "127.0.0.1:0", "--attach", str(os.getpid())],
]
t = h.Tap(len(VALUES) * len(COMMANDS))

for value in VALUES:
    env = dict(os.environ, ZE_ENABLE_ALT_DRIVERS=value)
    for cmd in COMMANDS:
        what = "ZE_ENABLE_ALT_DRIVERS=%r zestub %s" % (value.replace(gtsim, "GTSIM").replace(LONG, "LONG"), cmd[0])
        try:
            p = subprocess.run([zestub] + cmd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True, timeout=30)
            out, rc = p.stdout, p.returncode
        except subprocess.TimeoutExpired:
            out, rc = "(no answer in 30 s)", None
        said = "ZE_ENABLE_ALT_DRIVERS" in out and "crashes the Level Zero loader" in out
        t.ok(rc == 1 and said, "%s: exit 1 and says why (exit %s)" % (what, rc), out)
sys.exit(t.done())
