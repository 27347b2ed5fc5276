# SPDX-License-Identifier: MIT
# sessions: the debug model on top of zetdebug, regsets and symbols.
noinst_LTLIBRARIES += libsessions.la
libsessions_la_SOURCES = sessions/sess.h sessions/sess.c
libsessions_la_CFLAGS = $(AM_CFLAGS)
EXTRA_DIST += sessions/README.md
