# SPDX-License-Identifier: MIT
# zestub's GDB server against real applications on gtsim.
TESTS += tests/integration/test_serve.py
TESTS += tests/integration/test_packets.py
TESTS += tests/integration/test_stock_gdb.py
TESTS += tests/integration/test_gdb_mi.py
TESTS += tests/integration/test_intelgt_gdb.py
TESTS += tests/integration/test_intelgt_break.py
TESTS += tests/integration/test_libraries.py
TESTS += tests/integration/test_breakpoints.py
TESTS += tests/integration/test_nonstop.py
TESTS += tests/integration/test_monitor.py
TESTS += tests/integration/test_monitor_xpti.py
EXTRA_DIST += tests/integration/test_serve.py
EXTRA_DIST += tests/integration/test_packets.py
EXTRA_DIST += tests/integration/test_stock_gdb.py tests/integration/gtsim_run.py
EXTRA_DIST += tests/integration/test_gdb_mi.py tests/integration/mi.py
EXTRA_DIST += tests/integration/test_intelgt_gdb.py tests/integration/test_libraries.py
EXTRA_DIST += tests/integration/test_breakpoints.py tests/integration/test_nonstop.py
EXTRA_DIST += tests/integration/test_intelgt_break.py
EXTRA_DIST += tests/integration/test_monitor.py
EXTRA_DIST += tests/integration/test_monitor_xpti.py
