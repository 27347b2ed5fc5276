/* SPDX-License-Identifier: MIT */
/* The RSP server: one poll loop over the client connection, the target's
 * event descriptor and an optional wake descriptor; all-stop state; stop
 * replies. The packets themselves are handled in the h_*.c files through
 * the table in dispatch.c. */
#ifndef ZESTUB_GDBSTUB_SERVER_H
#define ZESTUB_GDBSTUB_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gdbstub/log.h"
#include "gdbstub/server_config.h"
#include "gdbstub/target.h"
#include "gdbstub/transport.h"

struct rsp_server;

int rsp_server_new(const struct rsp_target *target, const struct rsp_server_config *cfg,
                   struct rsp_server **out, char *err, size_t errlen);
void rsp_server_free(struct rsp_server *s);
/* --attach PID before the first client: as vAttach, the stop is kept as
 * the answer to '?'. */
int rsp_server_attach(struct rsp_server *s, uint32_t host_pid, char *err, size_t errlen);
/* Serves one connection until it ends; the connection is not closed. On
 * a client disconnect the target's client_gone has been called. */
enum rsp_end rsp_server_run(struct rsp_server *s, struct rsp_conn *c, char *err, size_t errlen);
/* Accepts clients on l and serves them one after another; returns after
 * the first when cfg.once (or for "-"), on monitor exit, on wake, and
 * with cfg.end_when_nothing_left once a client's end leaves no device
 * attached (RSP_END_NOTHING_LEFT). A client that connects while another is served
 * is told so and closed (rsp_listener_turn_away).
 * 0, or a negative errno (err says why). */
int rsp_server_serve(struct rsp_server *s, struct rsp_listener *l, enum rsp_end *why, char *err,
                     size_t errlen);

#endif
