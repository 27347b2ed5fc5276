# SPDX-License-Identifier: MIT
# The helpers the tests share (tests/lib/README.md): TAP for C, shell and
# Python, slurp() for C, the RSP client, the integration harness and its
# GDB/MI driver. Nothing to build: C tests list the headers in their
# _SOURCES, scripts find the rest through $top_srcdir or their own path.
# test_scratch.py checks that scratch folders go away with their test.
TESTS += tests/lib/test_scratch.py
EXTRA_DIST += tests/lib/README.md tests/lib/tap.h tests/lib/slurp.h tests/lib/tap.sh \
	tests/lib/tap.py tests/lib/rspclient.py tests/lib/harness.py tests/lib/mi.py tests/lib/gdbpath.py tests/lib/scratch.py \
	tests/lib/pty_terminal.py tests/lib/test_scratch.py
