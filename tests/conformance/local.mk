# SPDX-License-Identifier: MIT
# The conformance suite: the zet debug API as zestub may rely on it, written
# against the public Level Zero API only (see tests/conformance/README.md).
conf_programs = tests/conformance/test_attach tests/conformance/test_events \
	tests/conformance/test_breakpoint tests/conformance/test_runcontrol \
	tests/conformance/test_detach tests/conformance/test_fault_slm \
	tests/conformance/test_tiles tests/conformance/test_interrupt \
	tests/conformance/test_interrupt_signal tests/conformance/test_concurrent
check_PROGRAMS += tests/conformance/debuggee $(conf_programs)
# conf_cflags and the two source lists serve tests/zetdebug and
# tests/sessions too: conf_util starts the debuggee from the test program's
# own folder, so they build it again there.
conf_cflags = $(AM_CFLAGS) $(ZE_CFLAGS) \
	-DZESTUB_KERNEL_DIR='"$(abs_top_srcdir)/tests/kernels/fixtures"'
conf_util_sources = tests/conformance/conf_util.c tests/conformance/conf_util.h tests/lib/tap.h
conf_debuggee_sources = tests/conformance/debuggee.c examples/l0_common.c examples/l0_common.h

tests_conformance_debuggee_SOURCES = $(conf_debuggee_sources)
tests_conformance_debuggee_CFLAGS = $(conf_cflags)
tests_conformance_debuggee_LDADD = $(ZE_LIBS)

tests_conformance_test_attach_SOURCES = tests/conformance/test_attach.c $(conf_util_sources)
tests_conformance_test_attach_CFLAGS = $(conf_cflags)
tests_conformance_test_attach_LDADD = $(ZE_LIBS)
tests_conformance_test_events_SOURCES = tests/conformance/test_events.c $(conf_util_sources)
tests_conformance_test_events_CFLAGS = $(conf_cflags)
tests_conformance_test_events_LDADD = $(ZE_LIBS)
tests_conformance_test_breakpoint_SOURCES = tests/conformance/test_breakpoint.c \
	$(conf_util_sources)
tests_conformance_test_breakpoint_CFLAGS = $(conf_cflags)
tests_conformance_test_breakpoint_LDADD = $(ZE_LIBS)
tests_conformance_test_runcontrol_SOURCES = tests/conformance/test_runcontrol.c \
	$(conf_util_sources)
tests_conformance_test_runcontrol_CFLAGS = $(conf_cflags)
tests_conformance_test_runcontrol_LDADD = $(ZE_LIBS)
tests_conformance_test_detach_SOURCES = tests/conformance/test_detach.c $(conf_util_sources)
tests_conformance_test_detach_CFLAGS = $(conf_cflags)
tests_conformance_test_detach_LDADD = $(ZE_LIBS)
tests_conformance_test_fault_slm_SOURCES = tests/conformance/test_fault_slm.c \
	$(conf_util_sources)
tests_conformance_test_fault_slm_CFLAGS = $(conf_cflags)
tests_conformance_test_fault_slm_LDADD = $(ZE_LIBS)
tests_conformance_test_tiles_SOURCES = tests/conformance/test_tiles.c $(conf_util_sources)
tests_conformance_test_tiles_CFLAGS = $(conf_cflags)
tests_conformance_test_tiles_LDADD = $(ZE_LIBS)
tests_conformance_test_interrupt_SOURCES = tests/conformance/test_interrupt.c \
	$(conf_util_sources)
tests_conformance_test_interrupt_CFLAGS = $(conf_cflags)
tests_conformance_test_interrupt_LDADD = $(ZE_LIBS)
tests_conformance_test_interrupt_signal_SOURCES = tests/conformance/test_interrupt_signal.c \
	$(conf_util_sources)
tests_conformance_test_interrupt_signal_CFLAGS = $(conf_cflags)
tests_conformance_test_interrupt_signal_LDADD = $(ZE_LIBS) -lrt

tests_conformance_test_concurrent_SOURCES = tests/conformance/test_concurrent.c \
	$(conf_util_sources)
tests_conformance_test_concurrent_CFLAGS = $(conf_cflags)
tests_conformance_test_concurrent_LDADD = $(ZE_LIBS) $(PTHREAD_LIBS)

TESTS += tests/conformance/run.sh
EXTRA_DIST += tests/conformance/run.sh tests/conformance/repeat.sh tests/conformance/README.md
