/* SPDX-License-Identifier: MIT */
/* Payloads, events, tracepoints and the 128-bit key / 64-bit id scheme
 * (xpti-facts.md sections 2, 5 and 7). */
#include <stdlib.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"

#define LOCATION                                                                                   \
    (XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE |                            \
     XPTI_PAYLOAD_LINE_INFO_AVAILABLE | XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE)

static struct xpti_payload payload(const char *name, const char *file, uint32_t line,
                                   uint32_t column)
{
    return (struct xpti_payload){
        .name = name, .source_file = file, .line_no = line, .column_no = column, .flags = LOCATION};
}

/* The expected ids, computed here and not by the functions under test:
 * FNV-1a-32 (offset basis 2166136261, prime 16777619) of the name and the
 * file for the key, then the 64-bit id of xpti/README.md ("Keys and the
 * 64-bit id"): splitmix64's finaliser over the instance (attempt 0: these
 * few ids never collide), folded with p2 and then p1, mixed again while
 * below 2^32. */
static uint32_t ref_fnv1a32(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static uint64_t ref_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t ref_uid64(const char *name, const char *file, uint32_t line, uint32_t column,
                          uint64_t instance)
{
    const uint64_t golden = 0x9e3779b97f4a7c15u; /* 2^64 / the golden ratio */
    uint64_t p1 = (uint64_t)ref_fnv1a32(file) << 32 | ref_fnv1a32(name);
    uint64_t p2 = (uint64_t)column << 32 | line;
    uint64_t x = ref_mix(p1 ^ ref_mix(p2 ^ ref_mix(instance)));
    while (x < ((uint64_t)1 << 32))
        x = ref_mix(x + golden);
    return x;
}

static void test_register_payload(void)
{
    struct xpti_payload empty = {0}, good = payload("foo", "foo.cpp", 1, 2);
    tap_ok(xptiRegisterPayload(NULL) == XPTI_INVALID_UID, "RegisterPayload(NULL) is 0");
    tap_ok(xptiRegisterPayload(&empty) == XPTI_INVALID_UID, "an empty payload gives 0");
    uint64_t uid = xptiRegisterPayload(&good);
    tap_ok(uid != 0 && uid == good.internal, "a good payload gets an id, also in .internal");
    tap_ok(xptiRegisterPayload(&good) != uid, "registering again makes a new instance");
}

/* FNV-1a-32 reference vectors (from the algorithm's public description). */
static void test_key_scheme(void)
{
    struct xpti_uid128 k = xpti_make_key("foobar", "a", 12, 34);
    tap_ok(k.p1 == ((uint64_t)0xe40c292cu << 32 | 0xbf9cf968u),
           "p1 = FNV1a(file) << 32 | FNV1a(name) (got %#llx)", (unsigned long long)k.p1);
    tap_ok(k.p2 == ((uint64_t)34 << 32 | 12), "p2 = column << 32 | line");
    struct xpti_uid128 unknown = xpti_make_key(NULL, NULL, 7, 9);
    tap_ok(unknown.p2 == 0, "a location with neither name nor file drops line and column");

    struct xpti_payload p = payload("foobar", "a", 12, 34);
    uint64_t instance = 0;
    struct xpti_event *ev =
        xptiMakeEvent("ignored", &p, XPTI_EV_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &instance);
    if (!tap_ok(ev != NULL, "event for the reference payload"))
        return;
    tap_ok(ev->unique_id == ref_uid64("foobar", "a", 12, 34, instance),
           "uid64 is derived from the key and the instance (the formula written here)");
    tap_ok(ev->unique_id >= ((uint64_t)1 << 32), "uid64 never falls in the 32-bit range");
    const struct xpti_payload *canon = ev->reserved.payload;
    tap_ok(canon->uid.p1 == ((uint64_t)0xe40c292cu << 32 | 12) && canon->uid.p2 == 0xbf9cf968u &&
               canon->uid.p3 == 1,
           "legacy uid: file id << 32 | line, name id, 1");
    tap_ok(xpti_uid64_derive(k.p1, k.p2, 1, 0) != xpti_uid64_derive(k.p1, k.p2, 2, 0) &&
               xpti_uid64_derive(k.p1, k.p2, 1, 0) != xpti_uid64_derive(k.p1, k.p2, 1, 1),
           "instance and attempt change the id");
}

static void test_create_tracepoint(void)
{
    struct xpti_tracepoint_if *a = xptiCreateTracepoint("fn", "file.cpp", 10, 2, NULL);
    struct xpti_tracepoint_if *b = xptiCreateTracepoint("fn", "file.cpp", 10, 2, NULL);
    struct xpti_event *ea = xpti_tracepoint_event(a), *eb = xpti_tracepoint_event(b);
    if (!tap_ok(a && b && a != b && ea && eb, "same location twice gives two objects"))
        return;
    tap_ok(eb->instance_id > ea->instance_id, "the second instance is greater (%llu > %llu)",
           (unsigned long long)eb->instance_id, (unsigned long long)ea->instance_id);
    tap_ok(ea->unique_id != eb->unique_id, "instances have distinct 64-bit ids");

    struct xpti_tracepoint_if *u = xptiCreateTracepoint(NULL, NULL, 0, 0, NULL);
    struct xpti_event *eu = xpti_tracepoint_event(u);
    if (!tap_ok(eu != NULL, "a tracepoint with no location is still created"))
        return;
    const struct xpti_payload *pu = eu->reserved.payload;
    tap_ok(pu && strcmp(pu->name, "unknown") == 0 && strcmp(pu->source_file, "unknown-file") == 0 &&
               pu->line_no == 0 && pu->column_no == 0,
           "it reads unknown / unknown-file / 0 / 0");
    tap_ok(pu->flags & XPTI_PAYLOAD_REGISTERED, "its payload is flagged registered");
    const uint64_t want = XPTI_EVENT_PAYLOAD_AVAILABLE | XPTI_EVENT_UID_AVAILABLE |
                          XPTI_EVENT_ACTIVITY_TYPE_AVAILABLE | XPTI_EVENT_TYPE_AVAILABLE;
    tap_ok((eu->flags & want) == want, "its event has payload, uid, activity and type flags");
    tap_ok(eu->event_type == XPTI_EV_ALGORITHM && eu->activity_type == XPTI_ACTIVITY_ACTIVE,
           "new tracepoints are algorithm / active");
    tap_ok(xptiQueryPayloadByUID(eu->unique_id) == pu, "QueryPayloadByUID(uid64) is its payload");
    tap_ok(xptiLookupPayload(eu->unique_id) != NULL && xptiLookupEvent(eu->unique_id) != NULL,
           "LookupPayload/LookupEvent find it");
    tap_ok(xptiLookupPayload(0) == NULL && xptiLookupPayload(10000) == NULL,
           "LookupPayload(0) and (10000) are NULL");

    int foreign[64] = {0};
    tap_ok(xptiDeleteTracepoint(NULL) == XPTI_RESULT_INVALIDARG, "deleting NULL is INVALIDARG");
    tap_ok(xptiDeleteTracepoint((struct xpti_tracepoint_if *)foreign) == XPTI_RESULT_INVALIDARG,
           "deleting a foreign pointer is INVALIDARG");
    uint64_t uid = eu->unique_id;
    tap_ok(xptiDeleteTracepoint(u) == XPTI_RESULT_SUCCESS, "deleting a tracepoint succeeds");
    tap_ok(xptiDeleteTracepoint(u) == XPTI_RESULT_INVALIDARG, "deleting it twice is INVALIDARG");
    tap_ok(xptiLookupEvent(uid) == NULL && xptiFindEvent(uid) == NULL,
           "a deleted tracepoint's id no longer resolves");
    struct xpti_tracepoint_if *c = xptiCreateTracepoint("fn", "file.cpp", 10, 2, NULL);
    tap_ok(c && xpti_tracepoint_event(c)->instance_id == eb->instance_id + 1,
           "the instance counter keeps counting");
}

static void test_make_event(void)
{
    struct xpti_payload p = payload("kernel", "main.cpp", 104, 5), bad = {0};
    uint64_t inst = 0;
    tap_ok(xptiMakeEvent("x", &bad, XPTI_EV_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst) == NULL,
           "an invalid payload makes no event");
    tap_ok(xptiMakeEvent("x", &p, XPTI_EV_ALGORITHM, XPTI_ACTIVITY_ACTIVE, NULL) == NULL,
           "a NULL instance pointer makes no event");
    uint64_t i1 = 0, i2 = 0;
    struct xpti_event *e1 = xptiMakeEvent("x", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_OVERHEAD, &i1);
    struct xpti_event *e2 = xptiMakeEvent("x", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_OVERHEAD, &i2);
    if (!tap_ok(e1 && e2 && e1 != e2, "the same payload twice gives two events"))
        return;
    tap_ok(i1 == 1 && i2 == 2 && e1->instance_id == 1 && e2->data_id == 2, "instances 1 then 2");
    tap_ok(e1->event_type == XPTI_EV_GRAPH && e1->activity_type == XPTI_ACTIVITY_OVERHEAD,
           "event and activity types are stored");
    tap_ok(xptiFindEvent(0) == NULL && xptiFindEvent(1000000) == NULL,
           "FindEvent(0) and (1000000) are NULL");
    tap_ok(xptiFindEvent(e1->unique_id) == e1, "FindEvent(unique_id) is the event");
    tap_ok(xptiQueryPayload(NULL) == NULL, "QueryPayload(NULL) is NULL");
    const struct xpti_payload *q = xptiQueryPayload(e1);
    tap_ok(q && strcmp(q->name, "kernel") == 0 && strcmp(q->source_file, "main.cpp") == 0 &&
               q->line_no == 104,
           "QueryPayload gives the same name, file and line");
    tap_ok(q && q->name != p.name && q->internal == e1->unique_id,
           "the framework copy owns its strings and knows its id");
    tap_ok(p.uid.p1 == 0 && p.uid.p2 == 0 && p.internal == 0,
           "the caller's payload gets no ids from MakeEvent");

    uint64_t uid = e1->unique_id;
    xptiReleaseEvent(e1);
    tap_ok(xptiFindEvent(uid) == NULL, "a released event is no longer found");
    tap_ok(xptiFindEvent(e2->unique_id) == e2, "its sibling instance still is");
    uint64_t i3 = 0;
    struct xpti_event *e3 = xptiMakeEvent("x", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_ACTIVE, &i3);
    tap_ok(e3 && i3 == 3, "instances keep counting after a release (%llu)", (unsigned long long)i3);
    struct xpti_payload name_only = {.name = "lonely", .flags = XPTI_PAYLOAD_NAME_AVAILABLE};
    tap_ok(xptiMakeEvent("x", &name_only, XPTI_EV_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst) != NULL,
           "a name alone is a valid payload");
}

static void test_many_instances(void)
{
    /* Enough to grow the id index and the instance pool several times. */
    enum { N = 5000 };
    static uint64_t uids[N];
    struct xpti_payload p = payload("loop", "loop.cpp", 1, 1);
    bool ok = true;
    for (int i = 0; i < N; i++) {
        uint64_t inst;
        struct xpti_event *e = xptiMakeEvent("x", &p, XPTI_EV_ALGORITHM, 1, &inst);
        ok = ok && e && inst == (uint64_t)i + 1;
        uids[i] = e ? e->unique_id : 0;
        if (i % 3 == 0 && e)
            xptiReleaseEvent(e);
    }
    tap_ok(ok, "%d instances numbered 1..%d", N, N);
    bool found = true;
    for (int i = 0; i < N; i++) {
        const struct xpti_event *e = xptiFindEvent(uids[i]);
        found = found && (i % 3 == 0 ? e == NULL : e && e->unique_id == uids[i]);
    }
    tap_ok(found, "every live id resolves and every released one does not");
}

/* A repeat finds its key from the payload's string addresses (xpti/tp_site.c)
 * but must not trust them: a caller may write other text into the same
 * buffer, pass the same text from another buffer, or change the location
 * or the flags under the same pointers. Each case must give exactly the
 * key, instance number and id the strings and location alone decide. */
static bool made_as(struct xpti_payload *p, const char *name, const char *file, uint32_t line,
                    uint32_t column, uint64_t instance)
{
    uint64_t got = 0;
    struct xpti_event *e = xptiMakeEvent("x", p, XPTI_EV_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &got);
    const struct xpti_payload *q = e ? xptiQueryPayload(e) : NULL;
    /* A name the key does not carry (empty) is hashed as "unknown" and
     * reads back as NULL. */
    const char *want = strcmp(name, "unknown") == 0 ? NULL : name;
    return q && got == instance && e->unique_id == ref_uid64(name, file, line, column, instance) &&
           (want ? q->name && strcmp(q->name, want) == 0 : q->name == NULL) &&
           strcmp(q->source_file, file) == 0;
}

static void test_site_reuse(void)
{
    char name[16] = "alpha", file[16] = "a.cpp";
    struct xpti_payload p = payload(name, file, 7, 3);
    tap_ok(made_as(&p, "alpha", "a.cpp", 7, 3, 1) && made_as(&p, "alpha", "a.cpp", 7, 3, 2),
           "the same buffers twice: instances 1 and 2 of one key");
    strcpy(name, "gamma");
    tap_ok(made_as(&p, "gamma", "a.cpp", 7, 3, 1),
           "other text in the same name buffer is another key (instance 1)");
    strcpy(file, "b.cpp");
    tap_ok(made_as(&p, "gamma", "b.cpp", 7, 3, 1),
           "other text in the same file buffer is another key (instance 1)");
    strcpy(name, "alpha");
    strcpy(file, "a.cpp");
    tap_ok(made_as(&p, "alpha", "a.cpp", 7, 3, 3), "the first text again continues its key (3)");
    p.line_no = 8;
    tap_ok(made_as(&p, "alpha", "a.cpp", 8, 3, 1), "another line under the same pointers: new key");
    p.line_no = 7;
    p.flags &= ~(uint64_t)XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE;
    tap_ok(made_as(&p, "alpha", "a.cpp", 7, 0, 1), "the column no longer flagged: new key");
    struct xpti_payload copy = payload("alpha", "a.cpp", 7, 3);
    tap_ok(made_as(&copy, "alpha", "a.cpp", 7, 3, 4),
           "the same text from other buffers continues the key (4)");
    p.flags = LOCATION;
    name[0] = '\0';
    tap_ok(made_as(&p, "unknown", "a.cpp", 7, 3, 1),
           "an emptied name hashes as unknown, a key of its own");
}

/* What the task_end callback saw: the event's id and its kernel_name. */
static uint64_t ended_seen, ended_with_metadata;

static void on_task_end(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                        uint64_t instance, const void *user_data)
{
    xpti_object_id_t value;
    ended_seen += ev && ev->instance_id == instance;
    ended_with_metadata += xpti_metadata_get(ev, "kernel_name", &value) == XPTI_RESULT_SUCCESS;
}

/* The SYCL runtime's pattern: an instance per submission, never released.
 * Once its task_end has been delivered, an instance joins its key's ended
 * ones and the framework recycles all but the newest 64 of those. */
static void test_ended_instances_recycled(void)
{
    enum { N = 200, KEEP = 64 };
    static uint64_t uids[N];
    xptiForceSetTraceEnabled(true);
    xpti_stream_id_t stream = xptiRegisterStream("sycl");
    xptiRegisterCallback(stream, XPTI_TP_TASK_END, on_task_end);
    struct xpti_tracepoint_if *running = xptiCreateTracepoint("submit", "app.cpp", 7, 1, NULL);
    bool numbered = true;
    for (int i = 0; i < N; i++) {
        struct xpti_event *ev =
            xpti_tracepoint_event(xptiCreateTracepoint("submit", "app.cpp", 7, 1, NULL));
        numbered = numbered && ev && ev->instance_id == (uint64_t)i + 2;
        uids[i] = ev ? ev->unique_id : 0;
        xptiAddMetadata(ev, "kernel_name", xptiRegisterObject("k", 1, XPTI_MD_STRING));
        xptiNotifySubscribers(stream, XPTI_TP_TASK_BEGIN, NULL, ev, ev->instance_id, NULL);
        xptiNotifySubscribers(stream, XPTI_TP_TASK_END, NULL, ev, ev->instance_id, NULL);
    }
    tap_ok(numbered && ended_seen == N && ended_with_metadata == N,
           "instances keep counting; task_end callbacks see the event and its metadata");
    bool recycled = true, kept = true;
    for (int i = 0; i < N; i++) {
        const struct xpti_event *e = xptiFindEvent(uids[i]);
        if (i < N - KEEP)
            recycled = recycled && e == NULL;
        else
            kept = kept && e && e->unique_id == uids[i];
    }
    tap_ok(recycled, "ended instances beyond the newest %d of their key are recycled", KEEP);
    tap_ok(kept, "the newest %d ended instances are kept", KEEP);
    struct xpti_event *still = xpti_tracepoint_event(running);
    tap_ok(still && still->instance_id == 1 && xptiFindEvent(still->unique_id) == still,
           "an instance whose task never ended is kept");
    struct xpti_event *next =
        xpti_tracepoint_event(xptiCreateTracepoint("submit", "app.cpp", 7, 1, NULL));
    tap_ok(next && next->instance_id == N + 2 &&
               next->unique_id == ref_uid64("submit", "app.cpp", 7, 1, N + 2),
           "the next instance is numbered %d, its id derived as before", N + 2);
    xptiForceSetTraceEnabled(false);
}

static void test_scope(void)
{
    tap_ok(xptiSetTracepointScopeData(NULL) == XPTI_RESULT_INVALIDARG,
           "setting a NULL scope is INVALIDARG");
    struct xpti_tracepoint_if *tp = xptiCreateTracepoint("scoped", "s.cpp", 3, 4, NULL);
    tap_ok(xptiSetTracepointScopeData(tp) == XPTI_RESULT_SUCCESS, "set the scope");
    tap_ok(xptiGetTracepointScopeData() == tp &&
               xptiGetUniversalId() == xpti_tracepoint_event(tp)->unique_id,
           "scope and universal id follow the tracepoint");
    xptiUnsetTracepointScopeData();
    tap_ok(xptiGetTracepointScopeData() == NULL && xptiGetUniversalId() == 0, "unset clears both");
    const struct xpti_tracepoint_if *r = xptiRegisterTracepointScope("reg", "r.cpp", 5, 6, NULL);
    struct xpti_event *er = xpti_tracepoint_event(r);
    tap_ok(er && strcmp(er->reserved.payload->name, "reg") == 0 &&
               er->reserved.payload->line_no == 5,
           "RegisterTracepointScope creates a tracepoint at that location");
    tap_ok(xpti_tracepoint_event((const struct xpti_tracepoint_if *)&r) == NULL,
           "a foreign pointer is not a tracepoint");
}

int main(void)
{
    tap_plan(65);
    unsetenv("XPTI_SUBSCRIBERS");
    unsetenv("XPTI_USE_STRICT_HASH");
    test_register_payload();
    xptiReset();
    test_key_scheme();
    xptiReset();
    test_create_tracepoint();
    xptiReset();
    test_make_event();
    xptiReset();
    test_many_instances();
    xptiReset();
    test_site_reuse();
    xptiReset();
    test_ended_instances_recycled();
    xptiReset();
    test_scope();
    return tap_done();
}
