/* SPDX-License-Identifier: MIT */
/* GDB's `run` over target extended-remote: vRun and what GDB sends before
 * it (QEnvironmentHexEncoded, QEnvironmentUnset, QEnvironmentReset,
 * QSetWorkingDir, QStartupWithShell), and vKill of the program it started.
 * Starting the program is the target's (its programs table): the server only
 * decodes the request, attaches as for vAttach and answers. */
#include "gdbstub/h_vrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/attach.h"
#include "gdbstub/h_run_entry.h"
#include "gdbstub/handlers.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/threadid.h"

/* What the client set for the programs it runs; kept for the server's
 * lifetime, as gdbserver keeps its environment across connections. */
struct rsp_run_state {
    char **env; /* "NAME=VALUE" (set) or "NAME" (unset), one per name */
    size_t nenv;
    char *cwd;   /* NULL: the server's own directory */
    char **last; /* the last program and arguments run (NULL-terminated) */
    bool shell;  /* QStartupWithShell: recorded, never used (see README) */
};

static struct rsp_run_state *state(struct rsp_server *s)
{
    if (!s->run)
        s->run = calloc(1, sizeof(*s->run));
    return s->run;
}

static void free_argv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void env_clear(struct rsp_run_state *r)
{
    for (size_t i = 0; i < r->nenv; i++)
        free(r->env[i]);
    free(r->env);
    r->env = NULL;
    r->nenv = 0;
}

static void run_release(struct rsp_server *s)
{
    if (!s->run)
        return;
    env_clear(s->run);
    free(s->run->cwd);
    free_argv(s->run->last);
    free(s->run);
    s->run = NULL;
}

const struct rsp_feature rsp_feature_run = {
    .name = "run",
    .release = run_release,
};

/* len hex digits as a NUL-terminated string; NULL when they are not hex,
 * an odd count, or hold a NUL byte. */
static char *unhex(const char *hex, size_t len)
{
    char *out;
    if (len % 2)
        return NULL;
    out = malloc(len / 2 + 1);
    if (!out)
        return NULL;
    if (!rsp_hex_decode(hex, len / 2, (uint8_t *)out) || memchr(out, 0, len / 2)) {
        free(out);
        return NULL;
    }
    out[len / 2] = '\0';
    return out;
}

/* Replaces the entry for the same name (set or unset) or appends. */
static bool env_put(struct rsp_run_state *r, char *entry)
{
    size_t nl = strcspn(entry, "=");
    char **grown;
    for (size_t i = 0; i < r->nenv; i++)
        if (strcspn(r->env[i], "=") == nl && !strncmp(r->env[i], entry, nl)) {
            free(r->env[i]);
            r->env[i] = entry;
            return true;
        }
    grown = realloc(r->env, (r->nenv + 1) * sizeof(*grown));
    if (!grown)
        return false;
    r->env = grown;
    r->env[r->nenv++] = entry;
    return true;
}

/* A confined client (confine.h) may not run programs, and what it sets
 * must not reach the programs the server's own user runs later (the
 * settings outlive the connection): answered OK, as its GDB expects before
 * the vRun that is refused with the reason, and not kept. */
static bool ignore_confined(struct rsp_server *s)
{
    if (!s->conn || !s->conn->confined)
        return false;
    rsp_reply_ok(&s->reply);
    return true;
}

static enum rsp_hresult env_change(struct rsp_server *s, const char *arg, size_t len, bool set)
{
    if (ignore_confined(s))
        return RSP_H_REPLY;
    struct rsp_run_state *r = state(s);
    char *entry = r ? unhex(arg, len) : NULL;
    size_t nl = entry ? strcspn(entry, "=") : 0;
    /* A name, and for a set a value after '=': anything else is refused. */
    if (!entry || nl == 0 || (set ? entry[nl] != '=' : entry[nl] != '\0') || !env_put(r, entry)) {
        free(entry);
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_env_set(struct rsp_server *s, const char *arg, size_t len)
{
    return env_change(s, arg, len, true);
}

enum rsp_hresult rsp_h_env_unset(struct rsp_server *s, const char *arg, size_t len)
{
    return env_change(s, arg, len, false);
}

enum rsp_hresult rsp_h_env_reset(struct rsp_server *s, const char *arg, size_t len)
{
    if (ignore_confined(s))
        return RSP_H_REPLY;
    if (s->run)
        env_clear(s->run);
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_set_cwd(struct rsp_server *s, const char *arg, size_t len)
{
    if (ignore_confined(s))
        return RSP_H_REPLY;
    struct rsp_run_state *r = state(s);
    char *dir = len ? unhex(arg, len) : NULL;
    if (!r || (len && !dir)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    /* Empty: back to the server's own directory. */
    free(r->cwd);
    r->cwd = dir;
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_startup_shell(struct rsp_server *s, const char *arg, size_t len)
{
    if (ignore_confined(s))
        return RSP_H_REPLY;
    struct rsp_run_state *r = state(s);
    if (!r || len != 1 || (arg[0] != '0' && arg[0] != '1')) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    r->shell = arg[0] == '1';
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

static char **dup_argv(char *const *v)
{
    size_t n = 0;
    char **out;
    while (v[n])
        n++;
    out = calloc(n + 1, sizeof(*out));
    for (size_t i = 0; out && i < n; i++)
        if (!(out[i] = strdup(v[i]))) {
            free_argv(out);
            return NULL;
        }
    return out;
}

/* "PROG-hex;ARG-hex;..." into a NULL-terminated argv; an empty program
 * is the last one run (gdbserver's default), with the new arguments if
 * any were given. NULL and *why on failure. */
static char **parse_run(struct rsp_run_state *r, const char *arg, size_t len, const char **why)
{
    size_t n = 1;
    const char *p = arg, *end = arg + len;
    char **argv, *prog;
    for (size_t i = 0; i < len; i++)
        n += arg[i] == ';';
    argv = calloc(n + 1, sizeof(*argv));
    if (!argv)
        return *why = "out of memory", NULL;
    for (size_t i = 0; i < n; i++) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi ? semi : end;
        if (!(argv[i] = unhex(p, (size_t)(stop - p)))) {
            free_argv(argv);
            return *why = "vRun: a program or argument that is not hex-encoded text", NULL;
        }
        p = semi ? semi + 1 : end;
    }
    if (argv[0][0])
        return argv;
    if (!r->last || n == 1) { /* no program, no arguments: the last run again */
        free_argv(argv);
        if (!r->last)
            return *why = "no program to run: name one (set remote exec-file PROGRAM)", NULL;
        argv = dup_argv(r->last);
        return argv ? argv : (*why = "out of memory", NULL);
    }
    if (!(prog = strdup(r->last[0]))) {
        free_argv(argv);
        return *why = "out of memory", NULL;
    }
    free(argv[0]);
    argv[0] = prog;
    return argv;
}

/* A client of another user let in by --allow-any-user would start the
 * program as the server's user (root, often): refused unless the user
 * opted in (confine.h). True when refused, the reply and log written. */
static bool refuse_confined(struct rsp_server *s)
{
    char why[RSP_ERR_LEN], who[32] = "of an unknown user";
    if (!s->conn || !s->conn->confined)
        return false;
    if (s->conn->peer_known)
        snprintf(who, sizeof(who), "uid %u", (unsigned)s->conn->peer_uid);
    snprintf(why, sizeof(why),
             "vRun refused: this client is %s, not the server's user; --allow-any-user "
             "lets other users debug, not start programs as the server's user "
             "(--allow-any-user-unconfined allows it)",
             who);
    rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "%s", why);
    rsp_reply_attach_error(s, &s->reply, why);
    return true;
}

/* Keeps argv as the program an empty vRun runs again. */
static void remember(struct rsp_run_state *r, char **argv)
{
    free_argv(r->last);
    r->last = argv;
}

enum rsp_hresult rsp_h_vrun(struct rsp_server *s, const char *arg, size_t len)
{
    const struct rsp_target_ops *o = s->target.ops;
    const struct rsp_programs_ops *prog = o->programs;
    struct rsp_run_state *r = state(s);
    struct rsp_run_request req;
    const char *why = NULL;
    char err[RSP_ERR_LEN * 2] = "";
    uint32_t host = 0;
    char **argv;

    if (refuse_confined(s))
        return RSP_H_REPLY;
    /* Answered only when offered (offers.c): o->programs is there. */
    argv = r ? parse_run(r, arg, len, &why) : NULL;
    if (!argv) {
        rsp_reply_attach_error(s, &s->reply, why ? why : "out of memory");
        return RSP_H_REPLY;
    }
    if (o->process_count(s->target.ctx) > 0) {
        /* One process at a time, as for vAttach: the same message. */
        rsp_do_attach(s, s->attached_host, &s->reply);
        free_argv(argv);
        return RSP_H_REPLY;
    }
    /* Kept even if it fails to start: an empty vRun tries it again. */
    remember(r, argv);
    req = (struct rsp_run_request){argv, r->env, r->nenv, r->cwd};
    s->xfer_valid = false;
    if (prog->create(s->target.ctx, &req, &host, err, sizeof(err)) < 0) {
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "vRun %s failed: %s", argv[0], err);
        rsp_reply_attach_error(s, &s->reply, err[0] ? err : "cannot start the program");
        return RSP_H_REPLY;
    }
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "vRun: started %s, process %u", argv[0], (unsigned)host);
    if (rsp_do_attach(s, host, &s->reply) < 0) {
        prog->release(s->target.ctx, host, false);
        return RSP_H_REPLY;
    }
    s->run_host = host;
    /* No kernel runs yet, so the attach stop names an unavailable thread:
     * a client that cannot parse U (stock GDB, which would take it for a
     * failed run) gets a plain stop of a thread, as for '?'. */
    if (!s->client_intelgt && !s->non_stop && s->have_stop &&
        s->last_stop.kind == RSP_EVENT_UNAVAILABLE) {
        rsp_buf_clear(&s->reply);
        s->have_stop = false;
        rsp_h_status(s, "", 0);
    }
    /* Released only once attached: its first module load waits for the
     * client like any other. */
    prog->release(s->target.ctx, host, true);
    /* Intel's GDB reads the new thread's PC before anything runs: answer
     * with the first thread at a kernel's entry instead. */
    if (s->client_intelgt && !s->non_stop && s->have_stop &&
        s->last_stop.kind == RSP_EVENT_UNAVAILABLE)
        return rsp_run_to_entry(s);
    return RSP_H_REPLY;
}

bool rsp_run_is_ours(struct rsp_server *s, int64_t wire_pid)
{
    if (!s->run_host || s->attached_host != s->run_host ||
        s->target.ops->process_count(s->target.ctx) == 0)
        return false;
    if (wire_pid <= 0 || (uint64_t)wire_pid == s->run_host)
        return true;
    return rsp_find_process(s, (uint32_t)rsp_pid_from_wire(s, wire_pid), NULL) ||
           rsp_process_exited(s, rsp_pid_from_wire(s, wire_pid));
}

enum rsp_hresult rsp_h_vkill(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    char err[RSP_ERR_LEN] = "";
    uint32_t host = s->run_host;
    uint64_t pid;

    /* Only a program vRun started is killed; a process GDB attached to is
     * detached instead (qAttached said 1), so this is E01 for it. */
    if (!rsp_parse_hex(&p, end, &pid) || p != end || pid > INT32_MAX ||
        !rsp_run_is_ours(s, (int64_t)pid)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    rsp_h_detach(s, "", 0); /* every device: resumed, nothing left stopped */
    s->run_host = 0;
    rsp_buf_clear(&s->reply);
    /* run_host is set only by a vRun, which the programs table served. */
    if (s->target.ops->programs->kill(s->target.ctx, host, err, sizeof(err)) < 0) {
        rsp_reply_error(s, err);
        return RSP_H_REPLY;
    }
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "killed process %u", (unsigned)host);
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}
