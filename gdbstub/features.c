/* SPDX-License-Identifier: MIT */
#include "gdbstub/features.h"

#include <stddef.h>

#include "gdbstub/h_break.h"
#include "gdbstub/h_library.h"
#include "gdbstub/h_nonstop.h"
#include "gdbstub/h_run_entry.h"
#include "gdbstub/h_vrun.h"
#include "gdbstub/h_xfer.h"

/* Order matters for events: a reloaded module gets its breakpoints back
 * before the library feature acknowledges the load, and a library event
 * the client is not told about never reaches the non-stop queue. */
/* clang-format off */
static const struct rsp_feature *const features[] = {
    &rsp_feature_breakpoints,
    &rsp_feature_run_entry, /* its loads are acknowledged, not reported */
    &rsp_feature_libraries,
    &rsp_feature_nonstop,
    &rsp_feature_thread_lists,
    &rsp_feature_run, /* no events: frees what vRun's client set */
};
/* clang-format on */
#define NFEATURES (sizeof(features) / sizeof(features[0]))

void rsp_features_reset(struct rsp_server *s)
{
    for (size_t i = 0; i < NFEATURES; i++)
        if (features[i]->reset)
            features[i]->reset(s);
}

void rsp_features_client_gone(struct rsp_server *s)
{
    for (size_t i = 0; i < NFEATURES; i++)
        if (features[i]->client_gone)
            features[i]->client_gone(s);
}

void rsp_features_detaching(struct rsp_server *s, uint32_t pid)
{
    for (size_t i = 0; i < NFEATURES; i++)
        if (features[i]->detaching)
            features[i]->detaching(s, pid);
}

bool rsp_features_want_events(const struct rsp_server *s)
{
    for (size_t i = 0; i < NFEATURES; i++)
        if (features[i]->wants_events && features[i]->wants_events(s))
            return true;
    return false;
}

int rsp_features_event(struct rsp_server *s, const struct rsp_event *ev)
{
    for (size_t i = 0; i < NFEATURES; i++) {
        int v;
        if (!features[i]->on_event)
            continue;
        v = features[i]->on_event(s, ev);
        if (v != RSP_EVENT_PASS)
            return v;
    }
    return RSP_EVENT_PASS;
}

int rsp_features_timeout_ms(struct rsp_server *s)
{
    int soonest = -1;
    for (size_t i = 0; i < NFEATURES; i++) {
        int t = features[i]->timeout_ms ? features[i]->timeout_ms(s) : -1;
        if (t >= 0 && (soonest < 0 || t < soonest))
            soonest = t;
    }
    return soonest;
}

void rsp_features_expire(struct rsp_server *s)
{
    for (size_t i = 0; i < NFEATURES; i++)
        if (features[i]->expire)
            features[i]->expire(s);
}

void rsp_features_release(struct rsp_server *s)
{
    for (size_t i = 0; i < NFEATURES; i++)
        if (features[i]->release)
            features[i]->release(s);
}
