# SPDX-License-Identifier: MIT
# bench_xpti: the XPTI framework benchmark (not part of make check; run with
# `make bench-xpti`). Its no-op subscriber makes notifications real.
noinst_LTLIBRARIES += xpti_bench_subscriber.la
xpti_bench_subscriber_la_SOURCES = bench/xpti/bench_subscriber.c
xpti_bench_subscriber_la_LDFLAGS = -module -avoid-version -rpath /nowhere
xpti_bench_subscriber_la_LIBADD = libxptifw.la

# The dispatch floor (floor.c): a shared object of its own, linked like the
# framework, so the benchmark calls it through the PLT as it calls
# xptiNotifySubscribers. -rpath makes libtool build it shared.
noinst_LTLIBRARIES += libxpti_bench_floor.la
libxpti_bench_floor_la_SOURCES = bench/xpti/floor.h bench/xpti/floor.c
libxpti_bench_floor_la_LDFLAGS = -avoid-version -rpath /nowhere

noinst_PROGRAMS += bench/xpti/bench_xpti
bench_xpti_bench_xpti_SOURCES = \
	bench/xpti/bench.h bench/xpti/main.c bench/xpti/options.c bench/xpti/runner.c \
	bench/xpti/data.c bench/xpti/performance.c bench/xpti/semantic.c bench/xpti/memory.c
bench_xpti_bench_xpti_CPPFLAGS = $(AM_CPPFLAGS) \
	-DXPTI_BENCH_SUBSCRIBER='"$(abs_top_builddir)/.libs/xpti_bench_subscriber.so"'
bench_xpti_bench_xpti_LDADD = libxptifw.la libxpti_bench_floor.la libxtab.la $(PTHREAD_LIBS)

EXTRA_DIST += bench/README.md bench/xpti/compare.sh

# The figures the README quotes: serial and 1-2 threads, 10000 tracepoints,
# each visited 10 times.
BENCH_XPTI_ARGS = --trace-points 10000 --type performance --test-id 1,2 \
	--num-threads 0,1,2 --tp-frequency 10
.PHONY: bench-xpti
bench-xpti: bench/xpti/bench_xpti xpti_bench_subscriber.la libzestub_xpti.la
	bench/xpti/bench_xpti $(BENCH_XPTI_ARGS)
	bench/xpti/bench_xpti --type memory --subscriber .libs/libzestub_xpti.so \
	  --submissions 10000000 --sites 1000
