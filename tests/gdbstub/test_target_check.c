/* SPDX-License-Identifier: MIT */
/* The capability tables of gdbstub/target.h as rsp_server_new checks them
 * (gdbstub/target_check.c): the mock's tables and a target with every
 * table are accepted; a table with any one function missing, a missing
 * required op and no ops at all are refused with -EINVAL and a sentence
 * that names what is missing, before anything could call it. What each
 * table offers a client is test_rsp_offers.py's. */
#include <errno.h>
#include <string.h>

#include "gdbstub/server.h"
#include "tests/gdbstub/mock_target.h"
#include "tests/lib/tap.h"

/* Functions for the tables the mock does not have; never called. */
static int d_create(void *ctx, const struct rsp_run_request *req, uint32_t *host_pid, char *err,
                    size_t errlen)
{
    (void)ctx, (void)req, (void)host_pid, (void)err, (void)errlen;
    return -ENOSYS;
}
static void d_release(void *ctx, uint32_t host_pid, bool attached)
{
    (void)ctx, (void)host_pid, (void)attached;
}
static int d_kill(void *ctx, uint32_t host_pid, char *err, size_t errlen)
{
    (void)ctx, (void)host_pid, (void)err, (void)errlen;
    return -ENOSYS;
}
static int d_status(void *ctx, uint32_t host_pid, int *code, int *signal)
{
    (void)ctx, (void)host_pid, (void)code, (void)signal;
    return -ENOSYS;
}
static void d_set_non_stop(void *ctx, bool on)
{
    (void)ctx, (void)on;
}
static int d_thread_name(void *ctx, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
    (void)ctx, (void)pid, (void)tid, (void)buf, (void)len;
    return -1;
}
static int d_siginfo(void *ctx, uint32_t pid, uint32_t tid, uint8_t *buf, size_t len, char *err,
                     size_t errlen)
{
    (void)ctx, (void)pid, (void)tid, (void)buf, (void)len, (void)err, (void)errlen;
    return -1;
}
static bool d_exited(void *ctx, uint32_t pid)
{
    (void)ctx, (void)pid;
    return false;
}

static const struct rsp_programs_ops programs = {d_create, d_release, d_kill, d_status};
static const struct rsp_non_stop_ops non_stop = {d_set_non_stop};
static const struct rsp_thread_names_ops thread_names = {d_thread_name};
static const struct rsp_siginfo_ops siginfo = {d_siginfo};
static const struct rsp_exits_ops exits = {d_exited};

static struct mock_target *mock;

/* rsp_server_new with ops: 0, or the error and its text in err. */
static int server_new(const struct rsp_target_ops *ops, char *err, size_t errlen)
{
    struct rsp_target t = {ops, mock};
    struct rsp_server *s = (struct rsp_server *)&t; /* must become NULL on failure */
    int rc;
    err[0] = 0;
    rc = rsp_server_new(&t, NULL, &s, err, errlen);
    if (rc == 0)
        rsp_server_free(s);
    else if (s)
        rc = 1; /* a refusal that left *out set: counted as a failure */
    return rc;
}

static void refused(const struct rsp_target_ops *ops, const char *table, const char *op)
{
    char err[RSP_ERR_LEN] = "", want[96];
    if (table[0])
        snprintf(want, sizeof(want), "the %s table has no %s", table, op);
    else
        snprintf(want, sizeof(want), "no %s", op);
    tap_ok(server_new(ops, err, sizeof(err)) == -EINVAL && strstr(err, want) &&
               strstr(err, "target interface incomplete"),
           "%s%s%s missing: refused (%s)", table, table[0] ? "->" : "", op, err);
}

/* A copy of full whose table TBL (of TYPE) lacks OP. */
#define HALF(full, tbl, type, op)                                                                  \
    do {                                                                                           \
        type half_ = *(full).tbl;                                                                  \
        struct rsp_target_ops o_ = (full);                                                         \
        half_.op = NULL;                                                                           \
        o_.tbl = &half_;                                                                           \
        refused(&o_, #tbl, #op);                                                                   \
    } while (0)

int main(void)
{
    struct rsp_target_ops full, o;
    char err[RSP_ERR_LEN] = "";

    tap_plan(23);
    mock = mock_target_new();
    if (!mock)
        return 1;
    tap_ok(server_new(mock_target_ops(), err, sizeof(err)) == 0,
           "the mock's tables are accepted (%s)", err);
    full = *mock_target_ops();
    full.programs = &programs;
    full.non_stop = &non_stop;
    full.thread_names = &thread_names;
    full.siginfo = &siginfo;
    full.exits = &exits;
    tap_ok(server_new(&full, err, sizeof(err)) == 0, "a target with every table is accepted (%s)",
           err);

    HALF(full, libraries, struct rsp_libraries_ops, library_count);
    HALF(full, libraries, struct rsp_libraries_ops, library_at);
    HALF(full, libraries, struct rsp_libraries_ops, ack_library);
    HALF(full, sw_breakpoints, struct rsp_sw_breakpoints_ops, insert);
    HALF(full, sw_breakpoints, struct rsp_sw_breakpoints_ops, remove);
    HALF(full, sw_breakpoints, struct rsp_sw_breakpoints_ops, thread_pc);
    HALF(full, sw_breakpoints, struct rsp_sw_breakpoints_ops, kernel_entries);
    HALF(full, programs, struct rsp_programs_ops, create);
    HALF(full, programs, struct rsp_programs_ops, release);
    HALF(full, programs, struct rsp_programs_ops, kill);
    HALF(full, programs, struct rsp_programs_ops, program_status);
    HALF(full, non_stop, struct rsp_non_stop_ops, set_non_stop);
    HALF(full, monitor, struct rsp_monitor_ops, commands);
    HALF(full, thread_names, struct rsp_thread_names_ops, thread_name);
    HALF(full, siginfo, struct rsp_siginfo_ops, thread_siginfo);
    HALF(full, exits, struct rsp_exits_ops, process_exited);

    o = full;
    o.client_gone = NULL;
    refused(&o, "", "client_gone");
    o = full;
    o.attach = NULL;
    refused(&o, "", "attach");
    tap_ok(server_new(NULL, err, sizeof(err)) == -EINVAL && strstr(err, "no ops"),
           "no ops at all: refused (%s)", err);

    /* Leaving a table out is always fine: it is simply not offered. */
    o = full;
    o.libraries = NULL;
    o.sw_breakpoints = NULL;
    o.programs = NULL;
    tap_ok(server_new(&o, err, sizeof(err)) == 0, "tables left out: accepted (%s)", err);
    o = full;
    o.monitor = NULL;
    o.non_stop = NULL;
    o.thread_names = NULL;
    o.siginfo = NULL;
    o.exits = NULL;
    tap_ok(server_new(&o, err, sizeof(err)) == 0, "the other tables left out: accepted (%s)", err);
    mock_target_free(mock);
    return tap_done();
}
