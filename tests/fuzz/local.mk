# SPDX-License-Identifier: MIT
# Fuzz targets. As plain programs they replay mutations of a sound input in
# `make check`; `make fuzz-xtab` builds the libFuzzer version with clang
# (tests/fuzz/README.md).
check_PROGRAMS += tests/fuzz/fuzz_xtab
tests_fuzz_fuzz_xtab_LDADD = libxtab.la libxtab_writer.la $(PTHREAD_LIBS)
TESTS += tests/fuzz/fuzz_xtab
EXTRA_DIST += tests/fuzz/README.md tests/fuzz/plain.h

FUZZ_CC = clang
FUZZ_FLAGS = -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -DZESTUB_LIBFUZZER \
	-D_GNU_SOURCE -I$(top_srcdir) -I$(top_builddir)
.PHONY: fuzz-xtab
fuzz-xtab:
	$(MKDIR_P) tests/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o tests/fuzz/fuzz_xtab_libfuzzer \
		$(top_srcdir)/tests/fuzz/fuzz_xtab.c $(top_srcdir)/xpti/xtab_reader.c \
		$(top_srcdir)/xpti/xtab_records.c $(top_srcdir)/xpti/xtab_query.c \
		$(top_srcdir)/xpti/xtab_locate.c
	@echo "run: tests/fuzz/fuzz_xtab_libfuzzer -max_total_time=60 CORPUS_DIR"
CLEANFILES += tests/fuzz/fuzz_xtab_libfuzzer

# The RSP server against the mock target of tests/gdbstub.
check_PROGRAMS += tests/fuzz/fuzz_rsp
tests_fuzz_fuzz_rsp_SOURCES = tests/fuzz/fuzz_rsp.c tests/gdbstub/mock_target.c tests/gdbstub/mock_target.h
tests_fuzz_fuzz_rsp_LDADD = libgdbstub.la libregsets.la $(PTHREAD_LIBS)
# The connection's system calls are served from memory (fuzz_rsp.c says why).
FUZZ_RSP_WRAP = -Wl,--wrap=read,--wrap=write,--wrap=poll,--wrap=fcntl,--wrap=getsockopt,--wrap=close
tests_fuzz_fuzz_rsp_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_RSP_WRAP)
TESTS += tests/fuzz/fuzz_rsp
.PHONY: fuzz-rsp
# Only the server gets the fuzzer's coverage hooks. The harness (its check
# of the output, its in-memory connection) and the mock target are the
# fixture: instrumented, their loops (the mock fills half a megabyte of
# registers and memory at every attach) cost more than the server's work
# and flooded the corpus with features of their own. The harness keeps ASan
# and UBSan. The mock has no sanitizer: UBSan's checks kept its attach (it
# fills 376 KB of registers and memory) from being vectorized, which made
# it 17% of the program's instructions (5% without); ASan's interceptors
# still check the server's buffers it copies into and out of.
# A few of the server's byte loops over its own output (checksums, hex)
# get no coverage hooks: fuzz_rsp_cov_ignore.txt says why.
FUZZ_RSP_COV_IGNORE = -fsanitize-coverage-ignorelist=$(top_srcdir)/tests/fuzz/fuzz_rsp_cov_ignore.txt
EXTRA_DIST += tests/fuzz/fuzz_rsp_cov_ignore.txt
FUZZ_RSP_FIXTURE_FLAGS = -std=c11 -g -O2 -D_GNU_SOURCE -I$(top_srcdir) -I$(top_builddir)
fuzz-rsp: libgdbstub.la libregsets.la libisa.la
	$(MKDIR_P) tests/fuzz
	$(FUZZ_CC) $(FUZZ_RSP_FIXTURE_FLAGS) -c \
		-o tests/fuzz/fuzz_rsp_mock_target.o $(top_srcdir)/tests/gdbstub/mock_target.c
	$(FUZZ_CC) $(FUZZ_RSP_FIXTURE_FLAGS) -fsanitize=address,undefined -DZESTUB_LIBFUZZER -c \
		-o tests/fuzz/fuzz_rsp_harness.o $(top_srcdir)/tests/fuzz/fuzz_rsp.c
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_RSP_COV_IGNORE) -o tests/fuzz/fuzz_rsp_libfuzzer \
		tests/fuzz/fuzz_rsp_harness.o tests/fuzz/fuzz_rsp_mock_target.o \
		$(addprefix $(top_srcdir)/,$(filter %.c,$(libgdbstub_la_SOURCES) $(libregsets_la_SOURCES) $(libisa_la_SOURCES))) \
		$(FUZZ_RSP_WRAP) -lpthread
	@echo "run: tests/fuzz/fuzz_rsp_libfuzzer -max_total_time=60 -max_len=4096 CORPUS_DIR"
CLEANFILES += tests/fuzz/fuzz_rsp_libfuzzer tests/fuzz/fuzz_rsp_mock_target.o \
	tests/fuzz/fuzz_rsp_harness.o

# symbols/ on any bytes as a module ELF; the plain program mutates the debug
# zebins of tests/kernels/fixtures (gtsim's core writes them).
check_PROGRAMS += tests/fuzz/fuzz_symbols
tests_fuzz_fuzz_symbols_SOURCES = tests/fuzz/fuzz_symbols.c tests/lib/tap.h tests/lib/slurp.h
tests_fuzz_fuzz_symbols_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS)
tests_fuzz_fuzz_symbols_LDADD = libsymbols.la libgtsim_core.la $(LIBDWARF_LIBS) $(LIBELF_LIBS) \
	$(PTHREAD_LIBS)
TESTS += tests/fuzz/fuzz_symbols
.PHONY: fuzz-symbols
fuzz-symbols:
	$(MKDIR_P) tests/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS) \
		-o tests/fuzz/fuzz_symbols_libfuzzer $(top_srcdir)/tests/fuzz/fuzz_symbols.c \
		$(addprefix $(top_srcdir)/,$(filter %.c,$(libsymbols_la_SOURCES))) \
		$(LIBDWARF_LIBS) $(LIBELF_LIBS) -lpthread
	@echo "run: tests/fuzz/fuzz_symbols_libfuzzer -max_total_time=60 CORPUS_DIR"
CLEANFILES += tests/fuzz/fuzz_symbols_libfuzzer
# The seed corpora (tests/fuzz/README.md), replayed by `make check` and .ci/fuzz.sh.
EXTRA_DIST += tests/fuzz/corpus

# The debuggee side of gtsim's debug wire: gtsim's driver sources are compiled
# into the program so the endpoint lives in the fuzzer's own process.
check_PROGRAMS += tests/fuzz/fuzz_gtsim_wire
# gtsim_wire_direct.c serves most sessions without a socket: it compiles its
# own copy of gtsim/dbg_server.c's connection loop and serves the connection's
# recvmsg, sendmsg and close, and those of the event descriptors it passes, from
# memory (the wrap below; other descriptors get the real calls).
FUZZ_WIRE_WRAP = -Wl,--wrap=recvmsg,--wrap=sendmsg,--wrap=close
# The plain program's main (fuzz_gtsim_wire_main.c) is its own file; the
# libFuzzer build below takes the rest: the session and its promises
# (fuzz_gtsim_wire.c) and the debuggee they talk to (gtsim_wire_world.c).
tests_fuzz_fuzz_gtsim_wire_SOURCES = tests/fuzz/fuzz_gtsim_wire_main.c tests/lib/tap.h \
	tests/lib/slurp.h tests/fuzz/fuzz_gtsim_wire.c tests/fuzz/fuzz_gtsim_wire.h \
	tests/fuzz/gtsim_wire_world.c tests/fuzz/gtsim_wire_world.h \
	tests/fuzz/gtsim_wire_direct.c tests/fuzz/gtsim_wire_direct.h \
	$(libze_gtsim_la_SOURCES)
tests_fuzz_fuzz_gtsim_wire_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS) $(LIBELF_CFLAGS)
tests_fuzz_fuzz_gtsim_wire_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_WIRE_WRAP)
tests_fuzz_fuzz_gtsim_wire_LDADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)
TESTS += tests/fuzz/fuzz_gtsim_wire
.PHONY: fuzz-gtsim-wire
fuzz-gtsim-wire:
	$(MKDIR_P) tests/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(ZE_CFLAGS) $(LIBELF_CFLAGS) \
		-o tests/fuzz/fuzz_gtsim_wire_libfuzzer $(top_srcdir)/tests/fuzz/fuzz_gtsim_wire.c \
		$(top_srcdir)/tests/fuzz/gtsim_wire_world.c $(top_srcdir)/tests/fuzz/gtsim_wire_direct.c \
		$(addprefix $(top_srcdir)/,$(filter %.c,$(libze_gtsim_la_SOURCES) $(libgtsim_core_la_SOURCES))) \
		$(LIBELF_LIBS) $(FUZZ_WIRE_WRAP) -lpthread
	@echo "run: tests/fuzz/fuzz_gtsim_wire_libfuzzer -max_total_time=60 CORPUS_DIR"
CLEANFILES += tests/fuzz/fuzz_gtsim_wire_libfuzzer

# What `zestub merge` reads: any bytes as a JSON document for merge/json_parse.c
# or as one rank's dump for merge's reader (merge_read_text); the plain
# program mutates the corpus's real dumps.
check_PROGRAMS += tests/fuzz/fuzz_merge_json
tests_fuzz_fuzz_merge_json_SOURCES = tests/fuzz/fuzz_merge_json.c tests/lib/tap.h tests/lib/slurp.h
tests_fuzz_fuzz_merge_json_LDADD = libmerge.la libreport.la
TESTS += tests/fuzz/fuzz_merge_json
.PHONY: fuzz-merge-json
# -fno-sanitize-recover: UBSan otherwise only prints (a float conversion out
# of range, say) and the run passes; here undefined behaviour is a crash, as
# in CI's sanitizer tree.
fuzz-merge-json:
	$(MKDIR_P) tests/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fno-sanitize-recover=undefined \
		-o tests/fuzz/fuzz_merge_json_libfuzzer $(top_srcdir)/tests/fuzz/fuzz_merge_json.c \
		$(addprefix $(top_srcdir)/,$(filter %.c,$(libmerge_la_SOURCES)) report/json.c report/safe_text.c)
	@echo "run: tests/fuzz/fuzz_merge_json_libfuzzer -max_total_time=60 CORPUS_DIR"
CLEANFILES += tests/fuzz/fuzz_merge_json_libfuzzer
