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
	tests/xpti/test_uid_processes \
	tests/xpti/test_cxx_interfaces \
	tests/xpti/test_subscriber \
	tests/xpti/sycl_app
check_PROGRAMS += $(XPTI_CHECKS)
tests_xpti_test_tables_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_tracepoints_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_callbacks_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_metadata_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_concurrency_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_uid_processes_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_cxx_interfaces_SOURCES = tests/xpti/test_cxx_interfaces.cpp
tests_xpti_test_cxx_interfaces_LDADD = $(XPTI_TEST_LDADD)
tests_xpti_test_subscriber_SOURCES = tests/xpti/test_subscriber.c tests/xpti/recorder.h \
	$(XPTI_SYCL_FLOW)
tests_xpti_test_subscriber_LDADD = $(XPTI_TEST_LDADD) $(DL_LIBS)
tests_xpti_sycl_app_SOURCES = tests/xpti/sycl_app.c $(XPTI_SYCL_FLOW)
tests_xpti_sycl_app_LDADD = $(XPTI_TEST_LDADD)

TESTS += $(XPTI_CHECKS) tests/xpti/bench_smoke.sh
EXTRA_DIST += tests/xpti/bench_smoke.sh
