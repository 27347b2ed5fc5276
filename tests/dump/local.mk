# SPDX-License-Identifier: MIT
# zestub dump end to end, on gtsim; test_dump_xpti.sh joins the XPTI table
# (examples/sycl_like with libzestub_xpti.so loaded).
TESTS += tests/dump/test_dump.sh tests/dump/test_dump_xpti.sh
EXTRA_DIST += tests/dump/test_dump.sh tests/dump/check_dump.py tests/dump/test_dump_xpti.sh \
	tests/dump/check_xpti.py tests/dump/README.md
