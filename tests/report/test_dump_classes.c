/* SPDX-License-Identifier: MIT */
/* cli/dump_classes.c on its own: which threads share a class, the order
 * classes are printed in, thread ranges, the cap on listed ranges, and the
 * representative record each class keeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/dump_classes.h"
#include "regsets/regs.h"
#include "tests/lib/tap.h"

/* Thread `index` of a device laid out 2 slices x 2 subslices x 4 EUs x 8. */
static struct dump_thread at(unsigned session, uint32_t index, enum isa_stop_reason reason,
                             const char *kernel, unsigned line, uint64_t pc)
{
    struct dump_thread t;
    memset(&t, 0, sizeof(t));
    t.session = session;
    t.thread = index;
    t.id.thread = index % 8;
    t.id.eu = (index / 8) % 4;
    t.id.subslice = (index / 32) % 2;
    t.id.slice = index / 64;
    t.reason = reason;
    t.has_pc = pc != 0;
    t.pc = pc;
    if (kernel) {
        t.has_location = true;
        t.loc.kernel = kernel;
        t.loc.function = kernel;
        t.loc.file = "k.cl";
        t.loc.has_line = line != 0;
        t.loc.line = line;
    }
    return t;
}

static char *print(struct dump_classes *c)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    dump_classes_print(c, f);
    fclose(f);
    return text;
}

int main(void)
{
    struct dump_classes *c = dump_classes_new();
    struct dump_thread t;
    char *out;
    unsigned firsts = 0;
    tap_plan(10);

    /* Class A: threads 0-9 at k.cl:5 (page fault): first, a reason of its
     * own. Class B: 20-49 at k.cl:7 (interrupt): larger, yet after A, and
     * before the smaller interrupt class C (no line: by pc). D: A's place
     * on another device, after A (same reason, smaller). */
    for (uint32_t i = 0; i < 10; i++) {
        t = at(0, i, ISA_STOP_PAGE_FAULT, "k", 5, 0x100);
        if (dump_classes_add(c, &t, 0, i)) {
            firsts++;
            dump_classes_set_record(c, strdup("  record of A\n"));
        }
    }
    for (uint32_t i = 20; i < 50; i++) {
        /* Different pcs on the same line are one class. */
        t = at(0, i, ISA_STOP_INTERRUPT, "k", 7, 0x200 + i);
        if (dump_classes_add(c, &t, 0, i)) {
            firsts++;
            dump_classes_set_record(c, strdup("  record of B\n"));
        }
    }
    t = at(0, 60, ISA_STOP_INTERRUPT, NULL, 0, 0x999);
    if (dump_classes_add(c, &t, 0, 60)) {
        firsts++;
        dump_classes_set_record(c, strdup("  record of C\n"));
    }
    /* The same place on another device (session 1) is another class. */
    t = at(1, 0, ISA_STOP_PAGE_FAULT, "k", 5, 0x100);
    if (dump_classes_add(c, &t, 1, 0)) {
        firsts++;
        dump_classes_set_record(c, strdup("  record of D\n"));
    }
    tap_ok(firsts == 4 && dump_classes_count(c) == 4,
           "4 classes, each first thread reported once (%u firsts)", firsts);

    out = print(c);
    tap_ok(out && strstr(out, "4 classes") != NULL, "the heading counts the classes");
    tap_ok(out && strstr(out, "class 1: 10 threads on device 0: page-fault in k (k.cl:5)\n") &&
               strstr(out, "class 2: 1 thread on device 1: page-fault in k (k.cl:5)\n") &&
               strstr(out, "class 3: 30 threads on device 0: interrupt in k (k.cl:7)\n"),
           "faults first (A, then D: another device is another class), then the interrupted "
           "(B: 30 threads, one line despite 30 pcs)");
    tap_ok(out && strstr(out, "class 4: 1 thread on device 0: interrupt at pc 0x999\n"),
           "among the interrupted, largest first; no line: the pc");
    tap_ok(out && strstr(out, "  threads 0.0.2.4-0.1.2.1\n") &&
               strstr(out, "  threads 0.0.0.0-0.0.1.1\n"),
           "consecutive threads as one range (20-49: 0.0.2.4-0.1.2.1; 0-9: 0.0.0.0-0.0.1.1)");
    tap_ok(out && strstr(out, "interrupt at pc 0x999\n  threads 0.1.3.4\n  representative:\n"
                              "  record of C\n"),
           "a class of one: its thread and its record");
    tap_ok(out && strstr(out, "record of A") < strstr(out, "record of D") &&
               strstr(out, "record of D") < strstr(out, "record of B") &&
               strstr(out, "record of B") < strstr(out, "record of C"),
           "each class's representative record follows it");
    tap_ok(dump_classes_count(c) == 0, "printing empties the classes");
    free(out);

    /* 100 threads, every other one: 50 runs, of which 24 are listed. */
    for (uint32_t i = 0; i < 200; i += 2) {
        t = at(0, i % 256, ISA_STOP_INTERRUPT, "k", 9, 0x300);
        if (dump_classes_add(c, &t, 0, i))
            dump_classes_set_record(c, strdup("  rec\n"));
    }
    out = print(c);
    tap_ok(out && strstr(out, "class 1: 100 threads") && strstr(out, ", ... and 76 more\n"),
           "past 24 ranges the rest are counted: ... and 76 more");
    tap_ok(out && !strstr(out, "0.1.0.0-"), "scattered threads are not shown as ranges");
    if (out && tap_failed_)
        tap_diag("%s", out);
    free(out);
    dump_classes_free(c);
    return tap_done();
}
