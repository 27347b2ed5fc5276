# SPDX-License-Identifier: MIT
# bench/merge: zestub merge of 1,000 / 5,000 / 10,000 copies of one hang
# dump, time and peak RSS (issue 36: 10,000 in < 30 s, < 512 MB). make
# check only smoke-runs it; `make bench-merge` gives the figures
# (BASELINE=/path/to/old/zestub adds the old build's in the same run).
EXTRA_DIST += bench/merge/bench_merge.py bench/merge/smoke.sh
TESTS += bench/merge/smoke.sh

.PHONY: bench-merge
bench-merge: zestub$(EXEEXT) examples/sycl_hang$(EXEEXT) libze_gtsim.la libzestub_xpti.la \
		libxptifw.la
	python3 $(srcdir)/bench/merge/bench_merge.py --builddir '$(abs_top_builddir)' \
		$(if $(BASELINE),--baseline '$(BASELINE)')
