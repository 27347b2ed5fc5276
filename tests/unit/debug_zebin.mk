# SPDX-License-Identifier: MIT
# gtsim's debug zebin (gtsim/debug_zebin.c) on every ocloc fixture, read back
# with libdwarf.
check_PROGRAMS += tests/unit/test_debug_zebin
TESTS += tests/unit/test_debug_zebin

tests_unit_test_debug_zebin_SOURCES = tests/unit/test_debug_zebin.c tests/tap.h
tests_unit_test_debug_zebin_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_unit_test_debug_zebin_LDADD = libgtsim_core.la $(LIBDWARF_LIBS) $(LIBELF_LIBS) \
	$(PTHREAD_LIBS)
