# SPDX-License-Identifier: MIT
"""The command line that starts a GDB. Intel's GDB is usually run from its
build tree (it is not packaged for Debian): there it cannot find its data
directory (Python scripts, syntax files) and prints a Python exception
into the output the checks read. INTELGT_GDB_DATA_DIR names the directory;
without it, a build tree's own (gdb/data-directory beside the binary) is
used when it is there. Stock GDB is started as it is."""
import os


def gdb_argv(gdb):
    """[gdb] plus --data-directory DIR when gdb is $INTELGT_GDB and a data
    directory is named or found beside it."""
    argv = [gdb]
    if gdb and gdb == os.environ.get("INTELGT_GDB"):
        d = os.environ.get("INTELGT_GDB_DATA_DIR")
        if not d:
            beside = os.path.join(os.path.dirname(os.path.realpath(gdb)), "data-directory")
            d = beside if os.path.isdir(beside) else None
        if d:
            argv += ["--data-directory", d]
    return argv
