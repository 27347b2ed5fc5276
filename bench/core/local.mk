# SPDX-License-Identifier: MIT
# bench/core: issue 21's GPU core targets (write speed against a plain
# sequential write, peak memory with and without --core, the page-fault
# core's size). make check only smoke-runs it on a 16-thread device;
# `make bench-core` gives the figures at 8,192 threads (bench/core/README.md).
EXTRA_DIST += bench/core/bench_core.py bench/core/smoke.sh bench/core/README.md
TESTS += bench/core/smoke.sh

.PHONY: bench-core
bench-core: zestub$(EXEEXT) examples/vadd$(EXEEXT) examples/pagefault$(EXEEXT) libze_gtsim.la
	python3 $(srcdir)/bench/core/bench_core.py --builddir '$(abs_top_builddir)'
