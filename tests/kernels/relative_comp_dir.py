#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrites a fixture's DW_AT_comp_dir from /proc/self/cwd to tests/kernels/
in place, so the file DWARF names (tests/kernels/<kernel>.cl) is a path in
the source tree. ocloc records $PWD as the compilation directory only when
$PWD is absolute, so it cannot write a relative one itself; regen.sh calls
this on each zebin it gets back.

IGC writes the compilation directory as an inline DW_FORM_string in the
compile unit, so the new text must be exactly as long as the old one:
"tests/kernels/" has the 14 characters of "/proc/self/cwd" (the trailing
slash is what makes it fit; GDB and symbols/ both accept it). Only
.debug_info is touched: .spv keeps its own copy, which nothing debugging
the module reads.

Usage: relative_comp_dir.py FILE...  (exit 1 naming the file when a
.debug_info does not hold the old directory exactly once)"""
import struct
import sys

OLD = b"/proc/self/cwd\0"
NEW = b"tests/kernels/\0"
assert len(OLD) == len(NEW)


def debug_info_range(elf):
    """(offset, size) of .debug_info in a little-endian ELF64 file."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    for name, _type, _flags, _addr, offset, size in headers:
        end = elf.index(b"\0", strtab + name)
        if elf[strtab + name:end] == b".debug_info":
            return offset, size
    raise ValueError("no .debug_info section")


def rewrite(path):
    with open(path, "rb") as f:
        elf = bytearray(f.read())
    offset, size = debug_info_range(elf)
    section = bytes(elf[offset:offset + size])
    count = section.count(OLD)
    if count != 1:
        if section.count(NEW) == 1:
            return  # already rewritten
        raise ValueError(".debug_info holds %r %d times, expected once" % (OLD, count))
    at = offset + section.index(OLD)
    elf[at:at + len(OLD)] = NEW
    with open(path, "wb") as f:
        f.write(elf)


def main(paths):
    status = 0
    for p in paths:
        try:
            rewrite(p)
        except (OSError, ValueError) as e:
            print("relative_comp_dir.py: %s: %s" % (p, e), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
