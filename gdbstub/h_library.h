/* SPDX-License-Identifier: MIT */
/* Modules as in-memory libraries (h_library.c). */
#ifndef ZESTUB_GDBSTUB_H_LIBRARY_H
#define ZESTUB_GDBSTUB_H_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>

struct rsp_buf;
struct rsp_feature;
struct rsp_server;

/* Library events, the acknowledgement clock, the end of a client. */
extern const struct rsp_feature rsp_feature_libraries;
/* Acknowledges every load of pid that waits, logging why. */
void rsp_libraries_ack_waiting(struct rsp_server *s, uint32_t pid, const char *why);
/* The qXfer:libraries:read document of device process pid. */
int rsp_libraries_xml(struct rsp_server *s, uint32_t pid, struct rsp_buf *out);

#endif
