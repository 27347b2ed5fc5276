# SPDX-License-Identifier: MIT
"""Scratch folders for a test: made private under $TMPDIR and removed when
the test's process ends, however it ends short of SIGKILL, so a failing or
interrupted run leaves nothing in /tmp. ZESTUB_KEEP_SCRATCH=1 keeps them
(their paths are printed as TAP comments) to look at after a failure."""
import atexit
import os
import shutil
import sys
import tempfile

_made = []


def _remove_all():
    keep = os.environ.get("ZESTUB_KEEP_SCRATCH") == "1"
    for d in _made:
        if keep:
            sys.stdout.write("# kept scratch folder %s\n" % d)
        else:
            shutil.rmtree(d, ignore_errors=True)


def scratch_dir(prefix="zestub-test-"):
    d = tempfile.mkdtemp(prefix=prefix)
    if not _made:
        atexit.register(_remove_all)
    _made.append(d)
    return d
