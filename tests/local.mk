# SPDX-License-Identifier: MIT
EXTRA_DIST += tests/README.md tests/tap.h tests/slurp.h
include $(srcdir)/tests/kernels/local.mk
include $(srcdir)/tests/unit/local.mk
include $(srcdir)/tests/gtsim/local.mk
include $(srcdir)/tests/xpti/local.mk
include $(srcdir)/tests/fuzz/local.mk
include $(srcdir)/tests/conformance/local.mk
include $(srcdir)/tests/zestub/local.mk
include $(srcdir)/tests/dump/local.mk
include $(srcdir)/tests/rsp/local.mk
include $(srcdir)/tests/integration/local.mk
include $(srcdir)/tests/arch/local.mk
