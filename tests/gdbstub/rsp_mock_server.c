/* SPDX-License-Identifier: MIT */
/* Serves the mock target over RSP for the Python tests:
 *   rsp_mock_server [--attach PID] [--multi] [--once] [--trace] [COMM]
 * COMM as zestub's: [HOST]:PORT (default ":0"), unix:PATH or "-". For TCP
 * and unix sockets the first line on stdout is "listening on PORT|PATH". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server.h"
#include "gdbstub/transport.h"
#include "tests/gdbstub/mock_target.h"

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
        else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)
            comm = argv[i];
        else {
            fprintf(stderr, "usage: %s [--attach PID] [--multi] [--once] [--trace] [COMM]\n",
                    argv[0]);
            return 2;
        }
    }
    /* A client that vanishes must not kill us through a write to stdout. */
    signal(SIGPIPE, SIG_IGN);
    m = mock_target_new();
    if (!m) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    t.ops = mock_target_ops();
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
                                        : "other");
    rsp_listener_close(&l);
    rsp_server_free(s);
    mock_target_free(m);
    return rc < 0 ? 1 : 0;
}
