# SPDX-License-Identifier: MIT
# target: the Intel GT target behind gdbstub's target.h, over sessions/.
noinst_LTLIBRARIES += libtarget.la
libtarget_la_SOURCES = target/intelgt.h target/tgt_int.h target/tgt_ops.c target/tgt_run.c target/tgt_exit.c \
	target/tgt_drvfail.c target/tgt_tdesc.c target/tgt_isa.c target/tgt_code_writes.c target/tgt_regkeep.c target/tgt_prefetch.c target/tgt_siginfo.c target/tgt_launch.c \
	target/tgt_monitor.h target/tgt_monitor_table.c target/tgt_monitor.c \
	target/tgt_monitor_xpti.c target/tgt_monitor_report.c target/tgt_xpti.h target/tgt_xpti.c
libtarget_la_CFLAGS = $(AM_CFLAGS)
EXTRA_DIST += target/README.md
