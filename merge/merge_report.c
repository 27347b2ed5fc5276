/* SPDX-License-Identifier: MIT */
/* The report's contents (merge_report.h), shared by every format. */
#include "merge/merge_report.h"

#include <stdlib.h>

/* The ranks of m that could be read and for which keep says yes; m's
 * ranks are sorted, so the list is too (a rank two files name is listed
 * once). */
static int ranks_where(const struct merge *m, bool (*keep)(const struct merge_rank *),
                       struct merge_rank_list *out)
{
    /* One slot per file: a job may have many thousands of ranks. */
    out->v = calloc(m->nranks + 1, sizeof(*out->v));
    out->n = 0;
    if (!out->v)
        return -1;
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].doc && keep(&m->ranks[i]) &&
            (out->n == 0 || out->v[out->n - 1] != m->ranks[i].rank))
            out->v[out->n++] = m->ranks[i].rank;
    return 0;
}

static bool faulted(const struct merge_rank *r)
{
    return r->faulted;
}

static bool not_faulted(const struct merge_rank *r)
{
    return !r->faulted;
}

static bool hung(const struct merge_rank *r)
{
    return r->hung;
}

int merge_report_build(struct merge_report *r, const struct merge *m)
{
    r->m = m;
    r->unread = 0;
    for (size_t i = 0; i < m->nranks; i++)
        r->unread += m->ranks[i].doc == NULL;
    r->read = m->nranks - r->unread;
    r->faulted.v = r->not_faulted.v = r->hung.v = NULL;
    if (ranks_where(m, faulted, &r->faulted) != 0 ||
        ranks_where(m, not_faulted, &r->not_faulted) != 0 || ranks_where(m, hung, &r->hung) != 0) {
        merge_report_free(r);
        return -1;
    }
    return 0;
}

void merge_report_free(struct merge_report *r)
{
    free(r->faulted.v);
    free(r->not_faulted.v);
    free(r->hung.v);
    r->faulted.v = r->not_faulted.v = r->hung.v = NULL;
}

int merge_report_status(const struct merge_report *r)
{
    return r->unread ? 1 : r->faulted.n ? 5 : r->hung.n ? 6 : 0;
}

void merge_ranges(FILE *f, const long *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        if (j == i)
            fprintf(f, "%s%ld", i ? "," : "", v[i]);
        else
            fprintf(f, "%s%ld-%ld", i ? "," : "", v[i], v[j]);
        i = j + 1;
    }
}
