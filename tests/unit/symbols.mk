# SPDX-License-Identifier: MIT
# symbols/ against the ocloc fixtures placed as debug zebins; the expected
# lines come from binutils' readelf (run by the test through popen).
check_PROGRAMS += tests/unit/test_symbols
TESTS += tests/unit/test_symbols

tests_unit_test_symbols_SOURCES = tests/unit/test_symbols.c tests/tap.h
tests_unit_test_symbols_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_unit_test_symbols_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) $(LIBELF_LIBS) \
	$(PTHREAD_LIBS)
