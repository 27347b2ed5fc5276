/* SPDX-License-Identifier: MIT */
/* The record model of a stop (doc/dump-format.md, doc/core-format.md):
 * what the one pass over the stopped threads (report/dump_out.c) hands to
 * every emitter. Built from sessions/ once; the emitters only format it. */
#ifndef ZESTUB_REPORT_RECORD_H
#define ZESTUB_REPORT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "regsets/regs.h"
#include "regsets/regs_catalog.h"
#include "sessions/sess_xpti.h"
#include "symbols/symbols.h"
#include "zetdebug/zd.h"

/* Register sets a record can carry: catalogue set indices 0..31. */
#define REPORT_MAX_SETS 32

enum dump_regs { DUMP_REGS_NONE, DUMP_REGS_EXPEDITED, DUMP_REGS_ALL };

/* One stopped thread. */
struct dump_thread {
    unsigned session;
    unsigned device; /* the device's index (struct zd_device) */
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
    /* Its device's register catalogue, and the register sets read for this
     * record, each once, for every emitter that asked (bit s of `read`:
     * set index s of cat is in set_data[s], set_size[s] bytes; of `failed`:
     * asked for and unreadable). Valid until the record has passed. */
    const struct regs_catalog *cat;
    uint32_t read, failed;
    const uint8_t *set_data[REPORT_MAX_SETS];
    size_t set_size[REPORT_MAX_SETS];
};

/* The register sets of cat that hold a register `which` prints. */
uint32_t report_sets_for(const struct regs_catalog *cat, enum dump_regs which);

/* A page fault of a device and the threads stopped at it. */
struct report_fault {
    unsigned session;
    unsigned device; /* the device's index */
    uint64_t addr;
    enum zd_fault_reason why;
    const struct zd_thread *threads; /* those stopped with the page-fault bit */
    unsigned nthreads;
    /* The XPTI allocation holding addr (doc/dump-format.md, "allocation"). */
    bool has_alloc;
    struct sess_xpti_alloc alloc;
};

/* The hang section (doc/dump-format.md, "Hang dumps"). */
enum report_hang_rule { REPORT_HANG_XPTI, REPORT_HANG_DEADLINE };

struct report_hang {
    enum report_hang_rule rule;
    double limit_s, running_s;
    unsigned in_flight; /* xpti: submissions begun and not ended */
    unsigned checks;    /* deadline: interrupts that found the device idle */
    bool has_task, has_site;
    struct xtab_task task;
    struct xtab_site site;
    bool kill_after; /* --after-hang kill */
};

/* How the document ends. */
struct report_end {
    int status;
    bool complete;
    unsigned nthreads;
    struct zd_stats zd;
    struct sess_stats sess; /* zeros at the watchdog's end (sessions may be locked) */
    const char *failure;    /* why no dump could be taken, or NULL */
    /* What the document lacks although it is complete: threads whose
     * registers could not all be read (and the last reason), and the
     * devices whose debug session was lost before or during the dump
     * (their threads are not in it). A reader of the document, not only
     * of zestub's stderr, must see them: `monitor dump` sends the document
     * to the client and nothing else. */
    unsigned reg_failures;
    const char *reg_error;
    unsigned nlost;
    const unsigned *lost_devices; /* device indices */
    bool launched;                /* launch mode */
    bool has_program;
    const char *program_path;
    int exit_code, signal;
    bool dumped;
};

#endif
