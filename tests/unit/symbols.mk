# SPDX-License-Identifier: MIT
# symbols/ against the ocloc fixtures placed as debug zebins; the expected
# lines come from binutils' readelf (run by the test through popen).
check_PROGRAMS += tests/unit/test_symbols
TESTS += tests/unit/test_symbols

tests_unit_test_symbols_SOURCES = tests/unit/test_symbols.c tests/tap.h
tests_unit_test_symbols_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_unit_test_symbols_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) $(LIBELF_LIBS) \
	$(PTHREAD_LIBS)

# sym_module_open from several threads at once (two devices loading modules).
check_PROGRAMS += tests/unit/test_symbols_threads
TESTS += tests/unit/test_symbols_threads
tests_unit_test_symbols_threads_SOURCES = tests/unit/test_symbols_threads.c tests/tap.h tests/slurp.h
tests_unit_test_symbols_threads_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_unit_test_symbols_threads_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) \
	$(LIBELF_LIBS) $(PTHREAD_LIBS)
