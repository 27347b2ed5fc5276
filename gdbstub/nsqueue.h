/* SPDX-License-Identifier: MIT */
/* The non-stop stop queue: stops waiting to be drained by vStopped, the
 * %Stop notification for its head, and the answer to '?' in non-stop. Used
 * by the non-stop feature (h_nonstop.c) and by '?' (h_run.c). */
#ifndef ZESTUB_GDBSTUB_NSQUEUE_H
#define ZESTUB_GDBSTUB_NSQUEUE_H

#include "gdbstub/handlers.h"

struct rsp_event;
struct rsp_server;

/* Queues a stop; sends %Stop when no notification is out. */
int rsp_nonstop_queue(struct rsp_server *s, const struct rsp_event *ev);
int rsp_nonstop_append(struct rsp_server *s, const struct rsp_event *ev);
/* '?' in non-stop: one stop per stopped thread, the first now. */
enum rsp_hresult rsp_nonstop_status(struct rsp_server *s);

#endif
