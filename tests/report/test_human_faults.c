/* SPDX-License-Identifier: MIT */
/* The human dump's page-fault lines: a PAGE_FAULT event names an address,
 * not a thread, so every thread a device holds at a page fault is counted
 * under each of its addresses. A device with several addresses gets one
 * line saying so (four lines of "4 threads" are four threads, not
 * sixteen); a device with one address, and the other devices, get none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/emitter.h"
#include "tests/lib/tap.h"

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* The faults section for n faults, as the human emitter writes it. */
static char *faults_text(const struct report_fault *fa, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    struct report_emitter em;
    if (!mem)
        return NULL;
    em = report_human_new(mem, true);
    if (!em.ctx) {
        fclose(mem);
        free(text);
        return NULL;
    }
    em.ops->faults(em.ctx, fa, n);
    em.ops->free(em.ctx);
    fclose(mem);
    return text;
}

static struct report_fault fault(unsigned device, uint64_t addr, unsigned nthreads)
{
    struct report_fault f;
    memset(&f, 0, sizeof(f));
    f.device = device;
    f.session = device;
    f.addr = addr;
    f.why = ZD_FAULT_MAPPING;
    f.nthreads = nthreads;
    return f;
}

int main(void)
{
    struct report_fault four[4], mixed[3], one[1];
    char *text;

    tap_plan(7);

    for (unsigned i = 0; i < 4; i++)
        four[i] = fault(0, 0x1000 + 0x40 * i, 4);
    text = faults_text(four, 4);
    tap_ok(text && count(text, "page fault at 0x") == 4 &&
               count(text, "on device 0: 4 threads\n") == 4,
           "four addresses of one device: a line each, each counting its 4 threads");
    tap_ok(count(text,
                 "(device 0: the driver does not say which thread faulted at which of its "
                 "4 addresses; each line counts all 4 threads it holds at a page fault)\n") == 1,
           "and one line saying the same 4 threads are under each address");
    tap_ok(text && strstr(text, "at a page fault)\n") ==
                       text + strlen(text) - strlen("at a page fault)\n"),
           "that line comes after the addresses");
    free(text);

    mixed[0] = fault(0, 0x1000, 2);
    mixed[1] = fault(1, 0x2000, 3);
    mixed[2] = fault(0, 0x1040, 2);
    text = faults_text(mixed, 3);
    tap_ok(text && count(text, "page fault at 0x") == 3, "two devices: three address lines");
    tap_ok(count(text, "(device 0: the driver does not say") == 1 &&
               count(text, "of its 2 addresses; each line counts all 2 threads") == 1,
           "device 0 (two addresses, not next to each other) is said once");
    tap_ok(count(text, "(device 1:") == 0, "device 1 (one address) is not");
    free(text);

    one[0] = fault(0, 0x1000, 4);
    text = faults_text(one, 1);
    tap_ok(text && count(text, "page fault at 0x1000 (mapping) on device 0: 4 threads\n") == 1 &&
               count(text, "the driver does not say") == 0,
           "one address: its line alone");
    free(text);
    return tap_done();
}
