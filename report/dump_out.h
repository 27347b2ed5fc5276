/* SPDX-License-Identifier: MIT */
/* A dump: the document (its format an emitter, report/emitter.h) and,
 * when asked, the GPU cores, all fed by one pass over the stopped threads
 * (report/pass.h). Used by zestub dump (cli/) and by monitor dump and
 * monitor core (target/). The document is streamed record by record so
 * that an interrupted run still leaves a well-formed one (marked
 * incomplete); a file is written through report/outfile.h. */
#ifndef ZESTUB_REPORT_DUMP_OUT_H
#define ZESTUB_REPORT_DUMP_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/core_out.h"
#include "report/record.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"
#include "zetdebug/zd.h"

/* The attach form's statuses of a whole document: 0, and a dumped hang
 * (DUMP_EXIT_HANG in cli/dump.h). */
#define DUMP_OUT_STATUS_HANG 6
/* A report file could not be written: a --core file (the document is
 * whole), or the document itself (doc/dump-format.md). */
#define DUMP_OUT_STATUS_CORE 7

/* The document's format; report_format_emitter (dump_out.c) is the one
 * place that maps it to its emitter. */
enum report_format {
    REPORT_HUMAN,              /* threads in classes */
    REPORT_HUMAN_EVERY_THREAD, /* zestub dump --all-threads */
    REPORT_JSON,               /* doc/dump-format.md */
};

struct dump_out;

/* Onto a stream the caller keeps (and closes after dump_out_close). */
struct dump_out *dump_out_open_stream(FILE *f, enum report_format fmt, uint32_t pid,
                                      const char *trigger, struct zd *zd);
/* path NULL or "-": stdout; otherwise the file, through report/outfile.h.
 * NULL with the reason in why (and errno set) when it cannot be created. */
struct dump_out *dump_out_open(const char *path, enum report_format fmt, uint32_t pid,
                               const char *trigger, struct zd *zd, char *why, size_t whylen);
/* The devices; builds each one's register catalogue, once for the dump. */
void dump_out_devices(struct dump_out *o, struct sess_manager *m);
/* The hang section, between the devices and the XPTI section. */
void dump_out_hang(struct dump_out *o, const struct report_hang *h);
/* The XPTI table section: x NULL means no table and `note` says why. x is
 * used by dump_out_faults and dump_out_collect and must outlive them. */
void dump_out_xpti(struct dump_out *o, struct sess_xpti *x, const char *note);
void dump_out_faults(struct dump_out *o, struct sess_manager *m);
/* The next dump_out_collect also writes the GPU cores of PATH (--core). */
void dump_out_add_core(struct dump_out *o, const char *path, const struct core_opts *opts);
/* One record per stopped thread of every device (kernel, line, XPTI
 * submission when x has it, registers as asked), and the cores asked for,
 * in one pass. With PROGRESS (a stream, or NULL), a line there once a
 * second while it takes longer than one. 0, or -1 when a core could not
 * be written (said on stderr). */
int dump_out_collect(struct dump_out *o, struct sess_manager *m, enum dump_regs regs,
                     struct sess_xpti *x, uint64_t stop_ns, FILE *progress);
/* Launch mode (zestub dump -- PROGRAM): the job rank (-1: none) and host,
 * right after the header. */
void dump_out_launch(struct dump_out *o, long rank, const char *host);
/* Launch mode: how the program ended, written when the document closes.
 * exit_code in the shell's convention, signal 0 when it exited. */
void dump_out_program(struct dump_out *o, const char *path, int exit_code, int signal, bool dumped);
/* Why no dump could be taken (e.g. "no such process: 42"): the human
 * format's closing line says it, the JSON document's "error" field. */
void dump_out_fail(struct dump_out *o, const char *reason);
/* Finishes the document with the exit status; frees o. 0, or -1 when the
 * document could not be written whole (the reason on stderr; a file is
 * then removed, never left half-written under its name). */
int dump_out_close(struct dump_out *o, struct sess_manager *m, int status, bool complete);
/* From the watchdog: finish whatever section is open, mark the document
 * incomplete and flush. Does not free (the process is about to exit). */
void dump_out_abort(struct dump_out *o, int status);

#endif
