# SPDX-License-Identifier: MIT
# gdbstub: the GDB remote-serial-protocol server (transport, codec,
# dispatch, handlers, target-description XML). Link it with libregsets.la
# (only its register catalogue, regsets/regs_catalog.h, is used).
noinst_LTLIBRARIES += libgdbstub.la
libgdbstub_la_SOURCES = gdbstub/packet.h gdbstub/packet.c gdbstub/log.h gdbstub/log.c \
	gdbstub/progress.h gdbstub/progress.c \
	gdbstub/transport.h gdbstub/transport.c gdbstub/peercred.h gdbstub/peercred.c gdbstub/turnaway.h gdbstub/turnaway.c \
	gdbstub/confine.h gdbstub/confine.c \
	gdbstub/target.h gdbstub/target_check.h gdbstub/target_check.c \
	gdbstub/server.h gdbstub/server_config.h gdbstub/server_state.h gdbstub/server.c \
	gdbstub/hooks.h gdbstub/features.h gdbstub/features.c \
	gdbstub/threadid.h gdbstub/threadid.c gdbstub/gdb_signal.h gdbstub/gdb_signal.c \
	gdbstub/stopreply.h gdbstub/stopreply.c \
	gdbstub/output.h gdbstub/output.c gdbstub/attach.h gdbstub/attach.c \
	gdbstub/nsqueue.h gdbstub/nsqueue.c \
	gdbstub/handlers.h gdbstub/dispatch.h gdbstub/dispatch.c \
	gdbstub/offers.h gdbstub/offers.c gdbstub/tdesc.h gdbstub/tdesc.c \
	gdbstub/tdesc_cache.h gdbstub/tdesc_cache.c \
	gdbstub/monitor.h gdbstub/h_query.c gdbstub/h_monitor.c gdbstub/h_threads.c gdbstub/h_regs.c gdbstub/hostview.h gdbstub/hostview.c \
	gdbstub/h_memory.c gdbstub/h_run.c gdbstub/h_xfer.h gdbstub/h_xfer.c \
	gdbstub/h_library.h gdbstub/h_library.c gdbstub/h_break.h gdbstub/h_break.c \
	gdbstub/h_nonstop.h gdbstub/h_nonstop.c gdbstub/h_vrun.h gdbstub/h_vrun.c \
	gdbstub/h_run_entry.h gdbstub/h_run_entry.c
libgdbstub_la_CFLAGS = $(AM_CFLAGS)
EXTRA_DIST += gdbstub/README.md
