/* SPDX-License-Identifier: MIT */
/* qXfer reads (h_xfer.c). */
#ifndef ZESTUB_GDBSTUB_H_XFER_H
#define ZESTUB_GDBSTUB_H_XFER_H

#include <stdbool.h>

struct rsp_feature;
struct rsp_server;

/* Forgets, per connection, which threads the client was sent. */
extern const struct rsp_feature rsp_feature_thread_lists;
/* qXfer:features:read+: the client has a description to read (intelgt,
 * or the host-shaped one of hostview.c). */
bool rsp_xfer_features_offered(const struct rsp_server *s);
/* qXfer:siginfo:read+: the target can say why a thread stopped. */
bool rsp_xfer_siginfo_offered(const struct rsp_server *s);

#endif
