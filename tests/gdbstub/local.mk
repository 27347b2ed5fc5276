# SPDX-License-Identifier: MIT
# gdbstub against a mock target: the codec in C, every packet family through
# a Python RSP client (tests/lib/rspclient.py) talking to rsp_mock_server.
check_PROGRAMS += tests/gdbstub/rsp_mock_server tests/gdbstub/test_packet \
	tests/gdbstub/test_peercred tests/gdbstub/test_transport tests/gdbstub/test_tdesc_cache \
	tests/gdbstub/test_target_check tests/gdbstub/test_exposure tests/gdbstub/test_gdb_signal
tests_gdbstub_rsp_mock_server_SOURCES = tests/gdbstub/rsp_mock_server.c \
	tests/gdbstub/mock_target.c tests/gdbstub/mock_target.h
tests_gdbstub_rsp_mock_server_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_packet_SOURCES = tests/gdbstub/test_packet.c tests/lib/tap.h
tests_gdbstub_test_packet_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_peercred_SOURCES = tests/gdbstub/test_peercred.c tests/lib/tap.h
tests_gdbstub_test_peercred_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_transport_SOURCES = tests/gdbstub/test_transport.c tests/lib/tap.h
tests_gdbstub_test_transport_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_exposure_SOURCES = tests/gdbstub/test_exposure.c tests/lib/tap.h
tests_gdbstub_test_exposure_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_gdb_signal_SOURCES = tests/gdbstub/test_gdb_signal.c tests/lib/tap.h
tests_gdbstub_test_gdb_signal_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_tdesc_cache_SOURCES = tests/gdbstub/test_tdesc_cache.c tests/lib/tap.h
tests_gdbstub_test_tdesc_cache_LDADD = libgdbstub.la libregsets.la
tests_gdbstub_test_target_check_SOURCES = tests/gdbstub/test_target_check.c \
	tests/gdbstub/mock_target.c tests/gdbstub/mock_target.h tests/lib/tap.h
tests_gdbstub_test_target_check_LDADD = libgdbstub.la libregsets.la
RSP_PY_TESTS = tests/gdbstub/test_rsp_codec.py tests/gdbstub/test_rsp_queries.py \
	tests/gdbstub/test_rsp_regs_mem.py tests/gdbstub/test_rsp_run.py \
	tests/gdbstub/test_rsp_backpressure.py tests/gdbstub/test_rsp_errors.py \
	tests/gdbstub/test_rsp_offers.py
TESTS += tests/gdbstub/test_packet tests/gdbstub/test_peercred tests/gdbstub/test_transport \
	tests/gdbstub/test_tdesc_cache tests/gdbstub/test_target_check tests/gdbstub/test_exposure \
	tests/gdbstub/test_gdb_signal $(RSP_PY_TESTS)
EXTRA_DIST += tests/gdbstub/README.md tests/gdbstub/mock_server.py $(RSP_PY_TESTS)
