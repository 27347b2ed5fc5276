/* SPDX-License-Identifier: MIT */
/* The target's monitor commands: one row each (gdbstub/monitor.h). The
 * server matches commands against these rows and builds `monitor help`
 * from them, so a new command is one row here and one function. */
#include "target/tgt_int.h"

#include "target/tgt_monitor.h"

static int mon_threads(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_threads(t->m, t->xpti, args, out);
}

static int mon_thread(void *ctx, const char *args, struct rsp_buf *out)
{
    return tgt_monitor_thread(((struct tgt *)ctx)->m, args, out);
}

static int mon_modules(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_modules(t->m, t->xpti, args, out);
}

static int mon_devices(void *ctx, const char *args, struct rsp_buf *out)
{
    return tgt_monitor_devices(((struct tgt *)ctx)->m, args, out);
}

static int mon_xpti(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_xpti_status(t->xpti, t->m, args, out);
}

static int mon_xpti_tasks(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_xpti_tasks(t->xpti, t->m, args, out);
}

static int mon_xpti_uid(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_xpti_uid(t->xpti, t->m, args, out);
}

static int mon_xpti_allocations(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_xpti_allocations(t->xpti, t->m, args, out);
}

static int mon_dump(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_dump(t->m, t->zd, t->host_pid, args, out);
}

static int mon_core(void *ctx, const char *args, struct rsp_buf *out)
{
    struct tgt *t = ctx;
    return tgt_monitor_core(t->m, t->host_pid, t->client_confined, t->client_uid, args, out);
}

static const struct rsp_monitor_cmd commands[] = {
    {"threads", "threads [all] [by-site]",
     "thread counts per device by state, stop reason, kernel and\n"
     "line; by-site: under the host line that submitted the kernel (XPTI)",
     false, mon_threads},
    {"thread", "thread pP.T|P.T",
     "one thread: state, PC, kernel, file:line, stop reason\n"
     "(pP.T in hex as in the protocol, P.T in decimal as GDB's Thread P.T)",
     false, mon_thread},
    {"modules", "modules [all]",
     "modules per device: ELF range, load address, acknowledgement, kernels", false, mon_modules},
    {"devices", "devices", "attached devices: PCI slot, name, ids, topology, threads", false,
     mon_devices},
    {"xpti", "xpti", "the application's XPTI table: counters, page faults and their allocations",
     false, mon_xpti},
    {"xpti tasks", "xpti tasks [all]",
     "kernel task instances, running first, then recent ended ones", false, mon_xpti_tasks},
    {"xpti uid", "xpti uid 0xHEX",
     "the site of an XPTI id: kernel, file:line, function, device, tasks", false, mon_xpti_uid},
    {"xpti allocations", "xpti allocations [ADDRESS|all]",
     "the allocation containing ADDRESS (live or freed,\n"
     "where allocated and freed), or the live allocations",
     false, mon_xpti_allocations},
    {"dump", "dump [--json] [--registers none|expedited|all]",
     "the threads stopped now, as zestub dump prints them", true, mon_dump},
    {"core", "core [--light] [--memory SIZE] [--threads all|faulting|N] [--size SIZE] FILE",
     "GPU core files of the threads stopped now, for Intel's GDB's\n"
     "`target core FILE` (written by the server, on its machine; FILE.N per device)",
     true, mon_core},
};

const struct rsp_monitor_cmd *tgt_monitor_commands(void *ctx, size_t *n)
{
    (void)ctx;
    *n = sizeof(commands) / sizeof(commands[0]);
    return commands;
}
