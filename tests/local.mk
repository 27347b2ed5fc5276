# SPDX-License-Identifier: MIT
# One folder per layer of the product, plus the suites that are not one
# layer's: kernels (fixtures), conformance (the zet API contract; its
# conf_util and debuggee serve zetdebug and sessions too), integration and
# fuzz; lib holds the helpers they share. tests/README.md says which is
# which.
EXTRA_DIST += tests/README.md
include $(srcdir)/tests/lib/local.mk
include $(srcdir)/tests/kernels/local.mk
include $(srcdir)/tests/conformance/local.mk
include $(srcdir)/tests/gtsim/local.mk
include $(srcdir)/tests/isa/local.mk
include $(srcdir)/tests/report/local.mk
include $(srcdir)/tests/regsets/local.mk
include $(srcdir)/tests/symbols/local.mk
include $(srcdir)/tests/zetdebug/local.mk
include $(srcdir)/tests/sessions/local.mk
include $(srcdir)/tests/gdbstub/local.mk
include $(srcdir)/tests/target/local.mk
include $(srcdir)/tests/cli/local.mk
include $(srcdir)/tests/xpti/local.mk
include $(srcdir)/tests/integration/local.mk
include $(srcdir)/tests/faults/local.mk
include $(srcdir)/tests/fuzz/local.mk
include $(srcdir)/tests/arch/local.mk
include $(srcdir)/tests/build/local.mk
