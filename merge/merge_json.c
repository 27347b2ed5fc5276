/* SPDX-License-Identifier: MIT */
/* zestub merge's report as the zestub-merge JSON document
 * (doc/merge-format.md, merge_report.h). */
#include <stdio.h>
#include <string.h>

#include "merge/merge_report.h"
#include "report/json.h"

static void json_ranks(FILE *f, const long *v, size_t n)
{
    fputs("{\"ranges\":\"", f);
    merge_ranges(f, v, n);
    fputs("\",\"list\":[", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%ld", i ? "," : "", v[i]);
    fputs("]}", f);
}

/* Writes v back as JSON (the representative's records are copied as they
 * were). */
static void json_value(FILE *f, const struct jv *v)
{
    if (!v) {
        fputs("null", f);
        return;
    }
    switch (v->type) {
    case JV_NULL:
        fputs("null", f);
        break;
    case JV_BOOL:
        fputs(v->b ? "true" : "false", f);
        break;
    case JV_NUMBER:
        fputs(v->str ? v->str : "0", f);
        break;
    case JV_STRING:
        report_json_str(f, v->str);
        break;
    case JV_ARRAY:
    case JV_OBJECT:
        fputc(v->type == JV_ARRAY ? '[' : '{', f);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                fputc(',', f);
            if (v->type == JV_OBJECT) {
                report_json_str(f, v->key[i]);
                fputc(':', f);
            }
            json_value(f, v->item[i]);
        }
        fputc(v->type == JV_ARRAY ? ']' : '}', f);
        break;
    }
}

static void json_str_or_null(FILE *f, const char *s)
{
    if (s)
        report_json_str(f, s);
    else
        fputs("null", f);
}

static void json_class(FILE *f, const struct merge_class *c)
{
    fputs("{\"kernel\":", f);
    json_str_or_null(f, c->kernel);
    fputs(",\"function\":", f);
    json_str_or_null(f, c->function);
    fputs(",\"file\":", f);
    json_str_or_null(f, c->file);
    if (c->line >= 0)
        fprintf(f, ",\"line\":%ld", c->line);
    else
        fputs(",\"line\":null", f);
    fputs(",\"reason\":", f);
    report_json_str(f, c->reason);
    fputs(",\"fault_class\":", f);
    report_json_str(f, c->fault_class);
    fputs(",\"ranks\":", f);
    json_ranks(f, c->ranks, c->nranks);
    fprintf(f, ",\"threads\":%u,\"fault_addresses\":[", c->threads);
    for (size_t i = 0; i < c->naddresses; i++) {
        const char *text = c->addresses[i].text, *colon = strchr(text, ':');
        fprintf(f, "%s{\"rank\":%.*s,\"address\":", i ? "," : "", (int)(colon - text), text);
        report_json_str(f, colon + 1);
        fputc('}', f);
    }
    fputs("],\"allocation\":", f);
    json_value(f, c->rep_allocation);
    fputs(",\"submitted_at\":", f);
    json_value(f, jv_get(c->rep_thread, "submitted_at"));
    fprintf(f, ",\"representative\":{\"rank\":%ld,\"file\":", c->rep_rank->rank);
    report_json_str(f, c->rep_rank->path);
    fputs(",\"host\":", f);
    json_value(f, jv_get(c->rep_rank->doc, "host"));
    fputs(",\"pid\":", f);
    json_value(f, jv_get(c->rep_rank->doc, "pid"));
    fputs(",\"thread\":", f);
    json_value(f, c->rep_thread);
    fputs("}}", f);
}

/* One input file: its rank and state, or why it could not be read. */
static void json_file(FILE *f, const struct merge_rank *r)
{
    fputs("{\"path\":", f);
    report_json_str(f, r->path);
    if (!r->doc) {
        fputs(",\"error\":", f);
        report_json_str(f, r->error);
        fputc('}', f);
        return;
    }
    fprintf(f,
            ",\"rank\":%ld,\"faulted\":%s,\"hung\":%s,\"complete\":%s,\"unrenamed\":%s,"
            "\"status\":",
            r->rank, r->faulted ? "true" : "false", r->hung ? "true" : "false",
            r->complete ? "true" : "false", r->unrenamed ? "true" : "false");
    json_value(f, jv_get(r->doc, "status"));
    fputs(",\"hang\":", f);
    json_value(f, r->hung ? r->hang : NULL);
    fputs(",\"program\":", f);
    json_value(f, jv_get(r->doc, "program"));
    fputc('}', f);
}

void merge_emit_json(FILE *f, const struct merge_report *r)
{
    const struct merge *m = r->m;
    fputs("{\"schema\":\"zestub-merge\",\"version\":1,\"files\":[", f);
    for (size_t i = 0; i < m->nranks; i++) {
        if (i)
            fputc(',', f);
        json_file(f, &m->ranks[i]);
    }
    fputs("],\"faulted\":", f);
    json_ranks(f, r->faulted.v, r->faulted.n);
    fputs(",\"not_faulted\":", f);
    json_ranks(f, r->not_faulted.v, r->not_faulted.n);
    fputs(",\"hung\":", f);
    json_ranks(f, r->hung.v, r->hung.n);
    fputs(",\"classes\":[", f);
    for (size_t k = 0; k < m->nclasses; k++) {
        if (k)
            fputc(',', f);
        json_class(f, &m->classes[k]);
    }
    fputs("]}\n", f);
}
