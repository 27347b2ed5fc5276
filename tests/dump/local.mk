# SPDX-License-Identifier: MIT
# zestub dump end to end, on gtsim.
TESTS += tests/dump/test_dump.sh
EXTRA_DIST += tests/dump/test_dump.sh tests/dump/check_dump.py
