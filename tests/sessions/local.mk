# SPDX-License-Identifier: MIT
# sessions/ against a real debuggee on gtsim, with conf_util and the
# debuggee of tests/conformance (variables in its local.mk).
check_PROGRAMS += tests/sessions/test_sessions tests/sessions/test_scale \
	tests/sessions/test_sess_errors tests/sessions/test_sess_pending tests/sessions/test_sess_fill \
	tests/sessions/debuggee
TESTS += tests/sessions/test_sessions tests/sessions/test_scale tests/sessions/test_sess_errors \
	tests/sessions/test_sess_pending tests/sessions/test_sess_fill
sess_launch_sources = tests/sessions/sess_launch.c tests/sessions/sess_launch.h
tests_sessions_test_sessions_SOURCES = tests/sessions/test_sessions.c $(conf_util_sources)
tests_sessions_test_sessions_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_sessions_test_sessions_LDADD = libsessions.la libsymbols.la libregsets.la libzetdebug.la \
	$(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
tests_sessions_test_scale_SOURCES = tests/sessions/test_scale.c $(sess_launch_sources) \
	$(conf_util_sources)
tests_sessions_test_scale_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_sessions_test_scale_LDADD = $(tests_sessions_test_sessions_LDADD)
tests_sessions_test_sess_errors_SOURCES = tests/sessions/test_sess_errors.c $(conf_util_sources)
tests_sessions_test_sess_errors_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_sessions_test_sess_errors_LDADD = $(tests_sessions_test_sessions_LDADD)
tests_sessions_test_sess_pending_SOURCES = tests/sessions/test_sess_pending.c $(sess_launch_sources) \
	$(conf_util_sources)
tests_sessions_test_sess_pending_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_sessions_test_sess_pending_LDADD = $(tests_sessions_test_sessions_LDADD)
tests_sessions_test_sess_fill_SOURCES = tests/sessions/test_sess_fill.c $(sess_launch_sources) \
	$(conf_util_sources)
tests_sessions_test_sess_fill_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_sessions_test_sess_fill_LDADD = $(tests_sessions_test_sessions_LDADD) $(DL_LIBS)
tests_sessions_debuggee_SOURCES = $(conf_debuggee_sources)
tests_sessions_debuggee_CFLAGS = $(conf_cflags)
tests_sessions_debuggee_LDADD = $(ZE_LIBS)
EXTRA_DIST += tests/sessions/README.md
