# SPDX-License-Identifier: MIT
# report/ on its own: the human dump's thread classes (report/dump_classes.c),
# linked from libreport.la. The rest of report/ is tested through the
# command (tests/cli/: test_dump*, test_core*).
check_PROGRAMS += tests/report/test_dump_classes
TESTS += tests/report/test_dump_classes
tests_report_test_dump_classes_SOURCES = tests/report/test_dump_classes.c tests/lib/tap.h
tests_report_test_dump_classes_LDADD = libreport.la libsessions.la libsymbols.la libregsets.la \
	libzetdebug.la libisa.la $(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += tests/report/README.md

# The human emitter with hostile names (terminal-safe text, issue 31 item 10).
check_PROGRAMS += tests/report/test_human_safe
TESTS += tests/report/test_human_safe
tests_report_test_human_safe_SOURCES = tests/report/test_human_safe.c tests/lib/tap.h
tests_report_test_human_safe_LDADD = $(tests_report_test_dump_classes_LDADD)

# The human emitter's page-fault lines (several addresses of one device).
check_PROGRAMS += tests/report/test_human_faults
TESTS += tests/report/test_human_faults
tests_report_test_human_faults_SOURCES = tests/report/test_human_faults.c tests/lib/tap.h
tests_report_test_human_faults_LDADD = $(tests_report_test_dump_classes_LDADD)

# report_json_str's escaping (every JSON string of a dump goes through it).
check_PROGRAMS += tests/report/test_json_str
TESTS += tests/report/test_json_str
tests_report_test_json_str_SOURCES = tests/report/test_json_str.c tests/lib/tap.h
tests_report_test_json_str_LDADD = $(tests_report_test_dump_classes_LDADD)

# The JSON emitter's records written by hand, submission texts written
# once per pass (bench/README.md, the JSON hang dump).
check_PROGRAMS += tests/report/test_json_record
TESTS += tests/report/test_json_record
tests_report_test_json_record_SOURCES = tests/report/test_json_record.c tests/lib/tap.h
tests_report_test_json_record_LDADD = $(tests_report_test_dump_classes_LDADD)
