# SPDX-License-Identifier: MIT
# regsets/ on its own: the register catalogues.
check_PROGRAMS += tests/regsets/test_regsets
TESTS += tests/regsets/test_regsets
tests_regsets_test_regsets_SOURCES = tests/regsets/test_regsets.c tests/lib/tap.h
tests_regsets_test_regsets_CFLAGS = $(AM_CFLAGS)
tests_regsets_test_regsets_LDADD = libregsets.la
EXTRA_DIST += tests/regsets/README.md
