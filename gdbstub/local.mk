# SPDX-License-Identifier: MIT
# gdbstub: the GDB remote-serial-protocol server (transport, codec,
# dispatch, handlers, target-description XML). Link it with libregsets.la.
noinst_LTLIBRARIES += libgdbstub.la
libgdbstub_la_SOURCES = gdbstub/packet.h gdbstub/packet.c gdbstub/log.h gdbstub/log.c \
	gdbstub/transport.h gdbstub/transport.c \
	gdbstub/target.h gdbstub/server.h gdbstub/server_int.h gdbstub/server.c \
	gdbstub/dispatch.h gdbstub/dispatch.c gdbstub/tdesc.c \
	gdbstub/monitor.h gdbstub/h_query.c gdbstub/h_monitor.c gdbstub/h_threads.c gdbstub/h_regs.c gdbstub/hostview.c \
	gdbstub/h_memory.c gdbstub/h_run.c gdbstub/h_xfer.c gdbstub/h_library.c gdbstub/h_break.c gdbstub/h_nonstop.c
libgdbstub_la_CFLAGS = $(AM_CFLAGS)
EXTRA_DIST += gdbstub/README.md
