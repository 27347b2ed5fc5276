# SPDX-License-Identifier: MIT
# sessions: the debug model on top of zetdebug, regsets and symbols.
noinst_LTLIBRARIES += libsessions.la
libsessions_la_SOURCES = sessions/sess.h sessions/sess_impl.h sessions/sess.c \
	sessions/sess_regs.c sessions/sess_run.c sessions/sess_mem.c
libsessions_la_CFLAGS = $(AM_CFLAGS)
EXTRA_DIST += sessions/README.md
