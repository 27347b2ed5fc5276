# SPDX-License-Identifier: MIT
# zetdebug: the only code that calls Level Zero (ze*/zet*).
noinst_LTLIBRARIES += libzetdebug.la
libzetdebug_la_SOURCES = zetdebug/zd.h zetdebug/zd_impl.h zetdebug/zd.c \
	zetdebug/zd_session.c zetdebug/zd_result.c zetdebug/zd_proc.c \
	zetdebug/zd_thread_regsets.c
libzetdebug_la_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
libzetdebug_la_LIBADD = libisa.la $(ZE_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += zetdebug/README.md
