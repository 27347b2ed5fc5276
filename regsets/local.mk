# SPDX-License-Identifier: MIT
# regsets: register-set properties -> GDB register catalogue.
noinst_LTLIBRARIES += libregsets.la
libregsets_la_SOURCES = regsets/regs.h regsets/regs_catalog.h regsets/regs.c \
	regsets/tdesc_xml.h regsets/tdesc_xml.c
libregsets_la_CFLAGS = $(AM_CFLAGS)
libregsets_la_LIBADD = libisa.la
EXTRA_DIST += regsets/README.md
