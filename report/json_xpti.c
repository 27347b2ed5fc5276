/* SPDX-License-Identifier: MIT */
/* The XPTI parts of the JSON document (report/xpti_text.h). */
#include <inttypes.h>

#include "report/json.h"
#include "report/xpti_text.h"

/* Empty table strings (unknown, or lost to a full table) print as null. */
static void json_text(FILE *f, const char *s)
{
    report_json_str(f, s && s[0] ? s : NULL);
}

/* A code location as `"file":..,"line":..,"column":..,"function":..`. */
static void json_site_fields(FILE *f, const struct xtab_site *s)
{
    fputs("\"file\":", f);
    json_text(f, s ? s->file : NULL);
    if (s && s->line)
        fprintf(f, ",\"line\":%u", s->line);
    else
        fputs(",\"line\":null", f);
    if (s && s->column)
        fprintf(f, ",\"column\":%u", s->column);
    else
        fputs(",\"column\":null", f);
    fputs(",\"function\":", f);
    json_text(f, s ? s->function : NULL);
}

static void json_task(FILE *f, const struct sess_xpti_candidate *c)
{
    if (!c || !c->has_task) {
        fputs("\"task_uid\":null,\"instance\":null,\"queue\":null", f);
        return;
    }
    fprintf(f,
            "\"task_uid\":\"0x%" PRIx64 "\",\"instance\":%" PRIu64 ",\"queue\":\"0x%" PRIx64 "\"",
            c->task.uid, c->task.instance, c->task.queue);
}

static const char *how_name(enum sess_xpti_how h)
{
    return h == SESS_XPTI_UNIQUE ? "unique" : h == SESS_XPTI_AMBIGUOUS ? "ambiguous" : "site-only";
}

/* The one site every listed candidate shares, or NULL. */
static const struct xtab_site *common_site(const struct sess_xpti_submission *s)
{
    if (s->ncand == 0 || s->ncand < s->total)
        return NULL;
    for (size_t i = 1; i < s->ncand; i++)
        if (s->cand[i].site != s->cand[0].site)
            return NULL;
    return s->cand[0].site;
}

static void json_submission(FILE *f, const struct sess_xpti_submission *s)
{
    const struct xtab_site *site = common_site(s);
    fprintf(f, ",\"submitted_at\":{\"attribution\":\"%s\",", how_name(s->how));
    json_site_fields(f, site);
    fputs(",\"site_uid\":", f);
    if (site)
        fprintf(f, "\"0x%" PRIx64 "\"", site->uid);
    else
        fputs("null", f);
    fputc(',', f);
    json_task(f, s->how == SESS_XPTI_UNIQUE ? &s->cand[0] : NULL);
    fprintf(f, ",\"candidates_total\":%zu,\"other_device_sites\":%zu,\"candidates\":[", s->total,
            s->other_device_sites);
    for (size_t i = 0; i < s->ncand; i++) {
        const struct sess_xpti_candidate *c = &s->cand[i];
        fputs(i ? ",{" : "{", f);
        fputs("\"kernel\":", f);
        json_text(f, c->site->kernel);
        fputc(',', f);
        json_site_fields(f, c->site);
        fputs(",\"device\":", f);
        json_text(f, c->site->device);
        fprintf(f, ",\"site_uid\":\"0x%" PRIx64 "\",", c->site->uid);
        json_task(f, c);
        if (c->has_task)
            fprintf(f, ",\"begin_ns\":%" PRIu64 ",\"host_tid\":%u", c->task.begin_ns, c->task.tid);
        fputc('}', f);
    }
    fputs("]}", f);
}

/* A site object with the event's id; null when neither is known. */
static void json_alloc_site(FILE *f, bool has, const struct xtab_site *s, uint64_t uid)
{
    if (!has && !uid) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    json_site_fields(f, has ? s : NULL);
    fprintf(f, ",\"uid\":\"0x%" PRIx64 "\"}", uid);
}

void json_xpti_section(FILE *f, const struct xtab_stats *st, const char *note)
{
    fputs(",\"xpti\":{\"table\":", f);
    fputs(st ? "true" : "false", f);
    fputs(",\"note\":", f);
    report_json_str(f, st ? NULL : note);
    if (st)
        fprintf(f,
                ",\"sites\":%" PRIu64 ",\"tasks\":%" PRIu64 ",\"allocations\":%" PRIu64
                ",\"sites_dropped\":%" PRIu64 ",\"allocs_dropped\":%" PRIu64
                ",\"running_tasks_recycled\":%" PRIu64 ",\"tasks_dropped\":%" PRIu64
                ",\"bad_records\":%" PRIu64,
                st->sites, st->tasks, st->allocs, st->sites_dropped, st->allocs_dropped,
                st->running_tasks_recycled, st->tasks_dropped, st->bad_records);
    fputc('}', f);
}

void json_xpti_submission(FILE *f, const struct sess_xpti_submission *s)
{
    if (s)
        json_submission(f, s);
    else
        fputs(",\"submitted_at\":null", f);
}

void json_xpti_allocation(FILE *f, const struct report_fault *fa)
{
    const struct sess_xpti_alloc *al = &fa->alloc;
    const struct xtab_alloc *a = &al->a;
    if (!fa->has_alloc) {
        fputs(",\"allocation\":null", f);
        return;
    }
    fprintf(f,
            ",\"allocation\":{\"base\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"offset\":%" PRIu64
            ",\"in_guard\":%s,\"state\":\"%s\",\"allocated_at\":",
            a->base, a->size, fa->addr - a->base, a->in_guard ? "true" : "false",
            a->live ? "live" : "freed");
    json_alloc_site(f, al->has_alloc_site, &al->alloc_site, a->alloc_uid);
    fputs(",\"freed_at\":", f);
    if (a->live)
        fputs("null", f);
    else
        json_alloc_site(f, al->has_free_site, &al->free_site, a->free_uid);
    fputc('}', f);
}
