/* SPDX-License-Identifier: MIT */
/* qXfer reads: features (target.xml, target-id-N.xml), threads, exec-file,
 * libraries (h_library.c builds the list).
 * A document is built when offset 0 is asked for and served in pieces from
 * that snapshot, so a list never tears between two packets. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/h_library.h"
#include "gdbstub/h_xfer.h"
#include "gdbstub/handlers.h"
#include "gdbstub/hooks.h"
#include "gdbstub/hostview.h"
#include "gdbstub/output.h"
#include "gdbstub/progress.h"
#include "gdbstub/server_state.h"
#include "gdbstub/tdesc.h"
#include "gdbstub/threadid.h"

/* The sent-list entry of pid, sized for n threads (reset when n changed). */
static struct rsp_sent_proc *sent_for(struct rsp_server *s, uint32_t pid, uint32_t n)
{
    struct rsp_sent_proc *e = NULL, *grown;
    for (size_t i = 0; i < s->nsent; i++)
        if (s->sent[i].pid == pid)
            e = &s->sent[i];
    if (!e) {
        grown = realloc(s->sent, (s->nsent + 1) * sizeof(*s->sent));
        if (!grown)
            return NULL;
        s->sent = grown;
        e = &s->sent[s->nsent++];
        memset(e, 0, sizeof(*e));
        e->pid = pid;
    }
    if (e->n != n) {
        uint32_t *t = calloc(n ? n : 1, sizeof(*t));
        if (!t)
            return NULL;
        free(e->tdesc);
        e->tdesc = t;
        e->n = n;
    }
    return e;
}

/* Forgets processes no longer attached. */
static void forget_stale(struct rsp_server *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nsent; i++) {
        if (rsp_find_process(s, s->sent[i].pid, NULL))
            s->sent[k++] = s->sent[i];
        else
            free(s->sent[i].tdesc);
    }
    s->nsent = k;
}

static void free_sent(struct rsp_server *s)
{
    for (size_t i = 0; i < s->nsent; i++)
        free(s->sent[i].tdesc);
    free(s->sent);
    s->sent = NULL;
    s->nsent = 0;
}

/* A new client has been sent nothing and has no document in pieces. */
static void reset(struct rsp_server *s)
{
    s->delta_threads = false;
    s->xfer_valid = false;
    free_sent(s);
}

const struct rsp_feature rsp_feature_thread_lists = {
    .name = "thread lists",
    .reset = reset,
    .release = free_sent,
};

/* "ANNEX:OFFSET,LENGTH" */
static bool parse_xfer(const char *arg, size_t len, char *annex, size_t annex_size, uint64_t *off,
                       uint64_t *n)
{
    const char *colon = memchr(arg, ':', len), *p, *end = arg + len;
    size_t al;

    if (!colon)
        return false;
    al = (size_t)(colon - arg);
    if (al >= annex_size)
        return false;
    memcpy(annex, arg, al);
    annex[al] = 0;
    p = colon + 1;
    if (!rsp_parse_hex(&p, end, off) || p >= end || *p != ',')
        return false;
    p++;
    return rsp_parse_hex(&p, end, n) && p == end;
}

/* A snapshot this large is handed back to the system once served. */
#define XFER_TRIM_BYTES (1u << 20)

static void serve(struct rsp_server *s, uint64_t off, uint64_t n)
{
    const struct rsp_buf *d = &s->xfer_doc;
    size_t k;

    if (off >= d->len) {
        rsp_buf_puts(&s->reply, "l");
        return;
    }
    k = d->len - (size_t)off;
    if (n < k)
        k = (size_t)n;
    rsp_buf_putc(&s->reply, off + k < d->len ? 'm' : 'l');
    rsp_buf_bin(&s->reply, (const uint8_t *)d->data + off, k);
    /* The last piece is out: the snapshot goes (a thread list of 65,536
     * threads is 3.5 MB). A client that reads again from the middle gets
     * a fresh one. */
    if (off + k >= d->len) {
        bool big = s->xfer_doc.cap >= XFER_TRIM_BYTES;
        rsp_buf_free(&s->xfer_doc);
        s->xfer_valid = false;
#ifdef __GLIBC__
        /* glibc keeps a freed large block in the heap for reuse (its mmap
         * threshold follows the sizes freed): give it back. */
        if (big)
            malloc_trim(0);
#else
        (void)big;
#endif
    }
}

/* Builds the document of key with build() when asked from offset 0 or when
 * the snapshot is of something else. */
static enum rsp_hresult xfer(struct rsp_server *s, const char *key, uint64_t off, uint64_t n,
                             int (*build)(struct rsp_server *s, const char *annex,
                                          struct rsp_buf *out, char *err, size_t errlen),
                             const char *annex)
{
    if (off == 0 || !s->xfer_valid || strcmp(s->xfer_key, key) != 0) {
        char e[RSP_ERR_LEN] = "";
        rsp_buf_clear(&s->xfer_doc);
        s->xfer_valid = false;
        if (build(s, annex, &s->xfer_doc, e, sizeof(e)) < 0 || s->xfer_doc.oom) {
            rsp_reply_error(s, s->xfer_doc.oom ? "out of memory" : e);
            return RSP_H_REPLY;
        }
        snprintf(s->xfer_key, sizeof(s->xfer_key), "%s", key);
        s->xfer_valid = true;
    }
    serve(s, off, n);
    return RSP_H_REPLY;
}

static int build_features(struct rsp_server *s, const char *annex, struct rsp_buf *out, char *e,
                          size_t elen)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_thread_info ti;
    uint32_t pid, tid;
    unsigned long id;
    char *end;

    if (!s->client_intelgt)
        return rsp_hostview_tdesc(s, annex, out);
    if (strcmp(annex, "target.xml") == 0) {
        /* The tdesc of the Hg thread (protocol 3.5). */
        if (!rsp_resolve_thread(s, s->g, &pid, &tid) ||
            o->thread_info(s->target.ctx, pid, tid, &ti) < 0)
            return -1;
        return rsp_tdesc_xml(s, ti.tdesc, out, e, elen);
    }
    if (strncmp(annex, "target-id-", 10) != 0 || annex[10] < '0' || annex[10] > '9')
        return -1;
    id = strtoul(annex + 10, &end, 10);
    if (strcmp(end, ".xml") != 0 || id == 0 || id > UINT32_MAX)
        return -1;
    return rsp_tdesc_xml(s, (uint32_t)id, out, e, elen);
}

enum rsp_hresult rsp_h_xfer_features(struct rsp_server *s, const char *arg, size_t len)
{
    char annex[64], key[96];
    uint64_t off, n;

    if (!parse_xfer(arg, len, annex, sizeof(annex), &off, &n)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    snprintf(key, sizeof(key), "features:%.60s", annex);
    return xfer(s, key, off, n, build_features, annex);
}

/* What a thread's list entry told the client, as one word for delta lists
 * (sent->tdesc): the tdesc id alone while it has no name, else a hash of
 * the tdesc and name with the top bit set (tdesc ids are small), so a
 * renamed thread is listed again and GDB's name never goes stale. */
static uint32_t entry_digest(uint32_t tdesc, const char *name)
{
    uint32_t h;
    if (!name)
        return tdesc;
    h = 2166136261u ^ tdesc; /* FNV-1a */
    for (; *name; name++)
        h = (h ^ (uint8_t)*name) * 16777619u;
    return h | 0x80000000u;
}

/* Decimal or hex digits of v at p; returns the end. */
static char *put_digits(char *p, uint64_t v, unsigned base)
{
    char d[24];
    size_t i = sizeof(d);
    do {
        d[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    memcpy(p, d + i, sizeof(d) - i);
    return p + (sizeof(d) - i);
}

static char *put_str(char *p, const char *lit, size_t n)
{
    memcpy(p, lit, n);
    return p + n;
}

#define PUT_LIT(p, lit) put_str(p, lit, sizeof(lit) - 1)

/* One <thread> entry: formatted in place and appended with one copy, as
 * a list has one per hardware thread (65,536 and more). The attributes are
 * what Intel's gdbserver sends (id, id_str, tdesc), and the name of a
 * stopped thread's code when the target knows it. */
static void put_entry(const struct rsp_server *s, struct rsp_buf *list, uint32_t pid, uint32_t tid,
                      const struct rsp_thread_info *ti, const char *name)
{
    char e[160], *p = e;
    p = PUT_LIT(p, "<thread id=\"p");
    p = put_digits(p, rsp_pid_to_wire(s, pid), 16);
    *p++ = '.';
    p = put_digits(p, tid, 16);
    p = PUT_LIT(p, "\" id_str=\"ZE ");
    p = put_digits(p, ti->slice, 10);
    *p++ = '.';
    p = put_digits(p, ti->subslice, 10);
    *p++ = '.';
    p = put_digits(p, ti->eu, 10);
    *p++ = '.';
    p = put_digits(p, ti->thread, 10);
    p = PUT_LIT(p, "\" tdesc=\"");
    p = put_digits(p, ti->tdesc, 10);
    *p++ = '"';
    if (name[0]) {
        rsp_buf_put(list, e, (size_t)(p - e));
        rsp_buf_puts(list, " name=\"");
        rsp_xml_escape(list, name);
        p = e;
        *p++ = '"';
    }
    p = PUT_LIT(p, "/>\n");
    rsp_buf_put(list, e, (size_t)(p - e));
}

static int build_threads(struct rsp_server *s, const char *annex, struct rsp_buf *out, char *e,
                         size_t elen)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t nproc = o->process_count(s->target.ctx), listed = 0;
    struct rsp_buf body;
    /* A delta list's header counts its entries, so they are gathered
     * first; a whole list goes straight into the document (at 65,536
     * threads it is 3.5 MB: one copy less). */
    struct rsp_buf *list = s->delta_threads ? &body : out;
    uint64_t total = rsp_count_threads(s), seen = 0;
    struct rsp_progress progress;

    forget_stale(s);
    rsp_buf_init(&body);
    /* Room for a whole list at once (about 56 bytes an entry), so a large
     * one is not copied each time the document doubles; a delta list is
     * mostly short. */
    if (!s->delta_threads)
        rsp_buf_reserve(list, 64 + total * 60);
    rsp_progress_begin(&progress, &s->cfg.log, "thread list");
    rsp_buf_puts(out, "<?xml version=\"1.0\"?>\n");
    if (!s->delta_threads)
        rsp_buf_puts(out, "<threads>\n");
    for (size_t i = 0; i < nproc; i++) {
        struct rsp_process_info pi;
        struct rsp_sent_proc *sent;
        if (o->process_at(s->target.ctx, i, &pi) < 0)
            continue;
        sent = sent_for(s, pi.pid, pi.nthreads);
        if (!sent) {
            rsp_buf_free(&body);
            return -1;
        }
        for (uint32_t t = 1; t <= pi.nthreads; t++) {
            struct rsp_thread_info ti;
            char name[160];
            uint32_t digest;
            if (++seen % 4096 == 0)
                rsp_progress_tick(&progress, seen, total, "threads");
            if (o->thread_info(s->target.ctx, pi.pid, t, &ti) < 0)
                continue;
            /* Only stopped threads have a place in the code to name. */
            if (!o->thread_names || ti.state != RSP_THREAD_STOPPED ||
                o->thread_names->thread_name(s->target.ctx, pi.pid, t, name, sizeof(name)) < 0)
                name[0] = 0;
            digest = entry_digest(ti.tdesc, name[0] ? name : NULL);
            /* Delta lists (after qDeltaThreadList) carry only threads whose
             * tdesc or name the client has not seen; a client that never
             * asked gets every thread every time, or it would drop the
             * others. */
            if (s->delta_threads && sent->tdesc[t - 1] == digest)
                continue;
            sent->tdesc[t - 1] = digest;
            put_entry(s, list, pi.pid, t, &ti, name);
            listed++;
        }
    }
    if (s->delta_threads) {
        rsp_buf_printf(out, "<threads delta=\"%zu\">\n", listed);
        if (body.len)
            rsp_buf_put(out, body.data, body.len);
    }
    rsp_buf_puts(out, "</threads>\n");
    rsp_buf_free(&body);
    rsp_progress_end(&progress, seen, "threads");
    return out->oom ? -1 : 0;
}

enum rsp_hresult rsp_h_xfer_threads(struct rsp_server *s, const char *arg, size_t len)
{
    char annex[64];
    uint64_t off, n;

    if (!parse_xfer(arg, len, annex, sizeof(annex), &off, &n) || annex[0]) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    return xfer(s, "threads", off, n, build_threads, annex);
}

enum rsp_hresult rsp_h_xfer_exec_file(struct rsp_server *s, const char *arg, size_t len)
{
    char annex[64];
    uint64_t off, n;

    /* Device code arrives only as in-memory libraries: no executable. */
    if (!parse_xfer(arg, len, annex, sizeof(annex), &off, &n))
        rsp_reply_e01(&s->reply);
    else
        rsp_buf_puts(&s->reply, "l");
    return RSP_H_REPLY;
}

static int build_siginfo(struct rsp_server *s, const char *annex, struct rsp_buf *out, char *e,
                         size_t elen)
{
    uint8_t si[256];
    uint32_t pid, tid;
    int n;

    (void)annex;
    if (!rsp_resolve_thread(s, s->g, &pid, &tid) || tid == 0) {
        snprintf(e, elen, "no thread selected");
        return -ENOENT;
    }
    n = s->target.ops->siginfo->thread_siginfo(s->target.ctx, pid, tid, si, sizeof(si), e, elen);
    if (n < 0)
        return n;
    rsp_buf_put(out, si, (size_t)n);
    return 0;
}

/* The signal information of the selected thread (Hg), for `p $_siginfo`. */
enum rsp_hresult rsp_h_xfer_siginfo(struct rsp_server *s, const char *arg, size_t len)
{
    char annex[8], key[48];
    uint64_t off, n;
    uint32_t pid = 0, tid = 0;

    /* Answered only with a siginfo table (offers.c). */
    if (!parse_xfer(arg, len, annex, sizeof(annex), &off, &n) || annex[0]) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    rsp_resolve_thread(s, s->g, &pid, &tid);
    snprintf(key, sizeof(key), "siginfo:%u.%u", (unsigned)pid, (unsigned)tid);
    return xfer(s, key, off, n, build_siginfo, annex);
}

static int build_libraries(struct rsp_server *s, const char *annex, struct rsp_buf *out, char *e,
                           size_t elen)
{
    uint32_t pid, tid;
    /* The libraries of the Hg process (GDB selects it with Hg pP.0). */
    if (annex[0] || !rsp_resolve_thread(s, s->g, &pid, &tid))
        return -1;
    return rsp_libraries_xml(s, pid, out);
}

enum rsp_hresult rsp_h_xfer_libraries(struct rsp_server *s, const char *arg, size_t len)
{
    char annex[8], key[32];
    uint64_t off, n;
    uint32_t pid, tid;

    /* Answered only with a libraries table (offers.c). */
    if (!parse_xfer(arg, len, annex, sizeof(annex), &off, &n) ||
        !rsp_resolve_thread(s, s->g, &pid, &tid)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    snprintf(key, sizeof(key), "libraries:%u", (unsigned)pid);
    return xfer(s, key, off, n, build_libraries, annex);
}
