/* SPDX-License-Identifier: MIT */
/* Two processes that register the same payload agree on its 128-bit key and
 * 64-bit id, even when their string tables, registration histories and
 * address layouts differ. The test runs itself twice as a child. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"

struct observed {
    uint64_t p1, p2, instance, uid64, event_address;
};

/* Child: make some unrelated noise first (different per child), then the
 * payload under test, and print what the framework assigned. */
static int child(const char *noise)
{
    char *copy;
    for (int i = 0; i < atoi(noise); i++) {
        char name[32];
        snprintf(name, sizeof(name), "noise_%d", i);
        xptiRegisterString(name, &copy);
        xptiCreateTracepoint(name, "noise.cpp", (uint32_t)i, 0, NULL);
    }
    struct xpti_tracepoint_if *tp =
        xptiCreateTracepoint("parallel_for<Add>", "vadd.cpp", 42, 7, NULL);
    struct xpti_event *ev = xpti_tracepoint_event(tp);
    if (!ev)
        return 1;
    const struct xpti_payload *p = ev->reserved.payload;
    printf("%" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIx64 " %" PRIxPTR "\n",
           (p->uid.p1 & 0xFFFFFFFF00000000u) | (uint32_t)p->uid.p2,
           (uint64_t)p->column_no << 32 | p->line_no, ev->instance_id, ev->unique_id,
           (uintptr_t)ev);
    return 0;
}

static int run_child(const char *noise, struct observed *out)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "/proc/%d/exe --child %s", (int)getpid(), noise);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    int n = fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNu64 " %" SCNx64 " %" SCNx64, &out->p1,
                   &out->p2, &out->instance, &out->uid64, &out->event_address);
    return pclose(f) == 0 && n == 5 ? 0 : -1;
}

int main(int argc, char **argv)
{
    unsetenv("XPTI_SUBSCRIBERS");
    unsetenv("XPTI_USE_STRICT_HASH");
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child(argv[2]);
    tap_plan(6);

    struct observed a, b;
    if (!tap_ok(run_child("0", &a) == 0 && run_child("50", &b) == 0, "both children ran"))
        return tap_done();
    tap_ok(a.p1 == b.p1 && a.p2 == b.p2, "same 128-bit key in both processes");
    tap_ok(a.instance == 1 && b.instance == 1, "first instance in both");
    tap_ok(a.uid64 == b.uid64, "same 64-bit id in both processes (%" PRIx64 ")", a.uid64);
    struct xpti_uid128 k = xpti_make_key("parallel_for<Add>", "vadd.cpp", 42, 7);
    tap_ok(k.p1 == a.p1 && k.p2 == a.p2, "a third process computes the same key without a table");
    tap_ok(xpti_uid64_derive(k.p1, k.p2, 1, 0) == a.uid64, "and the same id from key and instance");
    if (a.event_address == b.event_address)
        tap_diag("both children placed the event at the same address (no ASLR?)");
    return tap_done();
}
