#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libzestub_xpti.so must load under any conforming XPTI framework, not only
ours (issue 34): Intel's framework dlopen()s subscribers with lazy binding,
so a subscriber that imports a function the framework lacks loads fine and
kills the application at its first call (symbol lookup error). This reads
the subscriber's dynamic symbol table and dynamic section and fails if it
imports any xpti symbol outside the public ABI, or names a framework in
DT_NEEDED (a framework is already loaded in the process; a DT_NEEDED could
load a second one)."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tap import Tap  # noqa: E402

# The public XPTI ABI: the 50 functions Intel's libxptifw.so exports
# (intel/llvm xpti/include/xpti/xpti_trace_framework.h, G3): the 48 the
# proxy (xpti/src/xpti_proxy.cpp) resolves in a dispatcher, plus xptiReset
# and xptiGetEffectiveStreamDetailLevel. Listed in doc/xpti-facts.md
# (shared folder), sections 1 and 9.
PUBLIC = {
    "xptiFrameworkInitialize", "xptiFrameworkFinalize", "xptiInitialize", "xptiFinalize",
    "xptiGetUniversalId", "xptiSetUniversalId", "xptiGetUniqueId", "xptiRegisterString",
    "xptiLookupString", "xptiRegisterObject", "xptiLookupObject", "xptiRegisterPayload",
    "xptiRegisterStream", "xptiUnregisterStream", "xptiRegisterUserDefinedTracePoint",
    "xptiRegisterUserDefinedEventType", "xptiMakeEvent", "xptiFindEvent", "xptiQueryPayload",
    "xptiQueryPayloadByUID", "xptiRegisterCallback", "xptiUnregisterCallback",
    "xptiNotifySubscribers", "xptiAddMetadata", "xptiQueryMetadata", "xptiTraceEnabled",
    "xptiCheckTraceEnabled", "xptiForceSetTraceEnabled", "xptiStashTuple",
    "xptiGetStashedTuple", "xptiUnstashTuple", "xptiEnableTracepointScopeNotification",
    "xptiCheckTracepointScopeNotification", "xptiLookupPayload", "xptiLookupEvent",
    "xptiCreateTracepoint", "xptiDeleteTracepoint", "xptiGetTracepointScopeData",
    "xptiSetTracepointScopeData", "xptiUnsetTracepointScopeData", "xptiRegisterTracepointScope",
    "xptiGetDefaultStreamID", "xptiSetDefaultStreamID", "xptiGetDefaultEventType",
    "xptiSetDefaultEventType", "xptiGetDefaultTraceType", "xptiSetDefaultTraceType",
    "xptiReleaseEvent", "xptiReset", "xptiGetEffectiveStreamDetailLevel",
}
# What a subscriber itself must define (the framework looks them up).
ENTRY_POINTS = {"xptiTraceInit", "xptiTraceFinish"}

top = os.environ.get("top_builddir", ".")
sub = os.environ.get("ZESTUB_XPTI_SUBSCRIBER", os.path.join(top, ".libs", "libzestub_xpti.so"))
fw = os.path.join(top, ".libs", "libxptifw.so")
# The stand-ins for a SYCL runtime must run on any framework too.
EXAMPLES = ("sycl_like", "sycl_hang")
t = Tap(7 + len(EXAMPLES))


def symbols(path, undefined):
    """Names in path's dynamic symbol table: the undefined (imported) ones,
    or the defined (exported) ones."""
    flag = "--undefined-only" if undefined else "--defined-only"
    out = subprocess.run(["nm", "-D", flag, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=60).stdout.decode(errors="replace")
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            names.add(fields[-1].split("@")[0])
    return names


def needed(path):
    out = subprocess.run(["readelf", "-d", "-W", path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=60).stdout.decode(errors="replace")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


t.eq(len(PUBLIC), 50, "the public list has Intel's 50 exported functions")
ours = symbols(fw, False) if os.path.exists(fw) else set()
t.ok(PUBLIC <= ours, "our libxptifw.so exports every name of the public list",
     "missing: %s" % sorted(PUBLIC - ours))
if t.ok(os.path.exists(sub), "the subscriber is built: %s" % sub):
    imports = symbols(sub, True)
    xpti = {n for n in imports if n.lower().startswith("xpti")}
    t.ok(ENTRY_POINTS <= symbols(sub, False), "it exports xptiTraceInit and xptiTraceFinish")
    t.ok(xpti and xpti <= PUBLIC,
         "it imports only public XPTI functions (%d: %s)" % (len(xpti), " ".join(sorted(xpti))),
         "not in the public ABI: %s" % " ".join(sorted(xpti - PUBLIC)))
    # The subscriber checks, before its first call, that each import
    # resolves (a failed lazy lookup would end the application): its list
    # must name every one.
    src = os.path.join(os.environ.get("top_srcdir", "."), "xpti", "subscriber_zestub.c")
    with open(src) as fh:
        m = re.search(r"imports\[\] = \{(.*?)\};", fh.read(), re.S)
    listed = set(re.findall(r'"(xpti\w+)"', m.group(1))) if m else set()
    t.ok(listed == xpti, "subscriber_zestub.c's imports[] lists exactly its xpti imports",
         "listed %s\nimported %s" % (sorted(listed), sorted(xpti)))
    deps = needed(sub)
    bad = [d for d in deps if "xpti" in d.lower()]
    t.ok(not bad, "no DT_NEEDED on a framework (needs: %s)" % " ".join(deps),
         "DT_NEEDED: %s" % " ".join(bad))
for name in EXAMPLES:
    exe = os.path.join(top, "examples", ".libs", name)
    if not os.path.exists(exe):
        exe = os.path.join(top, "examples", name)
    calls = {n for n in symbols(exe, True) if n.lower().startswith("xpti")} \
        if os.path.exists(exe) else set()
    t.ok(calls and calls <= PUBLIC, "examples/%s calls only public XPTI functions (%d)"
         % (name, len(calls)), "not in the public ABI: %s" % " ".join(sorted(calls - PUBLIC)))
sys.exit(t.done())
