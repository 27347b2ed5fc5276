/* SPDX-License-Identifier: MIT */
/* Strings, objects, unique ids, streams, defaults, user-defined types and
 * per-thread state (xpti-facts.md section 7, "Unit tests"). */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"

static void test_initialize(void)
{
    tap_ok(xptiInitialize(NULL, 0, 0, NULL) == XPTI_RESULT_INVALIDARG,
           "xptiInitialize(NULL, 0, 0, NULL) is INVALIDARG");
    tap_ok(xptiInitialize("tables", 1, 0, NULL) == XPTI_RESULT_INVALIDARG,
           "xptiInitialize without a version is INVALIDARG");
    tap_ok(xptiInitialize("tables", 1, 0, "tables 1.0") == XPTI_RESULT_SUCCESS,
           "xptiInitialize of a named stream succeeds");
    tap_ok(!xptiTraceEnabled(), "tracing is off without XPTI_SUBSCRIBERS");
}

static void test_strings(void)
{
    char *copy = NULL;
    const char text[] = "kernel_name";
    tap_ok(xptiRegisterString(NULL, &copy) == XPTI_INVALID_STRING_ID, "NULL string is invalid");
    tap_ok(xptiRegisterString(text, NULL) == XPTI_INVALID_STRING_ID,
           "NULL table pointer is invalid");
    tap_ok(xptiRegisterString("", &copy) == XPTI_INVALID_STRING_ID, "empty string is invalid");
    xpti_string_id_t id = xptiRegisterString(text, &copy);
    tap_ok(id == 1, "first id after reset is 1 (got %u)", id);
    tap_ok(copy && copy != text && strcmp(copy, text) == 0, "table copy equals the input");
    tap_ok(xptiLookupString(id) == copy, "lookup returns the table copy itself");
    char *again = NULL;
    tap_ok(xptiRegisterString("kernel_name", &again) == id && again == copy,
           "same text gives the same id and copy");
    tap_ok(xptiRegisterString("sycl_device", &again) == id + 1, "next new text gets the next id");
    tap_ok(xptiLookupString((xpti_string_id_t)-1) == NULL, "lookup of -1 is NULL");
    tap_ok(xptiLookupString(0) == NULL, "lookup of 0 is NULL");
    tap_ok(xptiLookupString(id + 2) == NULL, "lookup past the end is NULL");
    xptiReset();
    tap_ok(xptiLookupString(id) == NULL, "reset empties the string table");
    tap_ok(xptiRegisterString("sycl_device", &again) == 1, "ids restart at 1 after reset");
}

/* Strings live in an arena of 64 KiB, then 2 MiB chunks, rewound by
 * xptiReset: 100,000 strings span several chunks, a 3 MiB one needs a chunk
 * of its own, and after a reset the same texts get the same ids again in
 * the reused memory. */
static bool intern_many(size_t n, xpti_string_id_t first)
{
    char text[48]; /* "arena string " and any size_t */
    for (size_t i = 0; i < n; i++) {
        snprintf(text, sizeof(text), "arena string %zu", i);
        if (xptiRegisterString(text, &(char *){0}) != first + i)
            return false;
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(text, sizeof(text), "arena string %zu", i);
        const char *copy = xptiLookupString(first + (xpti_string_id_t)i);
        if (!copy || strcmp(copy, text) != 0)
            return false;
    }
    return true;
}

static void test_string_arena(void)
{
    size_t big_len = (size_t)3 << 20;
    char *big = malloc(big_len + 1);
    if (big) {
        memset(big, 'x', big_len);
        big[big_len] = '\0';
    }
    for (int round = 0; round < 2; round++) {
        bool ok = intern_many(100000, 1);
        char *copy = NULL;
        xpti_string_id_t id = big ? xptiRegisterString(big, &copy) : 0;
        ok = ok && id == 100001 && copy && strlen(copy) == big_len && copy[0] == 'x';
        /* The texts are found again, not added: still ids 1..100,000. */
        ok = ok && intern_many(100000, 1) && xptiRegisterString("one more", &copy) == 100002;
        tap_ok(ok, "%s: 100,000 strings and a 3 MiB one interned and read back",
               round == 0 ? "fresh tables" : "after a reset");
        xptiReset();
    }
    free(big);
}

static void test_objects(void)
{
    const int64_t line = 42;
    tap_ok(xptiRegisterObject(NULL, 4, XPTI_MD_BINARY) == XPTI_INVALID_OBJECT_ID,
           "NULL object data is invalid");
    xpti_object_id_t id =
        xptiRegisterObject((const char *)&line, sizeof(line), XPTI_MD_SIGNED_INTEGER);
    tap_ok(id != XPTI_INVALID_OBJECT_ID, "object registered");
    struct xpti_object_data d = xptiLookupObject(id);
    int64_t back = 0;
    if (d.data)
        memcpy(&back, d.data, sizeof(back));
    tap_ok(d.size == sizeof(line) && back == 42 && d.type == XPTI_MD_SIGNED_INTEGER,
           "object lookup returns size, bytes and type");
    d = xptiLookupObject(id + 100);
    tap_ok(d.size == 0 && d.data == NULL, "unknown object id gives an empty object");
}

static void test_unique_ids(void)
{
    uint64_t ids[10];
    bool distinct = true;
    for (int i = 0; i < 10; i++) {
        ids[i] = xptiGetUniqueId();
        for (int j = 0; j < i; j++)
            distinct = distinct && ids[i] != ids[j];
    }
    tap_ok(distinct, "10 unique ids are distinct");
    tap_ok(ids[0] == 1 && ids[9] == 10, "unique ids count from 1 after reset");
    xptiReset();
    tap_ok(xptiGetUniqueId() == 1, "reset restarts the unique id counter");
}

static void test_defaults(void)
{
    tap_ok(xptiGetDefaultEventType() == XPTI_EV_ALGORITHM, "default event type is algorithm");
    tap_ok(xptiGetDefaultTraceType() == XPTI_TP_FUNCTION_BEGIN,
           "default trace type is function_begin");
    tap_ok(xptiGetDefaultStreamID() == 1, "default stream is xpti.framework (id 1)");
    tap_ok(xptiSetDefaultEventType(XPTI_EV_UNKNOWN) == XPTI_RESULT_INVALIDARG,
           "unknown default event type rejected");
    tap_ok(xptiSetDefaultTraceType(XPTI_TP_UNKNOWN) == XPTI_RESULT_INVALIDARG,
           "unknown default trace type rejected");
    tap_ok(xptiSetDefaultEventType(XPTI_EV_GRAPH) == XPTI_RESULT_SUCCESS &&
               xptiGetDefaultEventType() == XPTI_EV_GRAPH,
           "default event type can be set");
    tap_ok(xptiSetDefaultTraceType(XPTI_TP_TASK_BEGIN) == XPTI_RESULT_SUCCESS &&
               xptiGetDefaultTraceType() == XPTI_TP_TASK_BEGIN,
           "default trace type can be set");
    tap_ok(xptiSetDefaultStreamID(42) == XPTI_RESULT_SUCCESS && xptiGetDefaultStreamID() == 42,
           "default stream 42 reads back");
    tap_ok(xptiSetDefaultStreamID((xpti_stream_id_t)-1) == XPTI_RESULT_INVALIDARG,
           "default stream 255 rejected");
    tap_ok(xptiSetDefaultStreamID(128) == XPTI_RESULT_INVALIDARG, "default stream 128 rejected");
    xptiReset();
    tap_ok(xptiGetDefaultStreamID() == 1 && xptiGetDefaultEventType() == XPTI_EV_ALGORITHM,
           "reset restores the defaults");
}

static void test_streams(void)
{
    tap_ok(xptiRegisterStream(NULL) == XPTI_INVALID_STREAM_ID, "NULL stream name gives 255");
    tap_ok(xptiRegisterStream("") == XPTI_INVALID_STREAM_ID, "empty stream name gives 255");
    tap_ok(xptiRegisterStream("xpti.framework") == 1, "xpti.framework has id 1");
    xpti_stream_id_t a = xptiRegisterStream("tables.a");
    tap_ok(a != 0 && a != XPTI_INVALID_STREAM_ID && xptiRegisterStream("tables.a") == a,
           "same stream name, same id");
    tap_ok(xptiRegisterStream("tables.b") != a, "different stream names, different ids");
    xptiReset();
    tap_ok(xptiRegisterStream("tables.a") == a, "reset keeps the stream table");
    tap_ok(xptiUnregisterStream(NULL) == XPTI_RESULT_INVALIDARG,
           "unregistering a NULL stream is INVALIDARG");
    tap_ok(xptiUnregisterStream("never.seen") == XPTI_RESULT_NOTFOUND,
           "unregistering an unknown stream is NOTFOUND");
    tap_ok(xptiUnregisterStream("tables.a") == XPTI_RESULT_NOTFOUND,
           "unregistering a stream without callbacks is NOTFOUND");
    tap_ok(xptiGetEffectiveStreamDetailLevel(a) == XPTI_DETAIL_NORMAL,
           "detail level defaults to NORMAL");
}

static void test_user_defined(void)
{
    uint16_t begin = xptiRegisterUserDefinedTracePoint("myTest", XPTI_TRACE_POINT_BEGIN(0));
    uint16_t end = xptiRegisterUserDefinedTracePoint("myTest", XPTI_TRACE_POINT_END(0));
    uint16_t other = xptiRegisterUserDefinedTracePoint("otherTool", XPTI_TRACE_POINT_BEGIN(1));
    uint16_t ev = xptiRegisterUserDefinedEventType("myTest", XPTI_EVENT(3));
    tap_ok(XPTI_TOOL_ID(begin) == 1 && XPTI_TOOL_ID(end) == 1,
           "first vendor gets tool id 1 (begin %#x end %#x)", begin, end);
    tap_ok((begin & 0x80) && XPTI_EXTRACT_USER_DEFINED_ID(begin) == 0 &&
               XPTI_EXTRACT_USER_DEFINED_ID(end) == 1,
           "user-defined bit set, begin/end encoded in the low bits");
    tap_ok(XPTI_TOOL_ID(other) == 2 && XPTI_EXTRACT_USER_DEFINED_ID(other) == 2,
           "a second vendor gets tool id 2");
    tap_ok(ev == ((1 << 8) | 0x80 | 3), "user-defined event type uses the same formula");
}

static void *read_tls(void *arg)
{
    char *key = NULL;
    uint64_t v = 0;
    uint64_t *out = arg;
    out[0] = xptiGetUniversalId();
    out[1] = (uint64_t)xptiGetStashedTuple(&key, &v);
    return NULL;
}

static void test_thread_state(void)
{
    char *key = NULL;
    uint64_t value = 0;
    tap_ok(xptiGetUniversalId() == 0, "universal id starts at 0");
    xptiSetUniversalId(0x1234);
    tap_ok(xptiGetUniversalId() == 0x1234, "universal id reads back");
    tap_ok(xptiGetStashedTuple(&key, &value) == XPTI_RESULT_NOTFOUND, "nothing stashed yet");
    tap_ok(xptiStashTuple(NULL, 1) == XPTI_RESULT_FAIL, "stashing a NULL key fails");
    tap_ok(xptiStashTuple("queue_id", 7) == XPTI_RESULT_SUCCESS, "stash a tuple");
    tap_ok(xptiGetStashedTuple(NULL, &value) == XPTI_RESULT_INVALIDARG,
           "reading the stash into NULL is INVALIDARG");
    tap_ok(xptiGetStashedTuple(&key, &value) == XPTI_RESULT_SUCCESS &&
               strcmp(key, "queue_id") == 0 && value == 7,
           "stashed tuple reads back");
    xptiUnstashTuple();
    tap_ok(xptiGetStashedTuple(&key, &value) == XPTI_RESULT_SUCCESS,
           "unstash keeps the tuple, as G3 does");
    uint64_t seen[2] = {99, 0};
    pthread_t t;
    pthread_create(&t, NULL, read_tls, seen);
    pthread_join(t, NULL);
    tap_ok(seen[0] == 0 && seen[1] == (uint64_t)XPTI_RESULT_NOTFOUND,
           "another thread sees neither the universal id nor the stash");
    tap_ok(!xptiCheckTracepointScopeNotification(), "scope notification is off by default");
    xptiEnableTracepointScopeNotification(true);
    tap_ok(xptiCheckTracepointScopeNotification(), "scope notification can be enabled");
    xptiEnableTracepointScopeNotification(false);
}

int main(void)
{
    tap_plan(62);
    unsetenv("XPTI_SUBSCRIBERS");
    test_initialize();
    xptiReset();
    test_strings();
    xptiReset();
    test_string_arena();
    test_objects();
    xptiReset();
    test_unique_ids();
    xptiReset();
    test_defaults();
    test_streams();
    test_user_defined();
    test_thread_state();
    xptiFinalize("tables");
    return tap_done();
}
