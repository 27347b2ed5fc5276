/* SPDX-License-Identifier: MIT */
/* Metadata on events: xptiAddMetadata rules and the C accessors that stand
 * in for the C++ map (see xpti/README.md). */
#include <stdlib.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"

static xpti_object_id_t int_object(int64_t v)
{
    return xptiRegisterObject((const char *)&v, sizeof(v), XPTI_MD_SIGNED_INTEGER);
}

int main(void)
{
    tap_plan(17);
    unsetenv("XPTI_SUBSCRIBERS");
    struct xpti_payload p = {.name = "md", .flags = XPTI_PAYLOAD_NAME_AVAILABLE};
    uint64_t inst;
    struct xpti_event *ev = xptiMakeEvent("md", &p, XPTI_EV_ALGORITHM, 1, &inst);
    struct xpti_event foreign = *ev;
    xpti_object_id_t line = int_object(42), col = int_object(7);

    tap_ok(xptiAddMetadata(NULL, "k", line) == XPTI_RESULT_INVALIDARG, "NULL event");
    tap_ok(xptiAddMetadata(ev, NULL, line) == XPTI_RESULT_INVALIDARG, "NULL key");
    tap_ok(xptiAddMetadata(ev, "", line) == XPTI_RESULT_INVALIDARG, "empty key");
    tap_ok(xptiAddMetadata(&foreign, "k", line) == XPTI_RESULT_INVALIDARG,
           "an event the framework did not make");
    tap_ok(xptiAddMetadata(ev, "sym_line_no", line) == XPTI_RESULT_SUCCESS, "add a key");
    tap_ok(xptiAddMetadata(ev, "sym_column_no", col) == XPTI_RESULT_SUCCESS, "add another key");
    tap_ok(xptiAddMetadata(ev, "sym_line_no", col) == XPTI_RESULT_DUPLICATE,
           "adding an existing key is DUPLICATE");
    xpti_object_id_t got = 0;
    tap_ok(xpti_metadata_get(ev, "sym_line_no", &got) == XPTI_RESULT_SUCCESS && got == col,
           "the duplicate still overwrote the value");
    tap_ok(xpti_metadata_get(ev, "missing", &got) == XPTI_RESULT_NOTFOUND, "unknown key");
    tap_ok(xpti_metadata_get(&foreign, "sym_line_no", &got) == XPTI_RESULT_INVALIDARG,
           "foreign event has no metadata");
    tap_ok(xpti_metadata_count(ev) == 2, "two keys");
    const char *key = NULL;
    tap_ok(xpti_metadata_at(ev, 1, &key, &got) == XPTI_RESULT_SUCCESS &&
               strcmp(key, "sym_column_no") == 0 && got == col,
           "items keep insertion order");
    tap_ok(xpti_metadata_at(ev, 2, &key, &got) == XPTI_RESULT_NOTFOUND, "index past the end");
    tap_ok(xptiQueryMetadata(ev) == (void *)ev->reserved.metadata,
           "QueryMetadata points at the event's map bytes");
    struct xpti_object_data d = xptiLookupObject(got);
    int64_t v = 0;
    memcpy(&v, d.data, sizeof(v));
    tap_ok(v == 7, "metadata values resolve through the object table");

    uint64_t inst2;
    struct xpti_event *ev2 = xptiMakeEvent("md", &p, XPTI_EV_ALGORITHM, 1, &inst2);
    tap_ok(xpti_metadata_count(ev2) == 0, "each instance has its own metadata");
    xptiReleaseEvent(ev);
    tap_ok(xpti_metadata_count(ev) == 0 && xptiAddMetadata(ev, "k", line) == XPTI_RESULT_INVALIDARG,
           "a released event has no metadata any more");
    return tap_done();
}
