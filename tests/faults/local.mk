# SPDX-License-Identifier: MIT
# The fault matrix: every zetDebug call zestub makes fails on purpose
# (gtsim's GTSIM_FAULTS) and a raw RSP client checks what follows.
# README.md has the matrix with each cell's expected outcome.
FAULT_TESTS = tests/faults/test_fault_matrix.py
TESTS += $(FAULT_TESTS)
EXTRA_DIST += $(FAULT_TESTS) tests/faults/README.md
