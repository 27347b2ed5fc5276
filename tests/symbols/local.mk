# SPDX-License-Identifier: MIT
# symbols/ against the ocloc fixtures placed as debug zebins; the expected
# lines come from binutils' readelf (run by the test through popen).
check_PROGRAMS += tests/symbols/test_symbols
TESTS += tests/symbols/test_symbols

tests_symbols_test_symbols_SOURCES = tests/symbols/test_symbols.c tests/lib/tap.h tests/lib/slurp.h
tests_symbols_test_symbols_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_symbols_test_symbols_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) \
	$(LIBELF_LIBS) $(PTHREAD_LIBS)

# sym_module_open from several threads at once (two devices loading modules).
check_PROGRAMS += tests/symbols/test_symbols_threads
TESTS += tests/symbols/test_symbols_threads
tests_symbols_test_symbols_threads_SOURCES = tests/symbols/test_symbols_threads.c tests/lib/tap.h \
	tests/lib/slurp.h
tests_symbols_test_symbols_threads_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_symbols_test_symbols_threads_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) \
	$(LIBELF_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += tests/symbols/README.md

# A hand-made corpus of malformed module images: each refused with a reason
# or opened with what it still says, never a crash.
check_PROGRAMS += tests/symbols/test_malformed
TESTS += tests/symbols/test_malformed
tests_symbols_test_malformed_SOURCES = tests/symbols/test_malformed.c tests/lib/tap.h
tests_symbols_test_malformed_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_symbols_test_malformed_LDADD = libsymbols.la $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)

# Inlined functions and DW_AT_ranges (the inline_calls fixtures) against
# readelf's decoding of the debug zebin.
check_PROGRAMS += tests/symbols/test_inline
TESTS += tests/symbols/test_inline
tests_symbols_test_inline_SOURCES = tests/symbols/test_inline.c tests/lib/tap.h tests/lib/slurp.h
tests_symbols_test_inline_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_symbols_test_inline_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) \
	$(LIBELF_LIBS) $(PTHREAD_LIBS)
