# SPDX-License-Identifier: MIT
# zestub merge: the per-rank dumps of a job read with a small JSON reader,
# grouped, and written as one report, one emitter per format. Links
# libreport.la (report/json.h) after it.
noinst_LTLIBRARIES += libmerge.la
libmerge_la_SOURCES = merge/json_parse.c merge/json_parse.h merge/merge.c merge/merge.h \
	merge/merge_class.c merge/merge_report.c merge/merge_report.h merge/merge_human.c merge/merge_json.c
EXTRA_DIST += merge/README.md
