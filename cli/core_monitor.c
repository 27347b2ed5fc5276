/* SPDX-License-Identifier: MIT */
/* `monitor core [OPTIONS] FILE` in the GDB server: the cores of
 * `zestub dump --core` (doc/core-format.md) of the threads stopped now,
 * written by the server on its own machine. Intel's GDB has its own
 * `gcore` switched off for the GPU; this is the one its users get. Like
 * `monitor dump` it stops and resumes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/core_out.h"
#include "gdbstub/packet.h"
#include "sessions/sess_xpti.h"

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

static int parse_args(const char *args, struct core_opts *co, char *file, size_t len,
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

int cli_monitor_core(void *arg, struct sess_manager *m, struct zd *zd, uint32_t host_pid,
                     const char *args, struct rsp_buf *out)
{
    struct core_opts co = {.mem_limit = CORE_DEFAULT_MEM_LIMIT,
                           .size_limit = CORE_DEFAULT_SIZE_LIMIT};
    struct sess_xpti *x;
    char file[4096], note[512], *text = NULL;
    size_t len = 0;
    int rc;

    (void)arg;
    (void)zd;
    if (parse_args(args, &co, file, sizeof(file), out) != 0)
        return -1;
    if (!(co.log = open_memstream(&text, &len))) {
        rsp_buf_puts(out, "monitor core: out of memory\n");
        return -1;
    }
    x = sess_xpti_open(host_pid, note, sizeof(note));
    co.xtab = x ? sess_xpti_table(x) : NULL;
    rc = core_write_all(m, file, &co);
    sess_xpti_close(x);
    fclose(co.log);
    rsp_buf_put(out, text ? text : "", len);
    free(text);
    return rc == 0 ? 0 : -1;
}
