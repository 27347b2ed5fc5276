# SPDX-License-Identifier: MIT
# symbols: module ELF images -> kernels, line tables, functions (libelf + libdwarf).
noinst_LTLIBRARIES += libsymbols.la
libsymbols_la_SOURCES = symbols/symbols.h symbols/sym_int.h \
	symbols/sym_builder.c symbols/sym_elf.c symbols/sym_dwarf.c symbols/sym_lines.c \
	symbols/sym_funcs.c symbols/sym_module.c symbols/sym_lookup.c
libsymbols_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
libsymbols_la_LIBADD = $(LIBDWARF_LIBS) $(LIBELF_LIBS)

EXTRA_DIST += symbols/README.md
