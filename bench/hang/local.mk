# SPDX-License-Identifier: MIT
# bench/hang: a hang dump of a device full of threads waiting at a barrier
# (issue 21: the report within 1 s beyond the stop-all time). make check
# only smoke-runs it; `make bench-hang` gives the figures.
EXTRA_DIST += bench/hang/bench_hang.py bench/hang/smoke.sh
TESTS += bench/hang/smoke.sh

.PHONY: bench-hang
bench-hang: zestub$(EXEEXT) examples/sycl_hang$(EXEEXT) libze_gtsim.la libzestub_xpti.la \
		libxptifw.la
	python3 $(srcdir)/bench/hang/bench_hang.py --builddir '$(abs_top_builddir)'
