/* SPDX-License-Identifier: MIT */
/* Writing a dump: the human format or the versioned JSON document of
 * doc/dump-format.md, streamed record by record so that an interrupted run
 * still leaves a well-formed document (marked incomplete). */
#ifndef ZESTUB_CLI_DUMP_OUT_H
#define ZESTUB_CLI_DUMP_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sessions/sess.h"
#include "sessions/sess_xpti.h"
#include "symbols/symbols.h"
#include "zetdebug/zd.h"

enum dump_regs { DUMP_REGS_NONE, DUMP_REGS_EXPEDITED, DUMP_REGS_ALL };

/* The attach form's statuses of a whole document: 0, and a dumped hang
 * (DUMP_EXIT_HANG in cli/dump.h). */
#define DUMP_OUT_STATUS_HANG 6
/* The report is whole; a --core file is what could not be written. */
#define DUMP_OUT_STATUS_CORE 7

struct dump_thread {
    unsigned session;
    uint32_t thread;
    struct zd_thread id;
    enum isa_stop_reason reason;
    bool has_pc;
    uint64_t pc;
    bool has_module;
    uint64_t module_begin, module_end;
    bool has_location;
    struct sym_location loc;
    /* From the XPTI table (NULL: no table, or no site of this kernel). */
    const struct sess_xpti_submission *submitted;
};

struct dump_out;

/* Onto a stream the caller keeps (and closes after dump_out_close). */
struct dump_out *dump_out_open_stream(FILE *f, bool json, uint32_t pid, const char *trigger,
                                      struct zd *zd);
/* json_path NULL: human format on stdout; "-": JSON on stdout. */
struct dump_out *dump_out_open(const char *json_path, uint32_t pid, const char *trigger,
                               struct zd *zd);
void dump_out_devices(struct dump_out *o, struct sess_manager *m);
/* The XPTI table section: x NULL means no table and `note` says why. x is
 * used by dump_out_faults to name allocations and must outlive it. */
void dump_out_xpti(struct dump_out *o, struct sess_xpti *x, const char *note);
void dump_out_faults(struct dump_out *o, struct sess_manager *m);
/* A section another file writes (the hang facts, cli/dump_hang.c), between
 * the devices and the XPTI section: fn gets the stream under the output
 * lock; in JSON it writes `,"name":value`. */
void dump_out_section(struct dump_out *o, void (*fn)(FILE *f, bool json, const void *ctx),
                      const void *ctx);
void dump_out_thread(struct dump_out *o, struct sess_manager *m, const struct dump_thread *t,
                     enum dump_regs regs);
/* Human format only: group the threads into classes (cli/dump_classes.h),
 * printed when dump_out_collect ends, instead of one record per thread. */
void dump_out_group(struct dump_out *o);
/* One record per stopped thread of every device (kernel, line, XPTI
 * submission when x has it, registers as asked). With PROGRESS (a stream,
 * or NULL), a line there once a second while it takes longer than one:
 * "N of M threads written". */
void dump_out_collect(struct dump_out *o, struct sess_manager *m, enum dump_regs regs,
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
/* Finishes the document with the exit status; frees o. */
void dump_out_close(struct dump_out *o, struct sess_manager *m, int status, bool complete);
/* From the watchdog: finish whatever section is open, mark the document
 * incomplete and flush. Does not free (the process is about to exit). */
void dump_out_abort(struct dump_out *o, int status);

#endif
