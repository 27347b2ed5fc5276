#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""archcheck: zestub's architecture rules, checked on the source tree.

Usage: archcheck.py [--srcdir DIR] [--tap] [--known FILE] [--graph]

Reads the product tree (the folders in FOLDERS; tests/, bench/, examples/
are not product code) and checks five rules. Prints a report naming
file:line for every violation and exits 1 if there is one (0 otherwise, 2
on a usage error). --tap prints the same findings as a TAP stream instead
(plan first; one test point per violation, one "ok" point per rule without
any). --graph also lists every edge of the import graph.

The import graph
----------------
Nodes are the product's .c and .h files. Edges come from two sources:

- `#include "path"` lines: file -> header (the path is taken from the
  source tree root, else from the including file's folder; system headers
  `<...>` and headers outside the product tree are ignored).
- uses of functions between files: when a function is defined non-static
  in file A and named in file B (called, or taken as a function pointer,
  which is a dependency all the same), B -> A, labelled with the names.
  Definitions are found the way clang-format lays them out (this tree's
  .clang-format): a `{` at column 0 opens a function body whose signature is
  the lines just above it; an empty function may be one line ending in
  `{}`. Comments and string literals are blanked first; `x.name`/`x->name`
  are members, not uses; `name(` outside a function body is a prototype,
  not a use (C allows no calls there); a name a file defines itself
  (static or not) is that file's own. In a header only the bodies of its (static inline)
  functions count as uses: its prototypes declare, they do not depend.

A header is a node of its own: `b.c -> a.h` is an include edge, and a
header's prototypes add no edge back to the .c files that implement them,
so a circle needs real uses (or headers including each other) to close.
For the circle check only, the edges between a header and the .c files
that implement it (that define a function it declares) are left out: they
are one module, and an inline function of a.h calling into a.c, which
includes a.h, is not a circle.

Rule 1: no circles
------------------
No strongly connected set of files: each circle is reported with its files
and, for each edge inside it, the names (or the include) that tie it.

Rule 2: no upward edges
-----------------------
Each folder is a layer and may depend only on the folders listed in ALLOWED
(and on itself); any other edge is a violation. The order is

    cli -> {gdbstub, target} -> sessions -> {regsets, symbols, xpti} -> zetdebug -> isa

with these decisions:

- target implements gdbstub's seam (target.h, packet.h, log.h, monitor.h,
  ...): target may use anything in gdbstub; gdbstub never reaches target.
- gdbstub is the protocol only: besides itself it may use regsets (the
  register catalogue it describes to GDB), nothing of sessions, symbols,
  xpti or zetdebug. For includes this holds through headers: a gdbstub file
  must not reach a forbidden header through the headers it includes (every
  include edge's transitive closure is checked, for every folder), so
  regsets/regs.h including zetdebug/zd.h makes every gdbstub file that
  includes regs.h a violation.
- regsets, symbols and xpti are peers: each may use zetdebug, not each
  other. xpti's subscriber side is below sessions with the rest of xpti.
- isa is the Intel GT ISA as pure functions (cr0, instruction bits, stop
  reasons, the register sets an attach needs): every zestub layer but
  gdbstub may use it (the protocol knows no ISA), and it uses nothing.
- gtsim is the simulated driver, reached only through the Level Zero
  loader: nothing of zestub may use gtsim, and gtsim uses nothing of zestub
  (it includes only its own headers; the XPTI table is not its business).
- launch (starting a program held for the attach, and the library it
  preloads) uses nothing of zestub, only libc: cli hands its programs to
  the target. merge (zestub merge, its JSON reader) uses only report's
  JSON string writer and terminal-safe text. Only cli uses them.

Calls are checked edge by edge (a direct use only); includes through their
closure as said.

Rule 3: sizes
-------------
No product .c/.h file over MAX_FILE_LINES lines (as `wc -l` counts), and no
function over MAX_FUNC_LINES lines, counted from the line of its `{` at
column 0 to the line of its `}` at column 0, both included. Exemption: a
state machine that reads best whole may stay longer when the line right
before the function, or its leading comment, contains the words
"state machine" (and should say why it stays whole).

Rule 4: questions asked of their owner
--------------------------------------
Some answers have one owner, and every layer above asks it (OWNED_CALLS):
the XPTI table's records (`xtab_*`) are read only by xpti/ and sessions/
(sessions/sess_xpti.h asks the questions: running tasks, live allocations,
the site of a kernel); where a pc is (`sym_lookup`) is computed only by
symbols/ and sessions/ (`sess_where_pc`). A use of a matching function
name from any other folder is a violation.

Rule 5: cli/ is the program
---------------------------
No file outside cli/ includes a cli/ header: the product by rule 2, and
tests/, bench/ and examples/ by this rule (they link the layer's library).

Known violations
----------------
--known FILE names violations that are accepted for now, one key a line
(the key is printed with each violation; `#` starts a comment). They are
reported but do not fail: in TAP as `not ok ... # TODO` (an expected
failure). A known key that no longer occurs is reported as `ok ... # TODO`,
which the TAP driver counts as an unexpected pass: the list must shrink when
a violation is fixed.
"""

import argparse
import os
import re
import sys

FOLDERS = ["cli", "gdbstub", "target", "sessions", "regsets", "symbols", "xpti",
           "zetdebug", "isa", "gtsim", "launch", "merge", "report"]

ZESTUB_BELOW_SESSIONS = {"regsets", "symbols", "xpti", "zetdebug", "isa"}
ALLOWED = {
    "cli": {"gdbstub", "target", "report", "sessions", "launch", "merge"} | ZESTUB_BELOW_SESSIONS,
    "launch": set(),
    "merge": {"report"},
    "target": {"gdbstub", "report", "sessions"} | ZESTUB_BELOW_SESSIONS,
    # report: what zestub writes (dumps, cores); xpti for its types only
    # (rule 4 keeps xtab_* calls in xpti/ and sessions/).
    "report": {"sessions"} | ZESTUB_BELOW_SESSIONS,
    "gdbstub": {"regsets"},
    "sessions": set(ZESTUB_BELOW_SESSIONS),
    "regsets": {"zetdebug", "isa"},
    "symbols": {"zetdebug", "isa"},
    "xpti": {"zetdebug", "isa"},
    "zetdebug": {"isa"},
    "isa": set(),
    "gtsim": set(),
}

MAX_FILE_LINES = 800
MAX_FUNC_LINES = 80
EXEMPT_MARKER = "state machine"

IDENT = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# Words that look like calls in a signature but are not the function's name.
NOT_A_NAME = {"_Atomic", "__attribute__", "_Alignas", "alignas", "sizeof", "typeof",
              "__typeof__"}


def blank_comments_and_strings(text):
    """The text with comments and string/char literals blanked (newlines
    kept, so line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Function:
    def __init__(self, name, path, sig_line, open_line, close_line, static):
        self.name = name
        self.path = path
        self.sig_line = sig_line      # 1-based line of the signature's start
        self.open_line = open_line    # 1-based line of `{`
        self.close_line = close_line  # 1-based line of `}`
        self.static = static

    @property
    def length(self):
        return self.close_line - self.open_line + 1


class SourceFile:
    def __init__(self, root, path):
        self.path = path  # relative to root, with '/'
        self.folder = path.split("/", 1)[0]
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            self.text = f.read()
        self.raw = self.text.split("\n")
        self.nlines = self.text.count("\n")  # as wc -l counts
        self.code = blank_comments_and_strings(self.text).split("\n")
        self.includes = []   # (line, path as written)
        self.functions = []  # Function
        self._parse()

    def is_header(self):
        return self.path.endswith(".h")

    def _parse(self):
        for no, line in enumerate(self.raw, 1):
            m = INCLUDE.match(line)
            # The blanked copy tells an include from one inside a comment.
            if m and self.code[no - 1].lstrip().startswith("#"):
                self.includes.append((no, m.group(1)))
        code = self.code
        i = 0
        while i < len(code):
            line = code[i]
            if line.startswith("{"):
                fn = self._function_at(i)
                if fn:
                    self.functions.append(fn)
                    i = fn.close_line
                    continue
            elif re.match(r"^[A-Za-z_].*\)\s*\{\s*\}\s*$", line) and "=" not in line:
                name, static = self._name_of(line)
                if name:
                    self.functions.append(Function(name, self.path, i + 1, i + 1, i + 1, static))
            i += 1

    @staticmethod
    def _name_of(sig):
        if "=" in sig.split("(", 1)[0]:
            return None, False
        for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", sig):
            if m.group(1) not in NOT_A_NAME:
                return m.group(1), re.search(r"\bstatic\b", sig) is not None
        return None, False

    def _function_at(self, i):
        code = self.code
        j = i - 1
        while j >= 0:
            s = code[j].rstrip()
            if not s.strip() or s.startswith("#") or s.endswith(";") or s.endswith("}"):
                break
            j -= 1
        sig_start = j + 1
        if sig_start >= i:
            return None
        name, static = self._name_of(" ".join(code[sig_start:i]))
        if not name:
            return None
        k = i + 1
        while k < len(code) and not code[k].startswith("}"):
            k += 1
        return Function(name, self.path, sig_start + 1, i + 1, k + 1, static)

    def leading_text(self, fn):
        """The line right before the function and its leading comment."""
        j = fn.sig_line - 2
        lines = []
        if j >= 0:
            lines.append(self.raw[j])
            if self.raw[j].rstrip().endswith("*/"):
                while j >= 0 and "/*" not in self.raw[j]:
                    j -= 1
                    if j >= 0:
                        lines.append(self.raw[j])
        return "\n".join(lines)

    def declared(self):
        """Names a header declares: `name(` outside its function bodies."""
        spans = [(f.open_line, f.close_line) for f in self.functions]
        names = set()
        for no, line in enumerate(self.code, 1):
            if any(a <= no <= b for a, b in spans) or line.lstrip().startswith("#"):
                continue
            for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", line):
                names.add(m.group(1))
        return names

    def uses(self):
        """(line, name) of every identifier that is not a member access,
        outside prototypes in headers: in a header only function bodies."""
        spans = [(f.open_line, f.close_line) for f in self.functions]
        for no, line in enumerate(self.code, 1):
            in_body = any(a <= no <= b for a, b in spans)
            if self.is_header() and not in_body:
                continue
            if line.lstrip().startswith("#") and "include" in line:
                continue
            for m in IDENT.finditer(line):
                before = line[:m.start()].rstrip()
                if before.endswith(".") or before.endswith("->"):
                    continue
                # Outside bodies C allows no calls (initializers are
                # constant): `name(` there is a prototype, not a use.
                if not in_body and line[m.end():].lstrip().startswith("("):
                    continue
                yield no, m.group(0)


class Edge:
    def __init__(self, src, dst, kind):
        self.src, self.dst, self.kind = src, dst, kind
        self.names = {}  # name -> first line in src
        self.line = None

    def add(self, line, name=None):
        if self.line is None or line < self.line:
            self.line = line
        if name and name not in self.names:
            self.names[name] = line

    def label(self):
        if self.kind == "include":
            return "#include"
        return ", ".join(sorted(self.names))


class Violation:
    def __init__(self, rule, key, where, text):
        self.rule, self.key, self.where, self.text = rule, key, where, text


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = {}
        for folder in FOLDERS:
            top = os.path.join(root, folder)
            for dirpath, dirnames, filenames in os.walk(top):
                dirnames.sort()
                for fn in sorted(filenames):
                    if fn.endswith((".c", ".h")):
                        rel = os.path.relpath(os.path.join(dirpath, fn), root)
                        rel = rel.replace(os.sep, "/")
                        self.files[rel] = SourceFile(root, rel)
        self.edges = {}  # (src, dst) -> Edge
        self._impl = {}  # header path -> the .c files implementing it
        self._build()

    def _edge(self, src, dst, kind):
        e = self.edges.get((src, dst))
        if e is None:
            e = self.edges[(src, dst)] = Edge(src, dst, kind)
        elif kind == "include":
            e.kind = "include"  # an include edge that is also a use
        return e

    def resolve(self, f, inc):
        for cand in (inc, os.path.normpath(os.path.join(os.path.dirname(f.path), inc))):
            cand = cand.replace(os.sep, "/")
            if cand in self.files:
                return cand
        return None

    def _build(self):
        definers = {}
        for f in self.files.values():
            for fn in f.functions:
                if not fn.static and not f.is_header():
                    definers.setdefault(fn.name, []).append(f.path)
        self.definers = definers
        for f in self.files.values():
            for line, inc in f.includes:
                dst = self.resolve(f, inc)
                if dst and dst != f.path:
                    self._edge(f.path, dst, "include").add(line)
            own = {fn.name for fn in f.functions}
            for line, name in f.uses():
                if name in own or name not in definers:
                    continue
                for dst in definers[name]:
                    if dst != f.path:
                        self._edge(f.path, dst, "use").add(line, name)

    def implementers(self, header):
        impl = self._impl.get(header.path)
        if impl is None:
            impl = set()
            for name in header.declared():
                impl.update(self.definers.get(name, []))
            self._impl[header.path] = impl
        return impl

    def out_edges(self, src):
        return [e for (s, _), e in self.edges.items() if s == src]


def tarjan(nodes, succ):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        # Iterative, so deep graphs do not hit Python's recursion limit.
        work = [(v, iter(succ(v)))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def internal(tree, src, dst):
    """Is src -> dst an edge between a header and a .c file implementing it
    (defining a function the header declares)? Those are one module: the
    .c includes its header, and the header's inline functions may call into
    the .c; neither makes a circle."""
    a, b = tree.files[src], tree.files[dst]
    if a.is_header() == b.is_header():
        return False
    h, c = (a, b) if a.is_header() else (b, a)
    return c.path in tree.implementers(h)


def check_circles(tree):
    succ_map = {}
    for (s, d) in tree.edges:
        if not internal(tree, s, d):
            succ_map.setdefault(s, set()).add(d)
    comps = tarjan(sorted(tree.files), lambda v: sorted(succ_map.get(v, [])))
    out = []
    for comp in comps:
        if len(comp) < 2:
            continue
        members = set(comp)
        ties = [e for (s, d), e in sorted(tree.edges.items())
                if s in members and d in members and not internal(tree, s, d)]
        lines = ["  %s:%d -> %s (%s)" % (e.src, e.line, e.dst, e.label()) for e in ties]
        first = ties[0]
        out.append(Violation(1, "circle " + " ".join(comp), "%s:%d" % (first.src, first.line),
                             "circle among %d files: %s\n%s" % (len(comp), ", ".join(comp),
                                                                "\n".join(lines))))
    return out


def allowed(src_folder, dst_folder):
    return src_folder == dst_folder or dst_folder in ALLOWED.get(src_folder, set())


def include_path(tree, start, src_folder):
    """A chain of includes from header `start` to the first header whose
    folder src_folder may not use, or None."""
    seen, queue = {start: None}, [start]
    while queue:
        h = queue.pop(0)
        if not allowed(src_folder, tree.files[h].folder):
            chain = [h]
            while seen[chain[-1]] is not None:
                chain.append(seen[chain[-1]])
            return list(reversed(chain))
        for e in tree.out_edges(h):
            if e.kind == "include" and e.dst not in seen:
                seen[e.dst] = h
                queue.append(e.dst)
    return None


def check_layers(tree):
    out = []
    for (s, d), e in sorted(tree.edges.items()):
        sf = tree.files[s].folder
        if e.kind == "include":
            chain = include_path(tree, d, sf)
            if chain:
                bad = chain[-1]
                via = "" if len(chain) == 1 else " (via %s)" % " -> ".join(chain[:-1])
                out.append(Violation(
                    2, "include %s -> %s" % (s, bad), "%s:%d" % (s, e.line),
                    "%s (%s/) reaches %s (%s/)%s: %s/ may use only %s" % (
                        s, sf, bad, tree.files[bad].folder, via, sf, layer_list(sf))))
        if e.names and not allowed(sf, tree.files[d].folder):
            out.append(Violation(
                2, "use %s -> %s" % (s, d), "%s:%d" % (s, e.line),
                "%s (%s/) uses %s of %s (%s/): %s/ may use only %s" % (
                    s, sf, e.label(), d, tree.files[d].folder, sf, layer_list(sf))))
    return out


def layer_list(folder):
    names = sorted(ALLOWED.get(folder, set()))
    return ", ".join(n + "/" for n in names) if names else "itself"


def check_sizes(tree):
    out = []
    for path, f in sorted(tree.files.items()):
        if f.nlines > MAX_FILE_LINES:
            out.append(Violation(3, "file-size " + path, "%s:%d" % (path, f.nlines),
                                 "%s has %d lines (at most %d)" % (path, f.nlines,
                                                                   MAX_FILE_LINES)))
        for fn in f.functions:
            if fn.length <= MAX_FUNC_LINES:
                continue
            if EXEMPT_MARKER in f.leading_text(fn).lower():
                continue
            out.append(Violation(3, "function-size %s %s" % (path, fn.name),
                                 "%s:%d" % (path, fn.open_line),
                                 "function %s has %d lines (at most %d, or a '%s' comment)"
                                 % (fn.name, fn.length, MAX_FUNC_LINES, EXEMPT_MARKER)))
    return out


# Rule 4: questions asked of the layer that owns the answer. A function
# whose name matches may be called only from the folders listed: the others
# ask the owner's question instead of computing the answer again.
OWNED_CALLS = [
    (re.compile(r"^xtab_\w+$"), {"xpti", "sessions"},
     "the XPTI table is read through sessions/ (sessions/sess_xpti.h)"),
    (re.compile(r"^(sym_lookup|sess_module_for_pc)$"), {"symbols", "sessions"},
     "where a pc is, is asked of sessions/ (sess_where_pc in sessions/sess_where.h)"),
]


def check_owned_calls(tree):
    out = []
    for path, f in sorted(tree.files.items()):
        seen = set()
        for line, name in f.uses():
            if name in seen or name not in tree.definers:
                continue
            # `struct xtab_stats` names a type that shares the function's name.
            if re.search(r"\b(struct|union|enum)\s+%s\b" % name, f.code[line - 1]):
                continue
            for pattern, folders, why in OWNED_CALLS:
                if pattern.match(name) and f.folder not in folders:
                    seen.add(name)
                    out.append(Violation(4, "call %s %s" % (path, name), "%s:%d" % (path, line),
                                         "%s calls %s: %s" % (path, name, why)))
    return out


# Rule 5: cli/ is the program. Nothing outside it includes a cli/ header:
# not the product (rule 2 says so too), and not the tests, benchmarks or
# examples, which link the libraries of the layers they test.
OUTSIDE_PRODUCT = ["tests", "bench", "examples"]
CLI_INCLUDE = re.compile(r'^\s*#\s*include\s*"cli/([^"]+)"')


def check_cli_headers(root):
    out = []
    for top in OUTSIDE_PRODUCT:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith((".c", ".h", ".cc", ".cpp")):
                    continue
                full = os.path.join(dirpath, fn)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                with open(full, encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = CLI_INCLUDE.match(line)
                        if m:
                            out.append(Violation(
                                5, "cli-include %s -> cli/%s" % (rel, m.group(1)),
                                "%s:%d" % (rel, no),
                                "%s includes cli/%s: cli/ is the program; link the library "
                                "of the layer instead" % (rel, m.group(1))))
    return out


RULES = {1: "no circles among files", 2: "no upward edges between layers",
         3: "files and functions within their size limits",
         4: "questions asked of the layer that owns them",
         5: "nothing but cli/ includes cli/ headers"}


def read_known(path):
    keys = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                keys.append(line)
    return keys


def report_text(violations, known, stale, out):
    for rule in sorted(RULES):
        vs = [v for v in violations if v.rule == rule]
        bad = [v for v in vs if v.key not in known]
        print("rule %d (%s): %s" % (rule, RULES[rule],
                                     "ok" if not bad else "%d violation(s)" % len(bad)), file=out)
        for v in vs:
            tag = " [known]" if v.key in known else ""
            print("  %s: %s%s\n    key: %s" % (v.where, v.text.replace("\n", "\n    "), tag,
                                                v.key), file=out)
    for k in stale:
        print("known violation no longer found (remove it from the list): %s" % k, file=out)


def report_tap(violations, known, stale, out):
    points = []  # (status, description, TODO reason, diagnostic lines)
    for rule in sorted(RULES):
        vs = [v for v in violations if v.rule == rule]
        if not [v for v in vs if v.key not in known]:
            points.append(("ok", "rule %d: %s" % (rule, RULES[rule]), None, []))
        for v in vs:
            first, _, rest = v.text.partition("\n")
            points.append(("not ok", "rule %d: %s: %s" % (rule, v.where, first),
                           "known violation" if v.key in known else None,
                           (rest.split("\n") if rest else []) + ["key: " + v.key]))
    for k in stale:
        points.append(("ok", "known violation fixed, remove it from the list: " + k,
                       "known violation", []))
    print("1..%d" % len(points), file=out)
    for n, (status, desc, todo, diag) in enumerate(points, 1):
        desc = desc.replace("#", "\\#")
        print("%s %d - %s%s" % (status, n, desc, " # TODO " + todo if todo else ""), file=out)
        for line in diag:
            print("#   " + line.strip(), file=out)


def main(argv):
    ap = argparse.ArgumentParser(description="Check zestub's architecture rules.")
    ap.add_argument("--srcdir", default=".", help="source tree root (default: .)")
    ap.add_argument("--tap", action="store_true", help="print TAP instead of a report")
    ap.add_argument("--known", help="file of accepted violation keys")
    ap.add_argument("--graph", action="store_true", help="also list the import graph")
    args = ap.parse_args(argv)
    if not all(os.path.isdir(os.path.join(args.srcdir, d)) for d in ("cli", "xpti")):
        print("archcheck: %s is not zestub's source tree" % args.srcdir, file=sys.stderr)
        return 2
    tree = Tree(args.srcdir)
    violations = (check_circles(tree) + check_layers(tree) + check_sizes(tree) +
                  check_owned_calls(tree) + check_cli_headers(args.srcdir))
    known = set(read_known(args.known)) if args.known else set()
    found = {v.key for v in violations}
    stale = sorted(k for k in known if k not in found)
    if args.graph:
        for (s, d), e in sorted(tree.edges.items()):
            print("%s -> %s: %s" % (s, d, e.label()))
    if args.tap:
        report_tap(violations, known, stale, sys.stdout)
    else:
        report_text(violations, known, stale, sys.stdout)
    return 1 if any(v.key not in known for v in violations) or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
