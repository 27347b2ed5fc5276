# SPDX-License-Identifier: MIT
# Decoder and zebin reader checks against the ocloc/iga64 fixtures in
# tests/kernels/fixtures (located at run time through $top_srcdir).
check_PROGRAMS += tests/unit/test_isa tests/unit/test_zebin
TESTS += tests/unit/test_isa tests/unit/test_zebin

tests_unit_test_isa_SOURCES = tests/unit/test_isa.c tests/tap.h
tests_unit_test_isa_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_isa_LDADD = libgtsim_core.la libregsets.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_unit_test_zebin_SOURCES = tests/unit/test_zebin.c tests/tap.h
tests_unit_test_zebin_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_zebin_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)
