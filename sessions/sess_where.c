/* SPDX-License-Identifier: MIT */
#include "sessions/sess_where.h"

#include <errno.h>
#include <string.h>

#include "sessions/sess_impl.h"

int sess_where_pc(struct sess_manager *m, unsigned k, uint64_t pc, struct sess_where *out)
{
    int rc = -ENOENT;
    memset(out, 0, sizeof(*out));
    if (k >= m->nsessions)
        return rc;
    struct session *s = &m->sessions[k];
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < s->nmodules && rc != 0; i++) {
        if (!s->modules[i].sym || sym_lookup(s->modules[i].sym, pc, &out->loc) != 0)
            continue;
        out->sym = s->modules[i].sym;
        out->module_begin = s->modules[i].ev.module_begin;
        out->module_end = s->modules[i].ev.module_end;
        rc = 0;
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}
