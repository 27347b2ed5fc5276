/* SPDX-License-Identifier: MIT */
/* The GPU core writer's plan and parts (core_out.c), for its emitter
 * (emit_core.c): what goes into one device's core and where, written in
 * two steps: everything but the threads' notes first, then each thread's
 * note into its planned place as its record passes by. */
#ifndef ZESTUB_REPORT_CORE_PLAN_H
#define ZESTUB_REPORT_CORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "regsets/regs_catalog.h"
#include "report/core_io.h"
#include "report/core_mem.h"
#include "report/core_out.h"
#include "report/core_threads.h"
#include "report/record.h"
#include "sessions/sess.h"

struct code_range {
    uint64_t addr, size; /* on the device */
    uint64_t elf_off;    /* the same bytes in the module's ELF */
};

struct module {
    uint8_t *elf;
    size_t size;
    uint64_t begin, end; /* the ELF in the debuggee (its name) */
    uint64_t vaddr;      /* where the ELF sits in the core */
    uint64_t delta;      /* load address minus the ELF's first segment address */
    char name[64];
    struct code_range *code;
    size_t ncode;
};

struct plan {
    struct sess_manager *m;
    unsigned k;
    const struct core_opts *opts;
    FILE *log;
    struct core_mem mem;
    uint64_t mem_limit; /* the memory budget: --core-memory, or less under --core-size */
    const struct regs_catalog *cat; /* the pass's, not owned */
    struct sess_xpti *x;            /* the XPTI table (allocations), or NULL */
    char *xml;
    size_t xml_len;
    size_t reg_bytes;
    struct core_threads th;
    int signal; /* the process's: that of the first thread */
    bool has_fault;
    uint64_t fault_addr;
    enum zd_fault_reason fault_reason;
    struct module *mods;
    size_t nmods;
    size_t file_desc; /* NT_FILE descriptor bytes */
    char version[96];
    /* Once written (core_write_static): where the threads' notes start,
     * and the file's size. */
    uint64_t threads_off, size;
};

/* Plans session p->k's core (p->m, k, opts, log, cat, x set): its threads
 * in core order, modules, memory, within the bounds. 0, or -1 when out of
 * memory. p->th.n 0: no stopped thread. */
int core_plan_make(struct plan *p);
void core_plan_free(struct plan *p);

/* The ELF headers, the notes but the threads', the modules, their code and
 * the memory, at o (o->fd, fresh); the file's size set unless in_place.
 * 0, or -1 (libelf's reason on p->log); write errors in o->err. */
int core_write_static(struct plan *p, struct core_io *o, const char *path, bool in_place,
                      unsigned *from_elf, uint64_t *mem_unreadable);
/* Thread t's notes (status with its registers, siginfo) at o's position,
 * from its register sets (data[s] NULL: unreadable, zeros). */
void core_write_thread(struct core_io *o, const struct plan *p, const struct core_thread *t,
                       const uint8_t *const data[REPORT_MAX_SETS],
                       const size_t size[REPORT_MAX_SETS]);
/* The bytes of thread t's notes. */
uint64_t core_thread_note_size(const struct plan *p, const struct core_thread *t);
/* What could not be read, once each, after the core is written. */
void core_report_gaps(const struct plan *p, unsigned unreadable, unsigned from_elf,
                      uint64_t mem_unreadable);

#endif
