/* SPDX-License-Identifier: MIT */
/* Code locations for the subscriber: which site an event belongs to and,
 * the first time, what the runtime says about it (doc/xpti-facts.md
 * section 6: kernel_name, sym_* and sycl_device* metadata). Only the public
 * XPTI ABI is used, so this works under any conforming framework. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/hash.h"
#include "xpti/subscriber.h"
#include "xpti/xpti_if.h"

/* Every instance of a location shares one key. A framework puts the ids of
 * the 128-bit key into the payload's legacy uid (file id << 32 | line,
 * function id) and flags it HashAvailable, but leaves the column out, so it
 * is added back here. A payload without that flag gets the default-mode key
 * computed here (FNV-1a-32 ids, "unknown"/"unknown-file" for what is
 * missing): the public ABI has no call that computes a key without
 * registering a new instance. The key only has to be the same for every
 * instance of a location within this table. */
static void site_key(const struct xpti_payload *p, uint64_t *k1, uint64_t *k2)
{
    uint32_t column = (p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE) ? p->column_no : 0;
    if (p->flags & XPTI_PAYLOAD_HASH_AVAILABLE) {
        *k1 = p->uid.p1;
        *k2 = (uint64_t)column << 32 | (uint32_t)p->uid.p2;
        return;
    }
    bool has_name = (p->flags & XPTI_PAYLOAD_NAME_AVAILABLE) && p->name;
    bool has_file = (p->flags & XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE) && p->source_file;
    uint32_t line = (p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE) ? p->line_no : 0;
    uint32_t name_id, file_id;
    xpti_fnv1a32_pair(has_name ? p->name : "unknown", has_file ? p->source_file : "unknown-file",
                      &name_id, &file_id);
    *k1 = (uint64_t)file_id << 32 | name_id;
    *k2 = (uint64_t)column << 32 | line;
}

/* What the runtime says about a site, gathered in one pass over the
 * event's metadata. Static buffers would race between application threads,
 * so this lives on the caller's stack. */
struct site_md {
    char kernel[XTAB_STRING_MAX], function[1024], file[XTAB_STRING_MAX];
    char device_name[256], device[256];
    uint32_t line, column;
    bool has_line, has_column;
};

/* A string-valued metadata object into out (empty if not text); integers
 * are printed, since sycl_device is a number in current runtimes. */
static void text_of(struct xpti_object_data d, char *out, size_t n)
{
    out[0] = 0;
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
 * in old ones. False when unreadable. */
static bool number_of(struct xpti_object_data d, uint32_t *out)
{
    if (!d.data)
        return false;
    if (d.type == XPTI_MD_STRING) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%.*s", (int)(d.size < sizeof(buf) ? d.size : 31), d.data);
        char *end;
        unsigned long v = strtoul(buf, &end, 10);
        *out = (uint32_t)v;
        return end != buf;
    }
    if (d.size == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, d.data, sizeof(v));
        *out = (uint32_t)v;
        return true;
    }
    if (d.size == sizeof(int32_t)) {
        int32_t v;
        memcpy(&v, d.data, sizeof(v));
        *out = (uint32_t)v;
        return true;
    }
    return false;
}

static void take_item(struct site_md *m, const char *key, xpti_object_id_t id)
{
    struct xpti_object_data d = xptiLookupObject(id);
    if (strcmp(key, "kernel_name") == 0)
        text_of(d, m->kernel, sizeof(m->kernel));
    else if (strcmp(key, "sym_function_name") == 0)
        text_of(d, m->function, sizeof(m->function));
    else if (strcmp(key, "sym_source_file_name") == 0)
        text_of(d, m->file, sizeof(m->file));
    else if (strcmp(key, "sycl_device_name") == 0)
        text_of(d, m->device_name, sizeof(m->device_name));
    else if (strcmp(key, "sycl_device") == 0)
        text_of(d, m->device, sizeof(m->device));
    else if (strcmp(key, "sym_line_no") == 0)
        m->has_line = number_of(d, &m->line) || m->has_line;
    else if (strcmp(key, "sym_column_no") == 0)
        m->has_column = number_of(d, &m->column) || m->has_column;
}

/* The event's metadata through the public C++ interface
 * (xptiLookupEvent(uid)->metadata(), first_item/next_item), which every
 * G3 framework gives; an event the framework cannot look up has none. */
static void read_metadata(const struct xpti_event *ev, struct site_md *m)
{
    struct xpti_metadata_if *md = xpti_if_event_metadata(ev->unique_id);
    if (!md)
        return;
    char *key = NULL;
    xpti_object_id_t id;
    for (xpti_result_t r = xpti_if_md_item(md, true, &key, &id); r == XPTI_RESULT_SUCCESS;
         r = xpti_if_md_item(md, false, &key, &id))
        if (key)
            take_item(m, key, id);
}

static uint32_t describe(struct xtab_w *w, const struct xpti_event *ev,
                         const struct xpti_payload *p, uint64_t k1, uint64_t k2)
{
    struct site_md m;
    memset(&m, 0, sizeof(m));
    read_metadata(ev, &m);
    bool has_line = p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE;
    bool has_col = p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE;
    struct xtab_site_in in = {
        .uid = ev->unique_id,
        .key1 = k1,
        .key2 = k2,
        .line = m.has_line ? m.line
                : has_line ? p->line_no
                           : 0,
        .column = m.has_column ? m.column
                  : has_col    ? p->column_no
                               : 0,
        .kernel = m.kernel,
        .function = m.function[0] ? m.function : p->name,
        .file = m.file[0] ? m.file : p->source_file,
        .device = m.device_name[0] ? m.device_name : m.device,
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
