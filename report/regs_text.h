/* SPDX-License-Identifier: MIT */
/* Register values as the dump's formats print them. */
#ifndef ZESTUB_REPORT_REGS_TEXT_H
#define ZESTUB_REPORT_REGS_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/record.h"

/* A value as a hexadecimal number, most significant digit first. */
void report_hex_value(FILE *f, const uint8_t *p, size_t n);
/* The bytes of register r of t when the record carries its set and the
 * set holds it; NULL otherwise. */
const uint8_t *report_reg_bytes(const struct dump_thread *t, const struct regs_reg *r);
/* Whether r is printed under --registers which. */
bool report_reg_printed(const struct regs_reg *r, enum dump_regs which);

#endif
