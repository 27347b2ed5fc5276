# SPDX-License-Identifier: MIT
# zestub's GDB server against real applications on gtsim.
TESTS += tests/integration/test_serve.py
EXTRA_DIST += tests/integration/test_serve.py
