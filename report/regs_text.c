/* SPDX-License-Identifier: MIT */
#include "report/regs_text.h"

/* Formatted here and written at once: a JSON dump prints five registers of
 * every thread, and one fprintf per byte was a tenth of its time. */
void report_hex_value(FILE *f, const uint8_t *p, size_t n)
{
    static const char digit[] = "0123456789abcdef";
    char text[2 + 2 * 64 + 1], *q = text;
    *q++ = '0';
    *q++ = 'x';
    for (size_t i = n; i-- > 0;) {
        *q++ = digit[p[i] >> 4];
        *q++ = digit[p[i] & 15];
        if ((size_t)(q - text) > sizeof(text) - 3) { /* a register wider than 64 bytes */
            fwrite(text, 1, (size_t)(q - text), f);
            q = text;
        }
    }
    fwrite(text, 1, (size_t)(q - text), f);
}

const uint8_t *report_reg_bytes(const struct dump_thread *t, const struct regs_reg *r)
{
    if (r->regset >= REPORT_MAX_SETS || !(t->read & (1u << r->regset)) ||
        (size_t)(r->index + 1) * r->byte_size > t->set_size[r->regset])
        return NULL;
    return t->set_data[r->regset] + (size_t)r->index * r->byte_size;
}

bool report_reg_printed(const struct regs_reg *r, enum dump_regs which)
{
    return which == DUMP_REGS_ALL || (which == DUMP_REGS_EXPEDITED && r->expedited);
}

uint32_t report_sets_for(const struct regs_catalog *cat, enum dump_regs which)
{
    uint32_t sets = 0;
    for (size_t i = 0; cat && i < regs_catalog_count(cat); i++) {
        const struct regs_reg *r = regs_catalog_at(cat, i);
        if (report_reg_printed(r, which) && r->regset < REPORT_MAX_SETS)
            sets |= 1u << r->regset;
    }
    return sets;
}
