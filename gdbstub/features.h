/* SPDX-License-Identifier: MIT */
/* The features plugged into the loop (hooks.h), called in table order. */
#ifndef ZESTUB_GDBSTUB_FEATURES_H
#define ZESTUB_GDBSTUB_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "gdbstub/hooks.h"

void rsp_features_reset(struct rsp_server *s);
void rsp_features_client_gone(struct rsp_server *s);
void rsp_features_detaching(struct rsp_server *s, uint32_t pid);
bool rsp_features_want_events(const struct rsp_server *s);
/* The first verdict other than PASS, or PASS; negative on failure. */
int rsp_features_event(struct rsp_server *s, const struct rsp_event *ev);
int rsp_features_timeout_ms(struct rsp_server *s);
void rsp_features_expire(struct rsp_server *s);
void rsp_features_release(struct rsp_server *s);

#endif
