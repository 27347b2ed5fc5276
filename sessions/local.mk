# SPDX-License-Identifier: MIT
# sessions: the debug model on top of zetdebug, regsets and symbols; the
# XPTI join reads the application's table through libxtab (xpti/).
noinst_LTLIBRARIES += libsessions.la
libsessions_la_SOURCES = sessions/sess.h sessions/sess_impl.h sessions/sess.c sessions/sess_notes.c \
	sessions/sess_threads.c sessions/sess_pump.c sessions/sess_regs.c sessions/sess_run.c \
	sessions/sess_mem.c sessions/sess_layout.c sessions/sess_xpti.h sessions/sess_xpti.c \
	sessions/sess_where.h sessions/sess_where.c
libsessions_la_CFLAGS = $(AM_CFLAGS)
libsessions_la_LIBADD = libxtab.la
EXTRA_DIST += sessions/README.md
