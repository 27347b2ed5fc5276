# SPDX-License-Identifier: MIT
# isa: the Intel GT ISA as pure functions (cr0, instruction bits, stops,
# the register sets an attach needs); below every other zestub layer.
noinst_LTLIBRARIES += libisa.la
libisa_la_SOURCES = isa/isa.h isa/isa_cr0.c isa/isa_insn.c isa/isa_stop.c isa/isa_regsets.c
libisa_la_CFLAGS = $(AM_CFLAGS)
EXTRA_DIST += isa/README.md
