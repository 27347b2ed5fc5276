/* SPDX-License-Identifier: MIT */
/* Where Intel's unit tests found our framework different from Intel's
 * (issue 34, doc/xpti-facts.md section 9), and the C++-interface calls of
 * xpti/xpti_if.h the subscriber and the examples rely on. */
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"
#include "xpti/xpti_if.h"

static uint32_t fnv1a32(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct xpti_payload full_payload(const char *name, const char *file, uint32_t line,
                                        uint32_t column)
{
    return (struct xpti_payload){.name = name,
                                 .source_file = file,
                                 .line_no = line,
                                 .column_no = column,
                                 .flags = 0x1b}; /* name, file, line, column */
}

static void test_register_payload(void)
{
    struct xpti_payload p = full_payload("parity_fn", "parity.cpp", 12, 5);
    uint64_t uid = xptiRegisterPayload(&p);
    uint64_t p1 = (uint64_t)fnv1a32("parity.cpp") << 32 | 12;
    tap_ok(uid != 0 && p.internal == uid, "RegisterPayload returns the id, also in .internal");
    tap_ok(p.uid.p1 == p1 && p.uid.p2 == fnv1a32("parity_fn"),
           "RegisterPayload writes the key back into the caller's uid (p1 0x%llx p2 0x%llx)",
           (unsigned long long)p.uid.p1, (unsigned long long)p.uid.p2);
    tap_ok(p.flags == 0x801b, "RegisterPayload sets PayloadRegistered (flags 0x%llx)",
           (unsigned long long)p.flags);
    uint64_t again = xptiRegisterPayload(&p);
    const struct xpti_payload *q = xptiQueryPayloadByUID(again);
    tap_ok(again != 0 && again != uid && q && q->uid.p1 == p1,
           "the registered payload registers again: a new instance of the same key");
}

static void test_name_only(void)
{
    struct xpti_payload p = {.name = "parity_name_only", .flags = 0x1};
    uint64_t instance = 0;
    struct xpti_event *ev = xptiMakeEvent("x", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_ACTIVE, &instance);
    const struct xpti_payload *q = ev ? xptiQueryPayload(ev) : NULL;
    tap_ok(q && q->source_file && strcmp(q->source_file, "unknown-file") == 0,
           "a name-only payload gets source_file \"unknown-file\"");
    tap_ok(q && q->flags == 0x28003, "and the source-file flag (flags 0x%llx, Intel's 0x28003)",
           q ? (unsigned long long)q->flags : 0ull);
}

/* xpti_payload_t::name_string_id() / file_string_id(): slots 7 and 8. */
static void test_string_ids(void)
{
    struct xpti_payload p = full_payload("parity_ids", "ids.cpp", 3, 0);
    uint64_t uid = xptiRegisterPayload(&p);
    const struct xpti_payload_if *pl = xptiLookupPayload(uid);
    if (!pl) {
        tap_ok(0, "LookupPayload of a registered payload");
        return;
    }
    int32_t (*name_id)(const struct xpti_payload_if *) =
        (int32_t(*)(const struct xpti_payload_if *))xpti_if_slots(pl)[7];
    int32_t (*file_id)(const struct xpti_payload_if *) =
        (int32_t(*)(const struct xpti_payload_if *))xpti_if_slots(pl)[8];
    tap_ok((uint32_t)name_id(pl) == fnv1a32("parity_ids") &&
               (uint32_t)file_id(pl) == fnv1a32("ids.cpp"),
           "name_string_id() / file_string_id() are the FNV-1a ids, as on Intel's");
}

/* The first object of a fresh framework is 0 on Intel's (issue 34); this
 * runs first, before any object is registered. */
static void test_first_object(void)
{
    const char v = 'x';
    xpti_object_id_t id = xptiRegisterObject(&v, 1, XPTI_MD_STRING);
    struct xpti_object_data d = xptiLookupObject(id);
    tap_ok(id == 0 && d.size == 1 && d.data && d.data[0] == 'x',
           "the first object id is 0 and resolves (id %d)", (int)id);
    tap_ok(xptiLookupObject(-1).data == NULL &&
               xptiLookupObject(XPTI_INVALID_OBJECT_ID).data == NULL,
           "negative and invalid object ids resolve to nothing");
}

static void test_default_stream(void)
{
    tap_ok(xptiSetDefaultStreamID(0) == XPTI_RESULT_SUCCESS && xptiGetDefaultStreamID() == 0,
           "SetDefaultStreamID(0) succeeds and reads back");
    tap_ok(xptiSetDefaultStreamID(128) == XPTI_RESULT_INVALIDARG, "128 is still rejected");
    xptiSetDefaultStreamID(1);
}

/* What libzestub_xpti.so and examples/sycl_rt.c do through xpti_if.h. */
static void test_interfaces_from_c(void)
{
    struct xpti_tracepoint_if *tp = xptiCreateTracepoint("parity_tp", "tp.cpp", 7, 0, NULL);
    struct xpti_event *ev = xpti_if_tracepoint_event(tp);
    tap_ok(ev && ev == xptiFindEvent(ev->unique_id) && ev->instance_id == 1,
           "event_ref() through the vtable is the tracepoint's event");
    xptiAddMetadata(ev, "kernel_name", xptiRegisterObject("k", 1, XPTI_MD_STRING));
    xptiAddMetadata(ev, "sym_line_no", xptiRegisterObject("7", 1, XPTI_MD_STRING));
    struct xpti_metadata_if *md = ev ? xpti_if_event_metadata(ev->unique_id) : NULL;
    int items = 0, named = 0;
    char *key = NULL;
    xpti_object_id_t id;
    for (xpti_result_t r = md ? xpti_if_md_item(md, true, &key, &id) : XPTI_RESULT_FAIL;
         r == XPTI_RESULT_SUCCESS; r = xpti_if_md_item(md, false, &key, &id)) {
        items++;
        struct xpti_object_data d = xptiLookupObject(id);
        named += key && strcmp(key, "kernel_name") == 0 && d.size == 1 && d.data[0] == 'k';
    }
    tap_ok(items == 2 && named == 1, "LookupEvent()->metadata() first/next_item: %d items", items);
    tap_ok(xpti_if_event_metadata(0) == NULL && xpti_if_tracepoint_event(NULL) == NULL,
           "no event, no interface");
    xptiSetTracepointScopeData(tp);
    tap_ok(xpti_if_tracepoint_event(xptiGetTracepointScopeData()) == ev,
           "the scope's tracepoint gives the same event");
    xptiUnsetTracepointScopeData();
}

int main(void)
{
    tap_plan(15);
    xptiFrameworkInitialize();
    test_first_object();
    test_register_payload();
    test_name_only();
    test_string_ids();
    test_default_stream();
    test_interfaces_from_c();
    xptiFrameworkFinalize();
    return tap_done();
}
