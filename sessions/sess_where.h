/* SPDX-License-Identifier: MIT */
/* "Where is this code?": a device address of one session as the module
 * that holds it, the kernel and function, and the source line when the
 * module's DWARF knows it. The one place that answers it, for the server's
 * monitor commands and thread names, breakpoints, the dumps and the cores. */
#ifndef ZESTUB_SESS_WHERE_H
#define ZESTUB_SESS_WHERE_H

#include <stdbool.h>
#include <stdint.h>

#include "sessions/sess.h"
#include "symbols/symbols.h"

struct sess_where {
    /* The module whose code holds the address: its ELF copy's range
     * (moduleBegin, moduleEnd of the load event) and its symbols. */
    uint64_t module_begin, module_end;
    const struct sym_module *sym;
    /* Kernel, function, file:line (loc.has_line says whether the line
     * table covers the address); the strings live as long as the module. */
    struct sym_location loc;
};

/* Where pc of session k is. 0, or -ENOENT when no loaded module with
 * symbols has a kernel holding pc (a data address, a module without an
 * ELF, a session out of range). */
int sess_where_pc(struct sess_manager *m, unsigned k, uint64_t pc, struct sess_where *out);

#endif
