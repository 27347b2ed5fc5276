# SPDX-License-Identifier: MIT
# bench/gdbstub: zestub's GDB server against examples/vadd on gtsim. Not part
# of make check, which only smoke-runs it with tiny sizes; run it with
# `make bench-gdbstub` (about a minute and a half on two cores).
BENCH_GDBSTUB_PY = \
	bench/gdbstub/bench_gdbstub.py bench/gdbstub/breakcycle.py bench/gdbstub/fastwire.py \
	bench/gdbstub/loopback.py bench/gdbstub/measure.py bench/gdbstub/report.py \
	bench/gdbstub/rig.py
EXTRA_DIST += $(BENCH_GDBSTUB_PY) bench/gdbstub/smoke.sh
TESTS += bench/gdbstub/smoke.sh

.PHONY: bench-gdbstub
bench-gdbstub: zestub$(EXEEXT) examples/vadd$(EXEEXT) libze_gtsim.la
	python3 $(srcdir)/bench/gdbstub/bench_gdbstub.py --builddir '$(abs_top_builddir)'
