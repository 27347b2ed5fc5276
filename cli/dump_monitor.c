/* SPDX-License-Identifier: MIT */
/* `monitor dump` in the GDB server: the dump of `zestub dump` (same human
 * format or JSON document, doc/dump-format.md) of the threads that are
 * stopped when the command runs, sent back through the connection. It
 * stops and resumes nothing: in all-stop every thread is stopped while GDB
 * is at its prompt; in non-stop only the stopped ones are dumped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/dump_out.h"
#include "gdbstub/packet.h"
#include "target/intelgt.h"

static int parse_args(const char *args, bool *json, enum dump_regs *regs, struct rsp_buf *out)
{
    char buf[128], *save = NULL, *w;
    snprintf(buf, sizeof(buf), "%s", args);
    *json = false;
    *regs = DUMP_REGS_EXPEDITED;
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, "--json") == 0)
            *json = true;
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

int cli_monitor_dump(void *arg, struct sess_manager *m, struct zd *zd, uint32_t host_pid,
                     const char *args, struct rsp_buf *out)
{
    enum dump_regs regs;
    struct dump_out *o;
    struct sess_xpti *x;
    struct timespec ts;
    char note[512], *text = NULL;
    size_t len = 0;
    bool json;
    FILE *f;

    (void)arg;
    if (parse_args(args, &json, &regs, out) < 0)
        return -1;
    f = open_memstream(&text, &len);
    if (!f || !(o = dump_out_open_stream(f, json, host_pid, "monitor", zd))) {
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
