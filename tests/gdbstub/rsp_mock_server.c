/* SPDX-License-Identifier: MIT */
/* Serves the mock target over RSP for the Python tests:
 *   rsp_mock_server [--attach PID] [--multi] [--once] [--trace]
 *                   [--without CAP[,CAP...]] [COMM]
 * COMM as zestub's: [HOST]:PORT (default ":0"), unix:PATH or "-". For TCP
 * and unix sockets the first line on stdout is "listening on PORT|PATH".
 * --without leaves capability tables of the mock out (libraries,
 * sw_breakpoints, monitor): what the server offers without them. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdbstub/server.h"
#include "gdbstub/transport.h"
#include "tests/gdbstub/mock_target.h"

/* SIGTERM (how the tests stop us) ends the server loop through wake_fd,
 * so main returns and a coverage build writes its counters. */
static int wake_pipe[2] = {-1, -1};

static void on_sigterm(int sig)
{
    char c = (char)sig;
    if (write(wake_pipe[1], &c, 1) < 0) {
        /* nothing more can be done in a signal handler */
    }
}

static void end_on_sigterm(struct rsp_server_config *cfg)
{
    struct sigaction sa;
    if (pipe2(wake_pipe, O_CLOEXEC) != 0)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigterm;
    sigaction(SIGTERM, &sa, NULL);
    cfg->wake_fd = wake_pipe[0];
}

/* Leaves out the mock's tables named in list (comma-separated). */
static int leave_out(struct rsp_target_ops *ops, const char *list)
{
    char names[128], *save = NULL;
    snprintf(names, sizeof(names), "%s", list);
    for (char *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        if (strcmp(n, "libraries") == 0)
            ops->libraries = NULL;
        else if (strcmp(n, "sw_breakpoints") == 0)
            ops->sw_breakpoints = NULL;
        else if (strcmp(n, "monitor") == 0)
            ops->monitor = NULL;
        else {
            fprintf(stderr, "--without: the mock has no table '%s'\n", n);
            return -EINVAL;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct rsp_server_config cfg = {.wake_fd = -1};
    const char *comm = ":0";
    long attach = 0;
    char err[RSP_ERR_LEN] = "";
    struct rsp_listener l;
    struct rsp_server *s = NULL;
    struct mock_target *m;
    struct rsp_target t;
    struct rsp_target_ops ops = *mock_target_ops();
    enum rsp_end why = RSP_END_DISCONNECT;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--attach") == 0 && i + 1 < argc)
            attach = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--multi") == 0)
            cfg.multi = true;
        else if (strcmp(argv[i], "--once") == 0)
            cfg.once = true;
        else if (strcmp(argv[i], "--trace") == 0)
            cfg.trace = stderr;
        else if (strcmp(argv[i], "--without") == 0 && i + 1 < argc) {
            if (leave_out(&ops, argv[++i]) < 0)
                return 2;
        } else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)
            comm = argv[i];
        else {
            fprintf(stderr,
                    "usage: %s [--attach PID] [--multi] [--once] [--trace] "
                    "[--without CAP[,CAP...]] [COMM]\n",
                    argv[0]);
            return 2;
        }
    }
    /* A client that vanishes must not kill us through a write to stdout. */
    signal(SIGPIPE, SIG_IGN);
    end_on_sigterm(&cfg);
    m = mock_target_new();
    if (!m) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    t.ops = &ops;
    t.ctx = m;
    if (rsp_server_new(&t, &cfg, &s, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        mock_target_free(m);
        return 1;
    }
    if (rsp_spec_is_nonlocal(comm))
        fprintf(stderr, "warning: listening on %s: anyone who can reach it controls the GPU\n",
                comm);
    if (rsp_listen(&l, comm, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        rsp_server_free(s);
        mock_target_free(m);
        return 1;
    }
    if (l.kind == RSP_TRANSPORT_TCP)
        printf("listening on %u\n", l.port);
    else if (l.kind == RSP_TRANSPORT_UNIX)
        printf("listening on %s\n", l.path);
    fflush(stdout);
    if (attach && rsp_server_attach(s, (uint32_t)attach, err, sizeof(err)) < 0)
        fprintf(stderr, "attach failed: %s\n", err);
    rc = rsp_server_serve(s, &l, &why, err, sizeof(err));
    if (rc < 0)
        fprintf(stderr, "%s\n", err);
    fprintf(stderr, "server ended: %s\n",
            why == RSP_END_EXIT         ? "exit"
            : why == RSP_END_DISCONNECT ? "disconnect"
            : why == RSP_END_WAKE       ? "signal"
                                        : "other");
    rsp_listener_close(&l);
    rsp_server_free(s);
    mock_target_free(m);
    return rc < 0 ? 1 : 0;
}
