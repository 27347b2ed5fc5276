# SPDX-License-Identifier: MIT
# zestub's GDB server against real applications on gtsim. tests/lib/harness.py
# starts the pieces; tests/lib/mi.py drives and checks a GDB/MI session.
INTEGRATION_TESTS = \
	tests/integration/test_serve.py \
	tests/integration/test_attach_errors.py \
	tests/integration/test_peer_uid.py \
	tests/integration/test_any_user.py \
	tests/integration/test_death.py \
	tests/integration/test_soak.py \
	tests/integration/test_siginfo.py \
	tests/integration/test_lifetime.py \
	tests/integration/test_packets.py \
	tests/integration/test_stock_gdb.py \
	tests/integration/test_stock_gdb_exit.py \
	tests/integration/test_gdb_mi.py \
	tests/integration/test_intelgt_gdb.py \
	tests/integration/test_intelgt_break.py \
	tests/integration/test_intelgt_exec.py \
	tests/integration/test_intelgt_pty.py \
	tests/integration/test_intelgt_info_threads.py \
	tests/integration/test_libraries.py \
	tests/integration/test_process_exit.py \
	tests/integration/test_breakpoints.py \
	tests/integration/test_exec_debug.py \
	tests/integration/test_deleted_breakpoint.py \
	tests/integration/test_nonstop.py \
	tests/integration/test_monitor.py \
	tests/integration/test_monitor_xpti.py \
	tests/integration/test_launch.py \
	tests/integration/test_launch_mpi.py \
	tests/integration/test_dump_partial.py \
	tests/integration/test_vrun.py \
	tests/integration/test_vrun_gdb.py \
	tests/integration/test_monitor_clients.py \
	tests/integration/test_interrupt_signal.py \
	tests/integration/test_answers.py \
	tests/integration/test_dap_launch_json.py \
	tests/integration/test_dap_adapter.py \
	tests/integration/test_gdbserver_ze.py \
	tests/integration/test_gdbserver_ze_intelgt.py
TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) tests/integration/bp_util.py \
	tests/integration/README.md
