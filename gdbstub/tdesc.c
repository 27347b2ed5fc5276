/* SPDX-License-Identifier: MIT */
/* Target-description XML from a register catalogue (protocol 3.1-3.2):
 * architecture intelgt, osabi, Intel's <device> element, one feature per
 * register set with its vector types, registers in regnum order. */
#include <stdio.h>
#include <string.h>

#include "gdbstub/server_state.h"
#include "gdbstub/tdesc.h"
#include "gdbstub/tdesc_cache.h"
#include "regsets/regs_catalog.h"

void rsp_xml_escape(struct rsp_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            rsp_buf_puts(b, "&lt;");
            break;
        case '>':
            rsp_buf_puts(b, "&gt;");
            break;
        case '&':
            rsp_buf_puts(b, "&amp;");
            break;
        case '"':
            rsp_buf_puts(b, "&quot;");
            break;
        case '\'':
            rsp_buf_puts(b, "&apos;");
            break;
        default:
            rsp_buf_putc(b, *s);
        }
    }
}

static void device_element(struct rsp_buf *b, const struct rsp_device_info *d)
{
    rsp_buf_printf(b, "<device vendor-id=\"0x%04x\" target-id=\"0x%04x\" family=\"-\" model=\"-\"",
                   (unsigned)d->vendor_id, (unsigned)d->device_id);
    rsp_buf_puts(b, " name=\"");
    rsp_xml_escape(b, d->name);
    rsp_buf_puts(b, "\" pci-slot=\"");
    rsp_xml_escape(b, d->pci_slot[0] ? d->pci_slot : "0000:00:00.0");
    rsp_buf_putc(b, '"');
    if (d->has_uuid) {
        /* Last byte first, as gdbserver-ze prints it. */
        rsp_buf_puts(b, " uuid=\"");
        for (int i = 15; i >= 0; i--)
            rsp_buf_printf(b, "%02x", (unsigned)d->uuid[i]);
        rsp_buf_putc(b, '"');
    }
    rsp_buf_printf(b, " total-cores=\"%u\" total-threads=\"%u\"", (unsigned)d->total_cores,
                   (unsigned)d->total_threads);
    if (d->subdevice_id >= 0)
        rsp_buf_printf(b, " subdevice-id=\"%d\"", (int)d->subdevice_id);
    rsp_buf_puts(b, "/>\n");
}

/* The registers [first, first + n) of one register set. */
static void feature(struct rsp_buf *b, const struct regs_catalog *c, size_t first, size_t n)
{
    char types[8][24];
    size_t ntypes = 0;

    /* The feature of a set is named after its type, as regsets/ names it. */
    rsp_buf_printf(b, "<feature name=\"org.gnu.gdb.intelgt.%s\">\n",
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
        rsp_buf_printf(b, "<vector id=\"%s\" type=\"uint%u\" count=\"%u\"/>\n", t,
                       (unsigned)r->elem_bits, (unsigned)(r->bit_size / r->elem_bits));
    }
    for (size_t i = 0; i < n; i++) {
        const struct regs_reg *r = regs_catalog_at(c, first + i);
        char t[24];
        regs_reg_xml_type(r, t, sizeof(t));
        rsp_buf_printf(b, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%u\" group=\"%s\"",
                       r->name, (unsigned)r->bit_size, t, (unsigned)r->regnum,
                       regs_group_name(r->group));
        if (!r->writable)
            rsp_buf_puts(b, " save-restore=\"no\"");
        if (r->expedited)
            rsp_buf_puts(b, " expedited=\"yes\"");
        rsp_buf_puts(b, "/>\n");
    }
    rsp_buf_puts(b, "</feature>\n");
}

int rsp_tdesc_xml(struct rsp_server *s, uint32_t id, struct rsp_buf *out, char *err, size_t errlen)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_tdesc td;
    struct rsp_device_info dev;
    const struct rsp_buf *kept;
    bool has_dev;
    size_t start = out->len;

    memset(&dev, 0, sizeof(dev));
    dev.subdevice_id = -1;
    if (o->tdesc(s->target.ctx, id, &td) < 0 || !td.regs) {
        snprintf(err, errlen, "no target description %u", (unsigned)id);
        return -1;
    }
    has_dev = o->device_info(s->target.ctx, td.pid, &dev) == 0;
    /* The same registers and device give the same document. */
    kept = rsp_tdesc_cache_find(s->tdesc_cache, td.regs, has_dev ? &dev : NULL);
    if (kept) {
        rsp_buf_put(out, kept->data, kept->len);
        return out->oom ? -1 : 0;
    }
    rsp_buf_puts(out, "<?xml version=\"1.0\"?>\n"
                      "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
                      "<target version=\"1.0\">\n"
                      "<architecture>intelgt</architecture>\n"
                      "<osabi>GNU/Linux</osabi>\n");
    if (has_dev)
        device_element(out, &dev);
    /* One feature per register set: the registers of a set are numbered
     * together, in catalogue order. */
    for (size_t first = 0, n; first < regs_catalog_count(td.regs); first += n) {
        unsigned set = regs_catalog_at(td.regs, first)->regset;
        for (n = 1; first + n < regs_catalog_count(td.regs) &&
                    regs_catalog_at(td.regs, first + n)->regset == set;
             n++)
            ;
        feature(out, td.regs, first, n);
    }
    rsp_buf_puts(out, "</target>\n");
    if (out->oom)
        return -1;
    {
        struct rsp_buf doc = {.data = out->data + start, .len = out->len - start};
        rsp_tdesc_cache_store(&s->tdesc_cache, td.regs, has_dev ? &dev : NULL, &doc);
    }
    return 0;
}
