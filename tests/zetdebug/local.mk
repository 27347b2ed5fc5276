# SPDX-License-Identifier: MIT
# zetdebug/ against gtsim, with conf_util and the debuggee of
# tests/conformance (variables in its local.mk).
check_PROGRAMS += tests/zetdebug/test_zetdebug tests/zetdebug/debuggee
TESTS += tests/zetdebug/test_zetdebug
tests_zetdebug_test_zetdebug_SOURCES = tests/zetdebug/test_zetdebug.c $(conf_util_sources)
tests_zetdebug_test_zetdebug_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_zetdebug_test_zetdebug_LDADD = libzetdebug.la $(ZE_LIBS) $(PTHREAD_LIBS) $(DL_LIBS)
tests_zetdebug_debuggee_SOURCES = $(conf_debuggee_sources)
tests_zetdebug_debuggee_CFLAGS = $(conf_cflags)
tests_zetdebug_debuggee_LDADD = $(ZE_LIBS)
EXTRA_DIST += tests/zetdebug/README.md

# test_zetdebug again under the newest loader (ZE_NEW_LOADER_DIR; skips
# without it): the run-time lookup of the API 1.5 per-thread query.
TESTS += tests/zetdebug/test_new_loader.sh
EXTRA_DIST += tests/zetdebug/test_new_loader.sh

# The error values without a device: every result mapped, the attach
# sentences, /proc probes, zd_open when zeInit fails (forked children).
check_PROGRAMS += tests/zetdebug/test_zd_results
TESTS += tests/zetdebug/test_zd_results
tests_zetdebug_test_zd_results_SOURCES = tests/zetdebug/test_zd_results.c tests/lib/tap.h
tests_zetdebug_test_zd_results_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_zetdebug_test_zd_results_LDADD = libzetdebug.la $(ZE_LIBS) $(PTHREAD_LIBS)

# zetdebug over a scripted driver (zd_fake_driver.c, linked instead of
# the Level Zero loader): the results gtsim never gives, and the detach
# handed to a reader held inside its read.
ZD_FAKE_SOURCES = tests/zetdebug/zd_fake_driver.c tests/zetdebug/zd_fake_driver.h \
	tests/zetdebug/zd_seen.c tests/zetdebug/zd_seen.h tests/lib/tap.h
check_PROGRAMS += tests/zetdebug/test_zd_fake tests/zetdebug/test_zd_handoff
TESTS += tests/zetdebug/test_zd_fake tests/zetdebug/test_zd_handoff
tests_zetdebug_test_zd_fake_SOURCES = tests/zetdebug/test_zd_fake.c $(ZD_FAKE_SOURCES)
tests_zetdebug_test_zd_fake_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_zetdebug_test_zd_fake_LDADD = libzetdebug.la $(PTHREAD_LIBS)
# The fake zetDebugGetThreadRegisterSetProperties must be visible to dlsym.
tests_zetdebug_test_zd_fake_LDFLAGS = -Wl,--export-dynamic
tests_zetdebug_test_zd_handoff_SOURCES = tests/zetdebug/test_zd_handoff.c $(ZD_FAKE_SOURCES)
tests_zetdebug_test_zd_handoff_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_zetdebug_test_zd_handoff_LDADD = libzetdebug.la $(PTHREAD_LIBS)
tests_zetdebug_test_zd_handoff_LDFLAGS = -Wl,--export-dynamic
