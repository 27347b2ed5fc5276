/* SPDX-License-Identifier: MIT */
/* qXfer reads (h_xfer.c). */
#ifndef ZESTUB_GDBSTUB_H_XFER_H
#define ZESTUB_GDBSTUB_H_XFER_H

struct rsp_feature;
struct rsp_server;

/* Forgets, per connection, which threads the client was sent. */
extern const struct rsp_feature rsp_feature_thread_lists;

#endif
