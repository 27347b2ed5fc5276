#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The architecture rules (build-aux/archcheck.py) on the source tree, and
the checker itself on a small tree written here with one violation of each
kind (five rules), so that a checker that sees nothing cannot pass.

The source tree's results are the checker's own TAP points, renumbered.
The tree is checked with no list of known violations: every one fails."""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("top_srcdir") or os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(TOP, "build-aux", "archcheck.py")


def run(*args):
    p = subprocess.run([sys.executable, CHECKER] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def function(name, body_lines, static=False, comment=None):
    head = ("/* %s */\n" % comment) if comment else ""
    body = "".join("    x = %d;\n" % i for i in range(body_lines))
    return "%s%sint %s(void)\n{\n    int x = 0;\n%s    return x;\n}\n" % (
        head, "static " if static else "", name, body)


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def make_fixture(root):
    """One violation of each kind, and two look-alikes that are fine."""
    write(root, "cli/main.c", "int main(void)\n{\n    return 0;\n}\n")
    # A circle: two sessions files calling each other.
    write(root, "sessions/a.c", "int sess_b(void);\n\nint sess_a(void)\n{\n"
          "    return sess_b();\n}\n")
    write(root, "sessions/b.c", "int sess_a(void);\n\nint sess_b(void)\n{\n"
          "    return 0 ? sess_a() : 1;\n}\n")
    # An upward include, reached by gdbstub through a regsets header.
    write(root, "sessions/sess.h", "int sess_a(void);\n")
    write(root, "zetdebug/zd.h", '#include "sessions/sess.h"\n')
    write(root, "regsets/r.h", '#include "zetdebug/zd.h"\n\nint r_impl(void);\n\n'
          "static inline int r_twice(void)\n{\n    return 2 * r_impl();\n}\n")
    # Fine: a header's inline function calling into its own .c.
    write(root, "regsets/r.c", '#include "regsets/r.h"\n\nint r_impl(void)\n{\n'
          "    return r_twice() - 1;\n}\n")
    write(root, "gdbstub/g.c", '/* a comment */\n#include "regsets/r.h"\n')
    # An upward call.
    write(root, "zetdebug/zd.c", "int sess_a(void);\n\nint zd_up(void)\n{\n"
          "    return sess_a();\n}\n")
    # A long function, and one exempt as a state machine.
    write(root, "symbols/long.c", function("too_long", 85) + "\n" +
          function("parser", 85, static=True, comment="A state machine: one switch reads best."))
    # A file over 800 lines.
    write(root, "xpti/big.c", "\n".join("int v%d;" % i for i in range(801)) + "\n")
    # gtsim reaching zestub.
    write(root, "gtsim/x.c", '#include "xpti/big.h"\n')
    write(root, "xpti/big.h", "extern int v0;\n")
    # A question asked around its owner: cli/ reading the XPTI table
    # itself (a type of the same name is not a call).
    write(root, "xpti/xt.c", "int xtab_count(void)\n{\n    return 0;\n}\n")
    write(root, "cli/ask.c", "int xtab_count(void);\n\nint ask(void)\n{\n"
          "    struct xtab_count *none = 0;\n    return none ? 0 : xtab_count();\n}\n")
    # A test including a cli/ header.
    write(root, "tests/t.c", '#include "cli/main.h"\n')


# (key, where, what) the fixture must produce
EXPECTED = [
    ("circle sessions/a.c sessions/b.c", "sessions/a.c:5", "circle between sessions/a.c and b.c"),
    ("include zetdebug/zd.h -> sessions/sess.h", "zetdebug/zd.h:1",
     "zetdebug/ including sessions/"),
    ("include gdbstub/g.c -> zetdebug/zd.h", "gdbstub/g.c:2",
     "gdbstub/ reaching zetdebug/ through regsets/r.h"),
    ("include regsets/r.h -> sessions/sess.h", "regsets/r.h:1",
     "regsets/ reaching sessions/ through zetdebug/zd.h"),
    ("include regsets/r.c -> sessions/sess.h", "regsets/r.c:1",
     "the same through two headers"),
    ("use zetdebug/zd.c -> sessions/a.c", "zetdebug/zd.c:5", "zetdebug/ calling up into sessions/"),
    ("include gtsim/x.c -> xpti/big.h", "gtsim/x.c:1", "gtsim/ including xpti/"),
    ("function-size symbols/long.c too_long", "symbols/long.c:2", "an 89-line function"),
    ("file-size xpti/big.c", "xpti/big.c:801", "an 801-line file"),
    ("call cli/ask.c xtab_count", "cli/ask.c:6", "cli/ calling xtab_* instead of asking sessions/"),
    ("cli-include tests/t.c -> cli/main.h", "tests/t.c:1", "a test including a cli/ header"),
]


def main():
    rc, tree_tap = run("--srcdir", TOP, "--tap")
    tree_points = [l for l in tree_tap.splitlines() if l.startswith(("ok ", "not ok "))]
    if not tree_points:
        print("1..1\nnot ok 1 - archcheck produced no TAP on the source tree")
        for line in tree_tap.splitlines():
            print("# " + line)
        return
    fixture_points = len(EXPECTED) + 7
    print("1..%d" % (len(tree_points) + fixture_points))
    n = 0
    for line in tree_tap.splitlines():
        if line.startswith(("ok ", "not ok ")):
            n += 1
            status, _, rest = line.partition(" - ")
            status = status.rsplit(" ", 1)[0]
            print("%s %d - source tree: %s" % (status, n, rest))
        elif line.startswith("#"):
            print(line)

    def check(ok, what, detail=""):
        nonlocal n
        n += 1
        print("%s %d - fixture: %s" % ("ok" if ok else "not ok", n, what))
        if not ok and detail:
            for line in detail.splitlines():
                print("#   " + line)

    with tempfile.TemporaryDirectory() as root:
        make_fixture(root)
        rc, report = run("--srcdir", root)
        check(rc == 1, "the checker fails on the fixture (exit %d)" % rc, report)
        for key, where, what in EXPECTED:
            found = ("key: " + key) in report and (where + ":") in report
            check(found, "%s is reported at %s" % (what, where), report)
        check("parser" not in report, "a long function marked 'state machine' is exempt", report)
        check("circle regsets/r.c regsets/r.h" not in report,
              "a header's inline function calling into its own .c is no circle", report)
        check(report.count("key: ") == len(EXPECTED), "nothing else is reported (%d)"
              % report.count("key: "), report)
        known = os.path.join(root, "known.txt")
        with open(known, "w") as f:
            f.write("# all of them\n" + "\n".join(k for k, _, _ in EXPECTED) + "\n")
        rc, out = run("--srcdir", root, "--known", known)
        check(rc == 0, "with every violation known, the checker passes", out)
        with open(known, "a") as f:
            f.write("file-size xpti/gone.c\n")
        rc, out = run("--srcdir", root, "--known", known, "--tap")
        stale = re.search(r"^ok \d+ - known violation fixed, remove it from the list: "
                          r"file-size xpti/gone.c # TODO known violation$", out, re.M)
        check(rc == 1 and out.startswith("1..") and stale is not None,
              "a known violation that is gone fails, as an unexpected pass in TAP", out)
        rc, out = run("--srcdir", os.path.join(root, "nowhere"))
        check(rc == 2, "a directory that is not the source tree is a usage error", out)


if __name__ == "__main__":
    main()
