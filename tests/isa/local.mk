# SPDX-License-Identifier: MIT
# isa/ on its own: cr0 bits and edits, instruction bits on real encodings,
# stop reasons, the register sets an attach needs.
check_PROGRAMS += tests/isa/test_isa
TESTS += tests/isa/test_isa
tests_isa_test_isa_SOURCES = tests/isa/test_isa.c tests/lib/tap.h tests/lib/slurp.h
tests_isa_test_isa_CFLAGS = $(AM_CFLAGS)
tests_isa_test_isa_LDADD = libisa.la
EXTRA_DIST += tests/isa/README.md
