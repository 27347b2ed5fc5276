# SPDX-License-Identifier: MIT
# bench/gdbstub: zestub's GDB server against examples/vadd on gtsim. Not part
# of make check, which only smoke-runs it with tiny sizes; run it with
# `make bench-gdbstub` (about a minute and a half on two cores).
BENCH_GDBSTUB_PY = \
	bench/gdbstub/bench_gdbstub.py bench/gdbstub/breakcycle.py bench/gdbstub/fastwire.py \
	bench/gdbstub/intelgdb_session.py \
	bench/gdbstub/loopback.py bench/gdbstub/measure.py bench/gdbstub/report.py \
	bench/gdbstub/rig.py bench/gdbstub/scale.py
EXTRA_DIST += $(BENCH_GDBSTUB_PY) bench/gdbstub/smoke.sh bench/gdbstub/zecount.c
TESTS += bench/gdbstub/smoke.sh

.PHONY: bench-gdbstub
bench-gdbstub: zestub$(EXEEXT) examples/vadd$(EXEEXT) libze_gtsim.la
	python3 $(srcdir)/bench/gdbstub/bench_gdbstub.py --builddir '$(abs_top_builddir)'

# Stop the world at scale (issue 23): this build against BEFORE, a build
# directory of the commit to compare with, and against Intel's gdbserver
# when the environment's GDBSERVER_ZE names one (bench/README.md).
.PHONY: bench-scale
bench-scale: zestub$(EXEEXT) examples/vadd$(EXEEXT) libze_gtsim.la
	before='$(BEFORE)'; python3 $(srcdir)/bench/gdbstub/scale.py \
		--builddir '$(abs_top_builddir)' $${before:+--before "$$before"}

# A user's session through Intel's GDB on a pseudo-terminal (issue 36):
# zestub against Intel's gdbserver, interleaved; needs INTELGT_GDB and
# GDBSERVER_ZE in the environment, says so and does nothing without them.
.PHONY: bench-intelgdb
bench-intelgdb: zestub$(EXEEXT) examples/vadd$(EXEEXT) libze_gtsim.la
	python3 $(srcdir)/bench/gdbstub/intelgdb_session.py --builddir '$(abs_top_builddir)'
