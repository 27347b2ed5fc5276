/* SPDX-License-Identifier: MIT */
/* Target-description XML from a register catalogue (protocol 3.1-3.2):
 * regsets/tdesc_xml.c writes it; here the device comes from the target and
 * the document is cached per catalogue and device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server_state.h"
#include "gdbstub/tdesc.h"
#include "gdbstub/tdesc_cache.h"
#include "regsets/regs_catalog.h"
#include "regsets/tdesc_xml.h"

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
    {
        struct regs_tdesc_device rd = {.vendor_id = dev.vendor_id,
                                       .device_id = dev.device_id,
                                       .name = dev.name,
                                       .pci_slot = dev.pci_slot,
                                       .uuid = dev.has_uuid ? dev.uuid : NULL,
                                       .total_cores = dev.total_cores,
                                       .total_threads = dev.total_threads,
                                       .subdevice_id = dev.subdevice_id};
        size_t n = 0;
        /* regsets/ builds the document: the core writer embeds the same. */
        char *xml = regs_tdesc_xml(td.regs, has_dev ? &rd : NULL, &n);
        if (!xml) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        rsp_buf_put(out, xml, n);
        free(xml);
    }
    if (out->oom)
        return -1;
    {
        struct rsp_buf doc = {.data = out->data + start, .len = out->len - start};
        rsp_tdesc_cache_store(&s->tdesc_cache, td.regs, has_dev ? &dev : NULL, &doc);
    }
    return 0;
}
