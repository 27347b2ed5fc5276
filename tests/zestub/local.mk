# SPDX-License-Identifier: MIT
# zestub's own layers: regsets (unit), zetdebug against gtsim, the devices
# command. test_zetdebug starts tests/zestub/debuggee (the conformance
# debuggee, built again here because conf_util looks for it next to the test).
check_PROGRAMS += tests/zestub/test_regsets tests/zestub/test_zetdebug tests/zestub/debuggee \
	tests/zestub/test_sessions
tests_zestub_test_regsets_SOURCES = tests/zestub/test_regsets.c tests/tap.h
tests_zestub_test_regsets_CFLAGS = $(AM_CFLAGS)
tests_zestub_test_regsets_LDADD = libregsets.la
tests_zestub_test_zetdebug_SOURCES = tests/zestub/test_zetdebug.c \
	tests/conformance/conf_util.c tests/conformance/conf_util.h tests/tap.h
tests_zestub_test_zetdebug_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_zestub_test_zetdebug_LDADD = libzetdebug.la $(ZE_LIBS) $(PTHREAD_LIBS)
tests_zestub_debuggee_SOURCES = tests/conformance/debuggee.c \
	examples/l0_common.c examples/l0_common.h
tests_zestub_debuggee_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS) \
	-DZESTUB_KERNEL_DIR='"$(abs_top_srcdir)/tests/kernels/fixtures"'
tests_zestub_debuggee_LDADD = $(ZE_LIBS)
tests_zestub_test_sessions_SOURCES = tests/zestub/test_sessions.c \
	tests/conformance/conf_util.c tests/conformance/conf_util.h tests/tap.h
tests_zestub_test_sessions_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_zestub_test_sessions_LDADD = libsessions.la libsymbols.la libregsets.la libzetdebug.la \
	$(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
TESTS += tests/zestub/test_regsets tests/zestub/test_zetdebug tests/zestub/test_devices.sh \
	tests/zestub/test_sessions
EXTRA_DIST += tests/zestub/test_devices.sh tests/zestub/README.md
