# SPDX-License-Identifier: MIT
# target/ through its rsp_target_ops table, against the conformance
# debuggee on gtsim (conf_util and the debuggee's sources from
# tests/conformance/local.mk).
check_PROGRAMS += tests/target/test_tgt_ops tests/target/test_tgt_breakcycle tests/target/test_tgt_regkeep \
	tests/target/test_tgt_unload_order tests/target/test_tgt_resume_batch tests/target/test_tgt_thread_tdesc \
	tests/target/test_tgt_prefetch tests/target/debuggee
TESTS += tests/target/test_tgt_ops tests/target/test_tgt_breakcycle tests/target/test_tgt_regkeep \
	tests/target/test_tgt_unload_order tests/target/test_tgt_resume_batch tests/target/test_tgt_thread_tdesc \
	tests/target/test_tgt_prefetch
tests_target_test_tgt_ops_SOURCES = tests/target/test_tgt_ops.c $(conf_util_sources)
tests_target_test_tgt_ops_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_ops_LDADD = libtarget.la libreport.la libgdbstub.la libsessions.la libsymbols.la \
	libregsets.la libzetdebug.la $(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
tests_target_test_tgt_breakcycle_SOURCES = tests/target/test_tgt_breakcycle.c \
	$(conf_util_sources)
tests_target_test_tgt_breakcycle_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_breakcycle_LDADD = $(tests_target_test_tgt_ops_LDADD) $(DL_LIBS)
tests_target_test_tgt_regkeep_SOURCES = tests/target/test_tgt_regkeep.c $(tgt_walk_sources)
tests_target_test_tgt_regkeep_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_regkeep_LDADD = $(tests_target_test_tgt_ops_LDADD) $(DL_LIBS)
tgt_walk_sources = tests/target/tgt_walk.c tests/target/tgt_walk.h $(conf_util_sources)
tests_target_test_tgt_prefetch_SOURCES = tests/target/test_tgt_prefetch.c $(tgt_walk_sources)
tests_target_test_tgt_prefetch_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_prefetch_LDADD = $(tests_target_test_tgt_ops_LDADD) $(DL_LIBS)
tests_target_test_tgt_unload_order_SOURCES = tests/target/test_tgt_unload_order.c $(conf_util_sources)
tests_target_test_tgt_unload_order_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_unload_order_LDADD = $(tests_target_test_tgt_ops_LDADD)
tests_target_test_tgt_resume_batch_SOURCES = tests/target/test_tgt_resume_batch.c $(conf_util_sources)
tests_target_test_tgt_resume_batch_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_resume_batch_LDADD = $(tests_target_test_tgt_ops_LDADD) $(DL_LIBS)
tests_target_test_tgt_thread_tdesc_SOURCES = tests/target/test_tgt_thread_tdesc.c $(conf_util_sources)
tests_target_test_tgt_thread_tdesc_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_target_test_tgt_thread_tdesc_LDADD = $(tests_target_test_tgt_ops_LDADD) $(DL_LIBS)
# Its zetDebugGetThreadRegisterSetProperties must be visible to zetdebug's dlsym.
tests_target_test_tgt_thread_tdesc_LDFLAGS = -Wl,--export-dynamic
tests_target_debuggee_SOURCES = $(conf_debuggee_sources)
tests_target_debuggee_CFLAGS = $(conf_cflags)
tests_target_debuggee_LDADD = $(ZE_LIBS)
EXTRA_DIST += tests/target/README.md
