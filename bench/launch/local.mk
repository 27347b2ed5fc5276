# SPDX-License-Identifier: MIT
# bench/launch: the overhead of `zestub dump -- PROGRAM` for a rank that
# never faults (kernel launch rate and run time, with and without zestub).
# make check only smoke-runs it; `make bench-launch` gives the figures.
noinst_PROGRAMS += bench/launch/launch_rate
bench_launch_launch_rate_SOURCES = bench/launch/launch_rate.c examples/l0_common.c \
	examples/l0_common.h
bench_launch_launch_rate_CFLAGS = $(examples_common_cflags)
bench_launch_launch_rate_LDADD = $(ZE_LIBS)
EXTRA_DIST += bench/launch/bench_launch.py bench/launch/smoke.sh
TESTS += bench/launch/smoke.sh

.PHONY: bench-launch
bench-launch: zestub$(EXEEXT) bench/launch/launch_rate$(EXEEXT) libze_gtsim.la \
		libzestub_launch.la
	python3 $(srcdir)/bench/launch/bench_launch.py --builddir '$(abs_top_builddir)'
