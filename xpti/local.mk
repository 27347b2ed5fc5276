# SPDX-License-Identifier: MIT
# libxptifw.so: the XPTI dispatcher (what XPTI_FRAMEWORK_DISPATCHER names in
# an instrumented application) and the tracing core zestub links. Installed
# in libdir because runtimes and users load it by path. Only the XPTI ABI and
# the xpti_* extensions in xpti/xpti.h are exported (hidden visibility).
lib_LTLIBRARIES += libxptifw.la
libxptifw_la_SOURCES = \
	xpti/xpti.h \
	xpti/hash.h \
	xpti/arena.h xpti/arena.c \
	xpti/chash.h xpti/chash.c \
	xpti/uidix.h xpti/uidix.c \
	xpti/idvec.h xpti/idvec.c \
	xpti/strtab.h xpti/strtab.c \
	xpti/objtab.h xpti/objtab.c \
	xpti/nametab.h xpti/nametab.c \
	xpti/metadata.h xpti/metadata.c \
	xpti/spin.h xpti/tracepoints.h xpti/tracepoints.c xpti/tp_pool.c xpti/tp_ended.c xpti/tp_site.c \
	xpti/cxx_interfaces.h xpti/cxx_interfaces.c \
	xpti/callbacks.h xpti/callbacks.c \
	xpti/subscribers.h xpti/subscribers.c \
	xpti/framework.h xpti/framework.c \
	xpti/api_lifecycle.c xpti/api_tables.c xpti/api_events.c \
	xpti/api_notify.c xpti/api_thread.c
libxptifw_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
# -Bsymbolic-functions: an exported function called from inside the library
# (xptiRegisterTracepointScope -> xptiCreateTracepoint) binds locally,
# not through the PLT; nobody interposes the dispatcher's own functions.
libxptifw_la_LDFLAGS = -avoid-version -no-undefined -Wl,-Bsymbolic-functions
libxptifw_la_LIBADD = $(DL_LIBS) $(PTHREAD_LIBS)

xptiincludedir = $(includedir)/zestub/xpti
xptiinclude_HEADERS = xpti/xpti.h

EXTRA_DIST += xpti/README.md

# libzestub_xpti.so: the subscriber an application loads through
# XPTI_SUBSCRIBERS; it writes the XPTI table zestub reads (xpti/README.md,
# "The XPTI table"). Exports only xptiTraceInit and xptiTraceFinish.
# It is linked against no framework (no -no-undefined, no libxptifw.la): its
# xpti* imports are the public ABI and bind to whichever framework the
# application loaded, ours or Intel's (tests/xpti/test_public_abi.py).
lib_LTLIBRARIES += libzestub_xpti.la
libzestub_xpti_la_SOURCES = \
	xpti/xtab_format.h xpti/xtab_writer.h xpti/xtab_writer.c \
	xpti/xtab_w_tasks.c xpti/xtab_w_allocs.c xpti/xtab_memfd.c \
	xpti/xpti_if.h xpti/hash.h \
	xpti/subscriber.h xpti/subscriber_site.c xpti/subscriber_zestub.c
libzestub_xpti_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libzestub_xpti_la_LDFLAGS = -module -avoid-version -Wl,--allow-shlib-undefined
libzestub_xpti_la_LIBADD = $(DL_LIBS) $(PTHREAD_LIBS)

# libxtab: the table's reader, for zestub (sessions/) and the tests. Needs
# neither the dispatcher nor the subscriber.
noinst_LTLIBRARIES += libxtab.la
libxtab_la_SOURCES = \
	xpti/xtab_format.h xpti/xtab_reader.h xpti/xtab_int.h \
	xpti/xtab_reader.c xpti/xtab_records.c xpti/xtab_query.c xpti/xtab_locate.c

# The writer alone, for tests that lay tables out in their own memory.
noinst_LTLIBRARIES += libxtab_writer.la
libxtab_writer_la_SOURCES = \
	xpti/xtab_format.h xpti/xtab_writer.h xpti/xtab_writer.c \
	xpti/xtab_w_tasks.c xpti/xtab_w_allocs.c xpti/xtab_memfd.c
