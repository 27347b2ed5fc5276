/* SPDX-License-Identifier: MIT */
/* Target-description XML from a register catalogue: architecture intelgt,
 * osabi, Intel's <device> element, one feature per register set with its
 * vector types, registers in regnum order. Builds a string only. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regsets/tdesc_xml.h"

struct sbuf {
    char *data;
    size_t len, cap;
    bool oom;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *p;
        while (b->len + n + 1 > cap)
            cap *= 2;
        if (!(p = realloc(b->data, cap))) {
            b->oom = true;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        sb_put(b, small, (size_t)n);
        return;
    }
    {
        char *big = malloc((size_t)n + 1);
        if (!big) {
            b->oom = true;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb_put(b, big, (size_t)n);
        free(big);
    }
}

static void sb_escaped(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            sb_puts(b, "&lt;");
            break;
        case '>':
            sb_puts(b, "&gt;");
            break;
        case '&':
            sb_puts(b, "&amp;");
            break;
        case '"':
            sb_puts(b, "&quot;");
            break;
        case '\'':
            sb_puts(b, "&apos;");
            break;
        default:
            sb_put(b, s, 1);
        }
    }
}

static void device_element(struct sbuf *b, const struct regs_tdesc_device *d)
{
    sb_printf(b, "<device vendor-id=\"0x%04x\" target-id=\"0x%04x\" family=\"-\" model=\"-\"",
              (unsigned)d->vendor_id, (unsigned)d->device_id);
    sb_puts(b, " name=\"");
    sb_escaped(b, d->name ? d->name : "");
    sb_puts(b, "\" pci-slot=\"");
    sb_escaped(b, d->pci_slot && d->pci_slot[0] ? d->pci_slot : "0000:00:00.0");
    sb_puts(b, "\"");
    if (d->uuid) {
        /* Last byte first, as gdbserver-ze prints it. */
        sb_puts(b, " uuid=\"");
        for (int i = 15; i >= 0; i--)
            sb_printf(b, "%02x", (unsigned)d->uuid[i]);
        sb_puts(b, "\"");
    }
    sb_printf(b, " total-cores=\"%u\" total-threads=\"%u\"", (unsigned)d->total_cores,
              (unsigned)d->total_threads);
    if (d->subdevice_id >= 0)
        sb_printf(b, " subdevice-id=\"%d\"", (int)d->subdevice_id);
    sb_puts(b, "/>\n");
}

/* The registers [first, first + n) of one register set. */
static void feature(struct sbuf *b, const struct regs_catalog *c, size_t first, size_t n)
{
    char types[8][24];
    size_t ntypes = 0;

    /* The feature of a set is named after its type. */
    sb_printf(b, "<feature name=\"org.gnu.gdb.intelgt.%s\">\n",
              regs_type_name(regs_catalog_at(c, first)->regset_type));
    /* Each vector type once, declared before its first use. */
    for (size_t i = 0; i < n; i++) {
        const struct regs_reg *r = regs_catalog_at(c, first + i);
        char t[24];
        bool seen = false;
        regs_reg_xml_type(r, t, sizeof(t));
        if (strncmp(t, "vector", 6) != 0)
            continue;
        for (size_t k = 0; k < ntypes && !seen; k++)
            seen = strcmp(types[k], t) == 0;
        if (seen)
            continue;
        if (ntypes < 8)
            memcpy(types[ntypes++], t, sizeof(t));
        sb_printf(b, "<vector id=\"%s\" type=\"uint%u\" count=\"%u\"/>\n", t,
                  (unsigned)r->elem_bits, (unsigned)(r->bit_size / r->elem_bits));
    }
    for (size_t i = 0; i < n; i++) {
        const struct regs_reg *r = regs_catalog_at(c, first + i);
        char t[24];
        regs_reg_xml_type(r, t, sizeof(t));
        sb_printf(b, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%u\" group=\"%s\"",
                  r->name, (unsigned)r->bit_size, t, (unsigned)r->regnum,
                  regs_group_name(r->group));
        if (!r->writable)
            sb_puts(b, " save-restore=\"no\"");
        if (r->expedited)
            sb_puts(b, " expedited=\"yes\"");
        sb_puts(b, "/>\n");
    }
    sb_puts(b, "</feature>\n");
}

char *regs_tdesc_xml(const struct regs_catalog *c, const struct regs_tdesc_device *dev, size_t *len)
{
    struct sbuf b = {0};
    sb_puts(&b, "<?xml version=\"1.0\"?>\n"
                "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
                "<target version=\"1.0\">\n"
                "<architecture>intelgt</architecture>\n"
                "<osabi>GNU/Linux</osabi>\n");
    if (dev)
        device_element(&b, dev);
    /* One feature per register set: the registers of a set are numbered
     * together, in catalogue order. */
    for (size_t first = 0, n; first < regs_catalog_count(c); first += n) {
        unsigned set = regs_catalog_at(c, first)->regset;
        for (n = 1;
             first + n < regs_catalog_count(c) && regs_catalog_at(c, first + n)->regset == set; n++)
            ;
        feature(&b, c, first, n);
    }
    sb_puts(&b, "</target>\n");
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.data;
}
