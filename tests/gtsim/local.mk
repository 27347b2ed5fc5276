# SPDX-License-Identifier: MIT
# gtsim, the simulated driver: its core linked in directly (the ISA decoder
# and zebin reader against the ocloc/iga64 fixtures of tests/kernels, the
# configuration, the execution model, the debug zebin read back with
# libdwarf), then the whole driver through the real Level Zero loader, as
# applications see it. The fixtures are found through $top_srcdir.
GTSIM_CORE_TESTS = tests/gtsim/test_isa tests/gtsim/test_zebin tests/gtsim/test_debug_zebin \
	tests/gtsim/test_exec tests/gtsim/test_config tests/gtsim/test_barrier \
	tests/gtsim/test_spirv_spec \
	tests/gtsim/test_iga_decode tests/gtsim/test_exec_kernels tests/gtsim/test_exec_forms \
	tests/gtsim/test_exec_dataport tests/gtsim/test_ssa
check_PROGRAMS += $(GTSIM_CORE_TESTS)
TESTS += $(GTSIM_CORE_TESTS)

tests_gtsim_test_isa_SOURCES = tests/gtsim/test_isa.c tests/lib/tap.h
tests_gtsim_test_isa_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_gtsim_test_isa_LDADD = libgtsim_core.la libisa.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_ssa_SOURCES = tests/gtsim/test_ssa.c tests/lib/tap.h
tests_gtsim_test_ssa_CFLAGS = $(AM_CFLAGS)
tests_gtsim_test_ssa_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_zebin_SOURCES = tests/gtsim/test_zebin.c tests/lib/tap.h
tests_gtsim_test_zebin_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_gtsim_test_zebin_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_debug_zebin_SOURCES = tests/gtsim/test_debug_zebin.c tests/lib/tap.h tests/lib/slurp.h
tests_gtsim_test_debug_zebin_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_gtsim_test_debug_zebin_LDADD = libgtsim_core.la $(LIBDWARF_LIBS) $(LIBELF_LIBS) \
	$(PTHREAD_LIBS)

tests_gtsim_test_exec_SOURCES = tests/gtsim/test_exec.c tests/gtsim/hw_stops.h tests/lib/tap.h tests/lib/slurp.h
tests_gtsim_test_exec_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_gtsim_test_exec_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_barrier_SOURCES = tests/gtsim/test_barrier.c tests/lib/tap.h tests/lib/slurp.h
tests_gtsim_test_barrier_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_gtsim_test_barrier_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_spirv_spec_SOURCES = tests/gtsim/test_spirv_spec.c tests/lib/tap.h
tests_gtsim_test_spirv_spec_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_iga_decode_SOURCES = tests/gtsim/test_iga_decode.c tests/lib/tap.h tests/lib/slurp.h
tests_gtsim_test_iga_decode_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_gtsim_test_iga_decode_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_exec_kernels_SOURCES = tests/gtsim/test_exec_kernels.c tests/gtsim/hw_stops.h tests/lib/tap.h \
	tests/lib/slurp.h
tests_gtsim_test_exec_kernels_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_gtsim_test_exec_kernels_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_exec_forms_SOURCES = tests/gtsim/test_exec_forms.c tests/lib/tap.h
tests_gtsim_test_exec_forms_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)
tests_gtsim_test_exec_dataport_SOURCES = tests/gtsim/test_exec_dataport.c tests/lib/tap.h
tests_gtsim_test_exec_dataport_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

tests_gtsim_test_config_SOURCES = tests/gtsim/test_config.c tests/lib/tap.h
tests_gtsim_test_config_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

check_PROGRAMS += tests/gtsim/topology_probe
tests_gtsim_topology_probe_SOURCES = tests/gtsim/topology_probe.c
tests_gtsim_topology_probe_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_gtsim_topology_probe_LDADD = $(ZE_LIBS)
check_PROGRAMS += tests/gtsim/il_probe tests/gtsim/test_runtime_answers
TESTS += tests/gtsim/test_runtime_answers
tests_gtsim_test_runtime_answers_SOURCES = tests/gtsim/test_runtime_answers.c tests/lib/tap.h \
	tests/lib/slurp.h
tests_gtsim_test_runtime_answers_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_gtsim_test_runtime_answers_LDADD = $(ZE_LIBS)
tests_gtsim_il_probe_SOURCES = tests/gtsim/il_probe.c tests/lib/slurp.h
tests_gtsim_il_probe_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_gtsim_il_probe_LDADD = $(ZE_LIBS)
TESTS += tests/gtsim/test_topology.sh tests/gtsim/test_examples.sh tests/gtsim/test_stale_sockets.sh \
	tests/gtsim/test_spirv.sh tests/gtsim/test_printf.sh
EXTRA_DIST += tests/gtsim/README.md tests/gtsim/test_topology.sh tests/gtsim/test_examples.sh \
	tests/gtsim/test_stale_sockets.sh tests/gtsim/test_spirv.sh tests/gtsim/test_printf.sh

# The API 1.5 per-thread register-set query, through the loader (or
# gtsim's own 1.5 table when the loader has none); the debuggee is built
# here because conf_util starts it from the test's own folder.
check_PROGRAMS += tests/gtsim/test_thread_regsets tests/gtsim/debuggee
TESTS += tests/gtsim/test_thread_regsets
tests_gtsim_test_thread_regsets_SOURCES = tests/gtsim/test_thread_regsets.c $(conf_util_sources)
tests_gtsim_test_thread_regsets_CFLAGS = $(conf_cflags)
tests_gtsim_test_thread_regsets_LDADD = $(ZE_LIBS) $(DL_LIBS)
tests_gtsim_debuggee_SOURCES = $(conf_debuggee_sources)
tests_gtsim_debuggee_CFLAGS = $(conf_cflags)
tests_gtsim_debuggee_LDADD = $(ZE_LIBS)

# Register reads served in the debugger's process from the debuggee's
# shared register slots (gtsim/ssa.h), and the fallback through requests.
check_PROGRAMS += tests/gtsim/test_ssa_reads
TESTS += tests/gtsim/test_ssa_reads
tests_gtsim_test_ssa_reads_SOURCES = tests/gtsim/test_ssa_reads.c $(conf_util_sources)
tests_gtsim_test_ssa_reads_CFLAGS = $(conf_cflags)
tests_gtsim_test_ssa_reads_LDADD = $(ZE_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)
