# SPDX-License-Identifier: MIT
# Tests of the XPTI core (xpti/). The recorder subscriber is a module loaded
# through XPTI_SUBSCRIBERS from $(top_builddir)/.libs.
check_LTLIBRARIES += xpti_recorder.la
xpti_recorder_la_SOURCES = tests/xpti/recorder_subscriber.c tests/xpti/recorder.h
xpti_recorder_la_LDFLAGS = -module -avoid-version -rpath /nowhere
xpti_recorder_la_LIBADD = libxptifw.la

XPTI_TEST_LDADD = libxptifw.la $(PTHREAD_LIBS)
XPTI_SYCL_FLOW = tests/xpti/sycl_flow.c tests/xpti/sycl_flow.h

XPTI_CHECKS = \
	tests/xpti/test_tables \
	tests/xpti/test_tracepoints \
	tests/xpti/test_callbacks \
	tests/xpti/test_metadata \
	tests/xpti/test_concurrency \
	tests/xpti/test_uidix \
	tests/xpti/test_uid_processes \
	tests/xpti/test_cxx_interfaces \
	tests/xpti/test_subscriber \
	tests/xpti/test_intel_parity \
	tests/xpti/sycl_app
check_PROGRAMS += $(XPTI_CHECKS)
tests_xpti_test_tables_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_tracepoints_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_callbacks_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_metadata_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_concurrency_LDADD = $(XPTI_TEST_LDADD)
# The index is hidden inside libxptifw.so: the test builds its own copy.
tests_xpti_test_uidix_SOURCES = tests/xpti/test_uidix.c xpti/uidix.c xpti/uidix.h \
	xpti/arena.c xpti/arena.h
tests_xpti_test_uid_processes_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_intel_parity_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_cxx_interfaces_SOURCES = tests/xpti/test_cxx_interfaces.cpp
tests_xpti_test_cxx_interfaces_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_subscriber_SOURCES = tests/xpti/test_subscriber.c tests/xpti/recorder.h \
	$(XPTI_SYCL_FLOW)
tests_xpti_test_subscriber_LDADD = $(XPTI_TEST_LDADD) $(DL_LIBS)
tests_xpti_sycl_app_SOURCES = tests/xpti/sycl_app.c $(XPTI_SYCL_FLOW)
tests_xpti_sycl_app_LDADD = $(XPTI_TEST_LDADD)

TESTS += $(XPTI_CHECKS) tests/xpti/bench_smoke.sh
EXTRA_DIST += tests/xpti/bench_smoke.sh tests/xpti/README.md

# libzestub_xpti.so imports only the public XPTI ABI and needs no framework
# (issue 34): it must run under Intel's framework as under ours.
TESTS += tests/xpti/test_public_abi.py
# The subscriber under a framework dlopen()ed RTLD_LOCAL, as the proxy does;
# the program links no framework (libxtab reads the table).
check_PROGRAMS += tests/xpti/test_local_framework
tests_xpti_test_local_framework_LDADD = libxtab.la $(DL_LIBS)
tests_xpti_test_local_framework_DEPENDENCIES = libxtab.la libxptifw.la libzestub_xpti.la
TESTS += tests/xpti/test_local_framework
EXTRA_DIST += tests/xpti/test_public_abi.py
# examples/sycl_like under Intel's framework with our subscriber: the same
# dump join as under ours. Runs only when INTEL_XPTIFW names Intel's
# libxptifw.so; skipped (with the reason) otherwise. The reverse (Intel's
# basic_collector on our framework) runs when INTEL_XPTI_COLLECTOR names it.
TESTS += tests/xpti/test_intel_interop.py
EXTRA_DIST += tests/xpti/test_intel_interop.py

# The XPTI table (xpti/xtab*): round trip, full-table policy, concurrent
# writers, corrupt tables, and end to end through libzestub_xpti.so.
XTAB_CHECKS = \
	tests/xpti/test_xtab \
	tests/xpti/test_xtab_corrupt \
	tests/xpti/test_xtab_hostile \
	tests/xpti/test_xtab_e2e \
	tests/xpti/test_xtab_flat
check_PROGRAMS += $(XTAB_CHECKS) tests/xpti/xtab_app
tests_xpti_test_xtab_LDADD = libxtab.la libxtab_writer.la $(PTHREAD_LIBS)
tests_xpti_test_xtab_corrupt_LDADD = libxtab.la libxtab_writer.la $(PTHREAD_LIBS)
tests_xpti_test_xtab_hostile_LDADD = libxtab_writer.la $(PTHREAD_LIBS)
tests_xpti_test_xtab_e2e_SOURCES = tests/xpti/test_xtab_e2e.c tests/xpti/xtab_app.h
tests_xpti_test_xtab_e2e_LDADD = libxtab.la
tests_xpti_test_xtab_e2e_DEPENDENCIES = libxtab.la libzestub_xpti.la tests/xpti/xtab_app
tests_xpti_test_xtab_flat_LDADD = libxptifw.la libxtab.la $(PTHREAD_LIBS)
tests_xpti_test_xtab_flat_DEPENDENCIES = libxptifw.la libxtab.la libzestub_xpti.la
tests_xpti_xtab_app_SOURCES = tests/xpti/xtab_app.c tests/xpti/xtab_app.h $(XPTI_SYCL_FLOW)
tests_xpti_xtab_app_LDADD = $(XPTI_TEST_LDADD)
TESTS += $(XTAB_CHECKS)

# The subscriber's cost per notification (not a test; xpti/README.md quotes it).
check_PROGRAMS += tests/xpti/xtab_cost
tests_xpti_xtab_cost_LDADD = $(XPTI_TEST_LDADD)
.PHONY: bench-xtab
bench-xtab: tests/xpti/xtab_cost libzestub_xpti.la
	for t in 1 4; do \
	  tests/xpti/xtab_cost --noop 100000 $$t; \
	  XPTI_SUBSCRIBERS=$(abs_top_builddir)/.libs/libzestub_xpti.so tests/xpti/xtab_cost 100000 $$t; \
	done
