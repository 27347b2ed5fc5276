# SPDX-License-Identifier: MIT
include $(srcdir)/tests/unit/isa.mk
include $(srcdir)/tests/unit/debug_zebin.mk
include $(srcdir)/tests/unit/symbols.mk

check_PROGRAMS += tests/unit/test_exec tests/unit/test_config
TESTS += tests/unit/test_exec tests/unit/test_config
tests_unit_test_exec_SOURCES = tests/unit/test_exec.c tests/tap.h
tests_unit_test_exec_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_test_exec_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/tap.h
tests_unit_test_config_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)
