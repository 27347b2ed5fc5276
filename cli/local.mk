# SPDX-License-Identifier: MIT
# The zestub program: argument parsing and sub-commands on top of sessions/.
bin_PROGRAMS += zestub
zestub_SOURCES = cli/cli.h cli/main.c cli/devices.c cli/dump.c cli/serve.c cli/dump_out.c cli/dump_out.h \
	cli/dump_xpti.c cli/dump_xpti.h cli/dump_monitor.c cli/json.c cli/json.h cli/doctor.c
zestub_CFLAGS = $(AM_CFLAGS)
zestub_LDADD = libtarget.la libgdbstub.la libsessions.la libsymbols.la libregsets.la libzetdebug.la \
	$(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += cli/README.md
