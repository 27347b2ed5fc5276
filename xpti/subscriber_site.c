/* SPDX-License-Identifier: MIT */
/* Code locations for the subscriber: which site an event belongs to and,
 * the first time, what the runtime says about it (doc/xpti-facts.md
 * section 6: kernel_name, sym_* and sycl_device* metadata). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/subscriber.h"

/* Every instance of a location shares one key. Our dispatcher puts the ids
 * of the 128-bit key into the payload's legacy uid (file id << 32 | line,
 * function id) but leaves the column out, so it is added back here. */
static void site_key(const struct xpti_payload *p, uint64_t *k1, uint64_t *k2)
{
    uint32_t column = (p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE) ? p->column_no : 0;
    if (p->flags & XPTI_PAYLOAD_HASH_AVAILABLE) {
        *k1 = p->uid.p1;
        *k2 = (uint64_t)column << 32 | (uint32_t)p->uid.p2;
        return;
    }
    struct xpti_uid128 key = xpti_make_key(p->name, p->source_file, p->line_no, column);
    *k1 = key.p1;
    *k2 = key.p2;
}

/* A string-valued metadata item into out (empty if absent or not text). */
static void text_of(const struct xpti_event *ev, const char *key, char *out, size_t n)
{
    xpti_object_id_t id;
    out[0] = 0;
    if (xpti_metadata_get(ev, key, &id) != XPTI_RESULT_SUCCESS)
        return;
    struct xpti_object_data d = xptiLookupObject(id);
    if (!d.data)
        return;
    if (d.type == XPTI_MD_STRING || d.type == XPTI_MD_BINARY) {
        size_t len = strnlen(d.data, d.size);
        snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), d.data);
    } else if ((d.type == XPTI_MD_SIGNED_INTEGER || d.type == XPTI_MD_UNSIGNED_INTEGER) &&
               d.size == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, d.data, sizeof(v));
        snprintf(out, n, "%lld", (long long)v);
    }
}

/* Integers come as 4- or 8-byte values in current runtimes and as strings
 * in old ones. Returns `fallback` when absent or unreadable. */
static uint32_t number_of(const struct xpti_event *ev, const char *key, uint32_t fallback)
{
    xpti_object_id_t id;
    if (xpti_metadata_get(ev, key, &id) != XPTI_RESULT_SUCCESS)
        return fallback;
    struct xpti_object_data d = xptiLookupObject(id);
    if (!d.data)
        return fallback;
    if (d.type == XPTI_MD_STRING) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%.*s", (int)(d.size < sizeof(buf) ? d.size : 31), d.data);
        char *end;
        unsigned long v = strtoul(buf, &end, 10);
        return end != buf ? (uint32_t)v : fallback;
    }
    if (d.size == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, d.data, sizeof(v));
        return (uint32_t)v;
    }
    if (d.size == sizeof(int32_t)) {
        int32_t v;
        memcpy(&v, d.data, sizeof(v));
        return (uint32_t)v;
    }
    return fallback;
}

static uint32_t describe(struct xtab_w *w, const struct xpti_event *ev,
                         const struct xpti_payload *p, uint64_t k1, uint64_t k2)
{
    /* Static buffers would race between application threads. */
    char kernel[XTAB_STRING_MAX], function[1024], file[XTAB_STRING_MAX], device[256];
    text_of(ev, "kernel_name", kernel, sizeof(kernel));
    text_of(ev, "sym_function_name", function, sizeof(function));
    text_of(ev, "sym_source_file_name", file, sizeof(file));
    text_of(ev, "sycl_device_name", device, sizeof(device));
    if (!device[0])
        text_of(ev, "sycl_device", device, sizeof(device));
    bool has_line = p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE;
    bool has_col = p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE;
    struct xtab_site_in in = {
        .uid = ev->unique_id,
        .key1 = k1,
        .key2 = k2,
        .line = number_of(ev, "sym_line_no", has_line ? p->line_no : 0),
        .column = number_of(ev, "sym_column_no", has_col ? p->column_no : 0),
        .kernel = kernel,
        .function = function[0] ? function : p->name,
        .file = file[0] ? file : p->source_file,
        .device = device,
    };
    return xtab_w_site_add(w, &in);
}

uint32_t sub_site_of(struct xtab_w *w, const struct xpti_event *ev)
{
    const struct xpti_payload *p = ev ? ev->reserved.payload : NULL;
    if (!p || !(ev->flags & XPTI_EVENT_PAYLOAD_AVAILABLE))
        return XTAB_NONE;
    uint64_t k1, k2;
    site_key(p, &k1, &k2);
    uint32_t site = xtab_w_site_find(w, k1, k2);
    return site != XTAB_NONE ? site : describe(w, ev, p, k1, k2);
}
