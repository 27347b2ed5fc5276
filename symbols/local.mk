# SPDX-License-Identifier: MIT
# symbols: module ELF images -> kernels, line tables, functions (libelf + libdwarf).
noinst_LTLIBRARIES += libsymbols.la
libsymbols_la_SOURCES = symbols/symbols.c symbols/symbols.h
libsymbols_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
libsymbols_la_LIBADD = $(LIBDWARF_LIBS) $(LIBELF_LIBS)

EXTRA_DIST += symbols/README.md
