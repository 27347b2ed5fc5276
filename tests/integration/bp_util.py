# SPDX-License-Identifier: MIT
"""Helpers of the breakpoint tests: register numbers from target.xml, a
thread's PC, vadd's module and its DWARF line table read through memory."""
import re
import subprocess
import tempfile

import harness as h


def regnums(c):
    xml = c.xfer("features", "target.xml")[0].decode()
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r'<reg name="([^"]+)"[^>]*regnum="(\d+)"', xml)}


def with_breakpoint_bit(insn):
    """The instruction bytes with the breakpoint control bit set, as a
    client plants a breakpoint by writing memory: bit 7 of a compacted
    instruction (compaction is bit 29), bit 30 of a native one."""
    planted = bytearray(insn)
    if planted[3] & 0x20:
        planted[0] |= 0x80
    else:
        planted[3] |= 0x40
    return bytes(planted)


def pc_of(c, rn, tid):
    c.req("Hgp1.%x" % tid)
    cr0 = bytes.fromhex(c.req("p%x" % rn["cr0"]))
    base = int.from_bytes(bytes.fromhex(c.req("p%x" % rn["isabase"])), "little")
    return base + int.from_bytes(cr0[8:12], "little")


def line_rows(c, begin, end):
    """(address, line) rows of the module's DWARF line table, and the
    kernel's SIMD width from its zeinfo."""
    data = b""
    while begin + len(data) < end:
        n = min(0x4000, end - begin - len(data))
        r = c.request("x%x,%x" % (begin + len(data), n))
        if not r.startswith(b"b") or len(r) == 1:
            break
        data += r[1:]
    with tempfile.NamedTemporaryFile(suffix=".elf") as f:
        f.write(data)
        f.flush()
        p = subprocess.run(["objdump", "--dwarf=decodedline", f.name], capture_output=True,
                           text=True)
    if p.returncode != 0:  # no rows: the callers' checks fail, saying so
        return [], 0
    out = p.stdout
    rows = []
    for m in re.finditer(r"^\S+\.cl\s+(\d+)\s+(0x[0-9a-f]+|\d+)", out, re.M):
        rows.append((int(m.group(2), 0), int(m.group(1))))
    simd = re.search(rb"simd_size:\s*(\d+)", data)
    return rows, int(simd.group(1)) if simd else 0


def load_module(app, c):
    """Lets vadd create its module; returns (begin, end) once acknowledged."""
    h.release(app)
    c.send("vCont;c")
    r = c.recv(timeout=30).decode()
    if r != "Up1.0;library":
        return None
    m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"', c.xfer("libraries", "")[0].decode())
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else None


def module_elf(c, begin, end):
    """The module's ELF, read from the debuggee's memory with x."""
    data = b""
    while begin + len(data) < end:
        r = c.request("x%x,%x" % (begin + len(data), min(0x4000, end - begin - len(data))))
        if not r.startswith(b"b") or len(r) == 1:
            break
        data += r[1:]
    return data


def kernel_entries(elf):
    """The address of each .text.<kernel> section (a kernel's first
    instruction in a debug zebin), from readelf."""
    with tempfile.NamedTemporaryFile(suffix=".elf") as f:
        f.write(elf)
        f.flush()
        p = subprocess.run(["readelf", "-SW", f.name], capture_output=True, text=True)
    out = p.stdout if p.returncode == 0 else ""
    return [int(m.group(1), 16) for m in
            re.finditer(r"\]\s+\.text\.\S+\s+\S+\s+([0-9a-f]+)", out)]
