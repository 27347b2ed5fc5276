/* SPDX-License-Identifier: MIT */
/* `monitor dump` and `monitor core`: the report layer's dump (the format
 * of `zestub dump`, doc/dump-format.md) and GPU cores (doc/core-format.md)
 * of the threads stopped when the command runs, through the connection or
 * into files on the server's machine. Neither stops nor resumes anything:
 * in all-stop every thread is stopped while GDB is at its prompt; in
 * non-stop only the stopped ones are written. Intel's GDB has its own
 * `gcore` switched off for the GPU; `monitor core` is the one its users
 * get. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdbstub/confine.h"
#include "gdbstub/packet.h"
#include "report/core_out.h"
#include "report/dump_out.h"
#include "sessions/sess_xpti.h"
#include "target/tgt_monitor.h"

static int dump_args(const char *args, enum report_format *fmt, enum dump_regs *regs,
                     struct rsp_buf *out)
{
    char buf[128], *save = NULL, *w;
    snprintf(buf, sizeof(buf), "%s", args);
    *fmt = REPORT_HUMAN_EVERY_THREAD;
    *regs = DUMP_REGS_EXPEDITED;
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, "--json") == 0)
            *fmt = REPORT_JSON;
        else if (strcmp(w, "--registers") == 0 || strncmp(w, "--registers=", 12) == 0) {
            const char *v = w[11] == '=' ? w + 12 : strtok_r(NULL, " ", &save);
            if (v && strcmp(v, "none") == 0)
                *regs = DUMP_REGS_NONE;
            else if (v && strcmp(v, "expedited") == 0)
                *regs = DUMP_REGS_EXPEDITED;
            else if (v && strcmp(v, "all") == 0)
                *regs = DUMP_REGS_ALL;
            else {
                rsp_buf_puts(out, "monitor dump: --registers takes none, expedited or all\n");
                return -1;
            }
        } else {
            rsp_buf_printf(out,
                           "monitor dump: unknown argument '%.40s' "
                           "(use: dump [--json] [--registers none|expedited|all])\n",
                           w);
            return -1;
        }
    }
    return 0;
}

int tgt_monitor_dump(struct sess_manager *m, struct zd *zd, uint32_t host_pid, const char *args,
                     struct rsp_buf *out)
{
    enum report_format fmt;
    enum dump_regs regs;
    struct dump_out *o;
    struct sess_xpti *x;
    struct timespec ts;
    char note[512], *text = NULL;
    size_t len = 0;
    FILE *f;

    if (dump_args(args, &fmt, &regs, out) < 0)
        return -1;
    f = open_memstream(&text, &len);
    if (!f || !(o = dump_out_open_stream(f, fmt, host_pid, "monitor", zd))) {
        if (f)
            fclose(f);
        free(text);
        rsp_buf_puts(out, "monitor dump: out of memory\n");
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    dump_out_devices(o, m);
    x = sess_xpti_open(host_pid, note, sizeof(note));
    dump_out_xpti(o, x, note);
    dump_out_faults(o, m);
    dump_out_collect(o, m, regs, x, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, NULL);
    dump_out_close(o, m, 0, true);
    sess_xpti_close(x);
    fclose(f);
    rsp_buf_put(out, text ? text : "", len);
    free(text);
    return 0;
}

#define CORE_MONITOR_USAGE                                                                         \
    "use: core [--light] [--memory SIZE] [--threads all|faulting|N] [--size SIZE|unlimited] FILE"

/* One option word (and its value from save); 0, or -1 with why in out. */
static int parse_word(const char *w, char **save, struct core_opts *co, struct rsp_buf *out)
{
    const char *v, *want;
    int rc;
    if (!strcmp(w, "--light")) {
        co->faulting_only = true;
        co->mem_limit = 0;
        return 0;
    }
    if (strcmp(w, "--memory") && strcmp(w, "--threads") && strcmp(w, "--size")) {
        rsp_buf_printf(out, "monitor core: unknown option '%.40s' (" CORE_MONITOR_USAGE ")\n", w);
        return -1;
    }
    v = strtok_r(NULL, " ", save);
    if (w[2] == 'm') {
        want = "a size: 0, 4096, 512K, 64M, 2G";
        rc = v ? core_parse_size(v, &co->mem_limit) : -1;
    } else if (w[2] == 's') {
        want = "a size of at least 4K (64K, 512M, 2G) or unlimited";
        rc = v ? core_parse_size_limit(v, &co->size_limit) : -1;
    } else {
        want = "all, faulting or a number of threads";
        rc = v ? core_parse_threads(v, co) : -1;
    }
    if (rc != 0)
        rsp_buf_printf(out, "monitor core: %s takes %s\n", w, want);
    return rc;
}

static int core_args(const char *args, struct core_opts *co, char *file, size_t len,
                     struct rsp_buf *out)
{
    char buf[4200], *save = NULL, *w;
    snprintf(buf, sizeof(buf), "%s", args);
    file[0] = '\0';
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (w[0] == '-' && w[1] == '-') {
            if (parse_word(w, &save, co, out) != 0)
                return -1;
        } else if (!file[0] && strlen(w) < len) {
            snprintf(file, len, "%s", w);
        } else {
            rsp_buf_printf(out, "monitor core: one FILE only (" CORE_MONITOR_USAGE ")\n");
            return -1;
        }
    }
    if (!file[0]) {
        rsp_buf_puts(out, "monitor core: a FILE is needed (" CORE_MONITOR_USAGE ")\n");
        return -1;
    }
    return 0;
}

/* A client of another user (--allow-any-user) writes only inside the
 * server's working directory: gdbstub/confine.h. */
static int confined_path(bool confined, uint32_t uid, const char *file, struct rsp_buf *out)
{
    char why[4096 + 512];
    if (rsp_confine_check_write(confined, (uid_t)uid, "monitor core", file, why, sizeof(why)) == 0)
        return 0;
    rsp_buf_printf(out, "%s\n", why);
    return -1;
}

int tgt_monitor_core(struct sess_manager *m, uint32_t host_pid, bool confined, uint32_t uid,
                     const char *args, struct rsp_buf *out)
{
    struct core_opts co = {.mem_limit = CORE_DEFAULT_MEM_LIMIT,
                           .size_limit = CORE_DEFAULT_SIZE_LIMIT};
    char file[4096], note[512], *text = NULL;
    size_t len = 0;
    int rc;

    if (core_args(args, &co, file, sizeof(file), out) != 0 ||
        confined_path(confined, uid, file, out) != 0)
        return -1;
    if (!(co.log = open_memstream(&text, &len))) {
        rsp_buf_puts(out, "monitor core: out of memory\n");
        return -1;
    }
    co.xpti = sess_xpti_open(host_pid, note, sizeof(note));
    rc = core_write_all(m, file, &co);
    sess_xpti_close(co.xpti);
    fclose(co.log);
    rsp_buf_put(out, text ? text : "", len);
    free(text);
    return rc == 0 ? 0 : -1;
}
