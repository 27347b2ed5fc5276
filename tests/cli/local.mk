# SPDX-License-Identifier: MIT
# The zestub command end to end on gtsim: `zestub devices`, and `zestub
# dump` (test_dump_xpti.sh joins the XPTI table: examples/sycl_like with
# libzestub_xpti.so loaded), the server's command line (test_serve_args.sh), and
# GPU core files (test_core.py with the core_check reader, test_core_gdb.py),
# and the job-launcher form under a private Slurm cluster (test_launch_slurm.py
# with slurm_cluster.py; skipped without root or Slurm's packages).
CLI_TESTS = tests/cli/test_devices.sh tests/cli/test_dump.sh tests/cli/test_dump_xpti.sh \
	tests/cli/test_serve_args.sh tests/cli/test_merge.py tests/cli/test_launch.sh \
	tests/cli/test_dump_repeat.sh tests/cli/test_doctor.py tests/cli/test_attach_messages.py tests/cli/test_alt_drivers.py tests/cli/test_attach_gone.py \
	tests/cli/test_dump_source_path.py \
	tests/cli/test_dump_progress.py tests/cli/test_dump_classes.py tests/cli/test_core.py \
	tests/cli/test_core_gdb.py tests/cli/test_core_memory.py tests/cli/test_dump_hang.py \
	tests/cli/test_dump_hang_damaged.py tests/cli/test_dump_register_reads.py \
	tests/cli/test_merge_hostile.py tests/cli/test_writers.py tests/cli/test_durations.sh \
	tests/cli/test_completion.sh tests/cli/test_launch_slurm.py
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli/check_dump.py tests/cli/check_xpti.py \
	tests/cli/run_check.sh tests/cli/slurm_cluster.py tests/cli/README.md
# The reader of zestub dump --core's files (libelf), used by test_core.py.
check_PROGRAMS += tests/cli/core_check
tests_cli_core_check_SOURCES = tests/cli/core_check.c
tests_cli_core_check_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_cli_core_check_LDADD = $(LIBELF_LIBS)
