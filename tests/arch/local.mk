# SPDX-License-Identifier: MIT
# The architecture rules (build-aux/archcheck.py) on the source tree, and the
# checker's self-test on a tree with one violation of each kind.
TESTS += tests/arch/test_archcheck.py
EXTRA_DIST += tests/arch/README.md tests/arch/test_archcheck.py \
	build-aux/archcheck.py
