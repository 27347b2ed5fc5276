/* SPDX-License-Identifier: MIT */
/* Calling the XPTI C++ interfaces (xpti_tracepoint_t, xpti_trace_event_t,
 * xpti_metadata_t) from C. These methods are how the public ABI hands out a
 * tracepoint's event and an event's metadata; a C caller reaches them
 * through the object's Itanium-ABI virtual table. Header only, so a
 * subscriber or a runtime stand-in that uses it imports nothing beyond the
 * public xpti* functions and works with any conforming framework.
 *
 * Slots count from the address the vptr holds: 0 and 1 are the two
 * destructors, then the methods in the order the upstream header declares
 * them (doc/xpti-facts.md; xpti/cxx_interfaces.c builds our tables in the
 * same order). */
#ifndef ZESTUB_XPTI_XPTI_IF_H
#define ZESTUB_XPTI_XPTI_IF_H

#include "xpti/xpti.h"

enum {
    XPTI_IF_TP_METADATA = 3, /* xpti_tracepoint_t::metadata() */
    XPTI_IF_TP_EVENT_REF = 7,
    XPTI_IF_EV_METADATA = 3, /* xpti_trace_event_t::metadata() */
    XPTI_IF_MD_FIRST = 2,
    XPTI_IF_MD_NEXT = 3,
};

static inline void *const *xpti_if_slots(const void *obj)
{
    return *(void *const *const *)obj;
}

/* xpti_tracepoint_t::event_ref(): the event behind a tracepoint. */
static inline struct xpti_event *xpti_if_tracepoint_event(const struct xpti_tracepoint_if *tp)
{
    if (!tp)
        return NULL;
    struct xpti_event *(*fn)(const struct xpti_tracepoint_if *) =
        (struct xpti_event * (*)(const struct xpti_tracepoint_if *))
            xpti_if_slots(tp)[XPTI_IF_TP_EVENT_REF];
    return fn(tp);
}

/* xpti_trace_event_t::metadata() of the event with this 64-bit id. */
static inline struct xpti_metadata_if *xpti_if_event_metadata(uint64_t uid)
{
    const struct xpti_event_if *ev = xptiLookupEvent(uid);
    if (!ev)
        return NULL;
    struct xpti_metadata_if *(*fn)(const struct xpti_event_if *) =
        (struct xpti_metadata_if * (*)(const struct xpti_event_if *))
            xpti_if_slots(ev)[XPTI_IF_EV_METADATA];
    return fn(ev);
}

/* xpti_metadata_t::first_item() / next_item(): SUCCESS with an item,
 * anything else at the end. The cursor lives in the metadata object. */
static inline xpti_result_t xpti_if_md_item(struct xpti_metadata_if *md, bool first, char **key,
                                            xpti_object_id_t *value)
{
    xpti_result_t (*fn)(struct xpti_metadata_if *, char **, xpti_object_id_t *) =
        (xpti_result_t(*)(struct xpti_metadata_if *, char **, xpti_object_id_t *))xpti_if_slots(
            md)[first ? XPTI_IF_MD_FIRST : XPTI_IF_MD_NEXT];
    return fn(md, key, value);
}

#endif
