/* SPDX-License-Identifier: MIT */
/* Target-description XML from a register catalogue (tdesc.c). */
#ifndef ZESTUB_GDBSTUB_TDESC_H
#define ZESTUB_GDBSTUB_TDESC_H

#include <stddef.h>
#include <stdint.h>

struct rsp_buf;
struct rsp_server;

/* The target-description XML of tdesc id. */
int rsp_tdesc_xml(struct rsp_server *s, uint32_t id, struct rsp_buf *out, char *err, size_t errlen);
void rsp_xml_escape(struct rsp_buf *b, const char *s);

#endif
