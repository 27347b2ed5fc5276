/* SPDX-License-Identifier: MIT */
/* qRcmd: "monitor CMD". The server's own commands (help, exit) and the
 * target's (its monitor table, rsp_monitor_ops.commands) are rows of gdbstub/monitor.h;
 * this file matches a command against both tables, answers for rows that
 * need an attached process, and generates `monitor help` from the rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/monitor.h"
#include "gdbstub/handlers.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"

/* Continuation lines of a help text start under the first one's text. */
static const char help_indent[] = "                     ";

static int server_help(void *ctx, const char *args, struct rsp_buf *out);
static int server_exit(void *ctx, const char *args, struct rsp_buf *out);

static const struct rsp_monitor_cmd server_commands[] = {
    {"help", "help", "show this text", false, server_help},
    {"exit", "exit", "detach from every device and quit the server", false, server_exit},
};

static const struct rsp_monitor_cmd *target_commands(struct rsp_server *s, size_t *n)
{
    const struct rsp_monitor_cmd *t = NULL;
    *n = 0;
    if (s->target.ops->monitor)
        t = s->target.ops->monitor->commands(s->target.ctx, n);
    if (!t)
        *n = 0;
    return t;
}

static void put_rows(struct rsp_buf *out, const struct rsp_monitor_cmd *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *h = rows[i].help;
        rsp_buf_printf(out, "  %s -- ", rows[i].usage);
        for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1) {
            rsp_buf_put(out, h, (size_t)(nl - h));
            rsp_buf_printf(out, "\n%s", help_indent);
        }
        rsp_buf_printf(out, "%s\n", h);
    }
}

static int server_help(void *ctx, const char *args, struct rsp_buf *out)
{
    struct rsp_server *s = ctx;
    const struct rsp_monitor_cmd *t;
    size_t n;

    if (*args)
        return -ENOENT;
    t = target_commands(s, &n);
    rsp_buf_puts(out, "The following monitor commands are supported:\n");
    put_rows(out, server_commands, sizeof(server_commands) / sizeof(server_commands[0]));
    put_rows(out, t, n);
    return 0;
}

static int server_exit(void *ctx, const char *args, struct rsp_buf *out)
{
    struct rsp_server *s = ctx;
    (void)out;
    if (*args)
        return -ENOENT;
    /* As gdbserver: acknowledge, flush, then leave (detaching). */
    s->end_requested = true;
    s->end = RSP_END_EXIT;
    return 0;
}

/* Whether cmd starts with name, word for word (any run of spaces between
 * words); *rest is what follows, spaces skipped. */
static bool starts_with_words(const char *cmd, const char *name, const char **rest)
{
    while (*name) {
        if (*name == ' ') {
            if (*cmd != ' ')
                return false;
            while (*cmd == ' ')
                cmd++;
            name++;
        } else if (*cmd++ != *name++) {
            return false;
        }
    }
    if (*cmd && *cmd != ' ')
        return false;
    while (*cmd == ' ')
        cmd++;
    *rest = cmd;
    return true;
}

/* The command a row matched, and the context its function gets. */
struct match {
    const struct rsp_monitor_cmd *row;
    void *ctx;
    const char *args;
};

/* The row of rows[0..n) with the longest name that cmd starts with
 * replaces m's when its name is longer. */
static void best_row(const struct rsp_monitor_cmd *rows, size_t n, void *ctx, const char *cmd,
                     struct match *m)
{
    for (size_t i = 0; i < n; i++) {
        const char *rest;
        if (starts_with_words(cmd, rows[i].name, &rest) &&
            (!m->row || strlen(rows[i].name) > strlen(m->row->name))) {
            m->row = &rows[i];
            m->ctx = ctx;
            m->args = rest;
        }
    }
}

/* Runs cmd: 0 done, negative failed (the text in out says why). */
static int run(struct rsp_server *s, const char *cmd, struct rsp_buf *out)
{
    struct match m = {NULL, NULL, ""};
    const struct rsp_monitor_cmd *t;
    const char *words = cmd;
    size_t n;
    int rc;

    while (*words == ' ')
        words++;
    best_row(server_commands, sizeof(server_commands) / sizeof(server_commands[0]), s, words, &m);
    t = target_commands(s, &n);
    best_row(t, n, s->target.ctx, words, &m);
    if (m.row && m.row->needs_attach && s->target.ops->process_count(s->target.ctx) == 0) {
        rsp_buf_printf(out, "nothing is attached: no %s\n", m.row->name);
        return -EIO;
    }
    rc = m.row ? m.row->fn(m.ctx, m.args, out) : -ENOENT;
    if (rc == -ENOENT)
        rsp_buf_printf(out, "Unknown monitor command '%s'; try 'monitor help'.\n", cmd);
    return rc;
}

enum rsp_hresult rsp_h_rcmd(struct rsp_server *s, const char *arg, size_t len)
{
    struct rsp_buf out;
    char *cmd;
    int rc;

    if (len % 2 || !(cmd = malloc(len / 2 + 1))) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    if (!rsp_hex_decode(arg, len / 2, (uint8_t *)cmd) || memchr(cmd, 0, len / 2)) {
        free(cmd);
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    cmd[len / 2] = 0;
    rsp_buf_init(&out);
    rc = run(s, cmd, &out);
    if (out.len && !out.oom)
        rsp_console(s, out.data);
    rsp_buf_free(&out);
    /* A failed command has said why in the console text; its reply is OK
     * all the same. GDB 13 to 15 (Intel's GDB too) answer any E reply to
     * qRcmd with "Protocol error with Rcmd" after that text, and GDB 13
     * prints an E.text reply as hex-decoded garbage: neither tells the user
     * more than the text, and both read as a fault of the server. */
    if (rc != 0)
        rsp_logf(&s->cfg.log, RSP_LOG_DEBUG, "monitor '%s' failed (%d)", cmd, rc);
    rsp_reply_ok(&s->reply);
    free(cmd);
    return RSP_H_REPLY;
}
