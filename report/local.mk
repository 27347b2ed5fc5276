# SPDX-License-Identifier: MIT
# report: what zestub writes about a stop. One pass over the stopped threads
# (records, registers read once) feeding emitters: human, JSON, GPU core.
noinst_LTLIBRARIES += libreport.la
libreport_la_SOURCES = report/json.c report/json.h report/outfile.c report/outfile.h \
	report/safe_text.c report/safe_text.h \
	report/record.h report/emitter.h report/pass.c report/pass.h report/pass_ahead.c report/pass_ahead.h \
	report/dump_out.c report/dump_out.h report/emit_human.c report/emit_json.c \
	report/regs_text.c report/regs_text.h report/xpti_text.h report/json_xpti.c \
	report/human_xpti.c report/dump_classes.c report/dump_classes.h \
	report/device_desc.c report/device_desc.h \
	report/emit_core.c report/core_plan.h report/core_out.c report/core_out.h \
	report/core_io.c report/core_io.h report/core_mem.c report/core_mem.h \
	report/core_threads.c report/core_threads.h report/core_opts.c
libreport_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
libreport_la_LIBADD = $(LIBELF_LIBS)
EXTRA_DIST += report/README.md
