/* SPDX-License-Identifier: MIT */
#include "gdbstub/target_check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "gdbstub/target.h"

/* One function the target must have: in which table ("" for the required
 * ops), its name, and whether it is there. */
struct need {
    const char *table, *op;
    bool there;
};

#define REQUIRED(op)                                                                               \
    {                                                                                              \
        "", #op, o->op != NULL                                                                     \
    }
/* Only asked of a table that is present. */
#define IN_TABLE(t, op)                                                                            \
    {                                                                                              \
#t, #op, !o->t || o->t->op != NULL                                                         \
    }

int rsp_target_check(const struct rsp_target_ops *o, char *err, size_t errlen)
{
    if (!o) {
        snprintf(err, errlen, "target interface incomplete: no ops");
        return -EINVAL;
    }
    const struct need needs[] = {
        REQUIRED(attach),
        REQUIRED(process_count),
        REQUIRED(process_at),
        REQUIRED(thread_info),
        REQUIRED(tdesc),
        REQUIRED(device_info),
        REQUIRED(read_register),
        REQUIRED(write_register),
        REQUIRED(read_memory),
        REQUIRED(write_memory),
        REQUIRED(resume),
        REQUIRED(interrupt),
        REQUIRED(detach),
        REQUIRED(event_fd),
        REQUIRED(next_event),
        REQUIRED(client_gone),
        IN_TABLE(libraries, library_count),
        IN_TABLE(libraries, library_at),
        IN_TABLE(libraries, ack_library),
        IN_TABLE(sw_breakpoints, insert),
        IN_TABLE(sw_breakpoints, remove),
        IN_TABLE(sw_breakpoints, thread_pc),
        IN_TABLE(sw_breakpoints, kernel_entries),
        IN_TABLE(programs, create),
        IN_TABLE(programs, release),
        IN_TABLE(programs, kill),
        IN_TABLE(programs, program_status),
        IN_TABLE(non_stop, set_non_stop),
        IN_TABLE(monitor, commands),
        IN_TABLE(thread_names, thread_name),
        IN_TABLE(siginfo, thread_siginfo),
        IN_TABLE(exits, process_exited),
    };

    for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
        const struct need *n = &needs[i];
        if (n->there)
            continue;
        if (n->table[0])
            snprintf(err, errlen,
                     "target interface incomplete: the %s table has no %s (a capability's "
                     "table must have every function, or be left out)",
                     n->table, n->op);
        else
            snprintf(err, errlen, "target interface incomplete: no %s", n->op);
        return -EINVAL;
    }
    return 0;
}
