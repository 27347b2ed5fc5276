# SPDX-License-Identifier: MIT
# gdbstub against a mock target: the codec in C, every packet family through
# a Python RSP client (tests/rsp/rspclient.py) talking to rsp_mock_server.
check_PROGRAMS += tests/rsp/rsp_mock_server tests/rsp/test_packet
tests_rsp_rsp_mock_server_SOURCES = tests/rsp/rsp_mock_server.c \
	tests/rsp/mock_target.c tests/rsp/mock_target.h
tests_rsp_rsp_mock_server_LDADD = libgdbstub.la libregsets.la
tests_rsp_test_packet_SOURCES = tests/rsp/test_packet.c tests/tap.h
tests_rsp_test_packet_LDADD = libgdbstub.la libregsets.la
RSP_PY_TESTS = tests/rsp/test_rsp_codec.py tests/rsp/test_rsp_queries.py \
	tests/rsp/test_rsp_regs_mem.py tests/rsp/test_rsp_run.py
TESTS += tests/rsp/test_packet $(RSP_PY_TESTS)
EXTRA_DIST += tests/rsp/README.md tests/rsp/rspclient.py $(RSP_PY_TESTS)
