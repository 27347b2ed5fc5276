/* SPDX-License-Identifier: MIT */
/* The application's writer against a table another process rewrote (issue
 * 16): any process of the user can open the table through /proc/PID/fd and
 * change its header. The writer must keep writing inside its own layout:
 * after offsets, capacities and counters are overwritten with hostile
 * values, every writer operation still runs (no crash, no division by zero;
 * the sanitizer run catches a write outside the buffer) and lands within
 * the table's bytes, which the test checks by surrounding the table with
 * guard bytes that must stay untouched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xtab_writer.h"

#define GUARD 4096

static unsigned char *region;
static size_t table_size;

static int guards_intact(void)
{
    for (size_t i = 0; i < GUARD; i++)
        if (region[i] != 0xA5 || region[GUARD + table_size + i] != 0xA5)
            return 0;
    return 1;
}

static void write_everything(struct xtab_w *w, uint64_t round)
{
    struct xtab_site_in in = {.uid = 0x100000000u + round,
                              .key1 = round,
                              .key2 = 7,
                              .line = 42,
                              .kernel = "hostile",
                              .function = "main",
                              .file = "app.cpp",
                              .device = "gtsim:0"};
    uint32_t site = xtab_w_site_add(w, &in);
    for (uint64_t i = 0; i < 40; i++) {
        xtab_w_task_begin(w, 0x200000000u + round * 100 + i, i + 1, site, 5, 1000 + i);
        xtab_w_task_end(w, 0x200000000u + round * 100 + i, i + 1, 2000 + i);
    }
    xtab_w_task_end(w, 0xdead, 1, 3000); /* unmatched: the ring scan */
    for (uint64_t i = 0; i < 12; i++) {
        xtab_w_alloc(w, 0x10000 * (i + 1), 4096, 64, 0, 0x300000000u + i, site, 10 + i);
        if (i % 2)
            xtab_w_release(w, 0x10000 * (i + 1), 0x400000000u + i, site, 20 + i);
    }
}

int main(void)
{
    struct xtab_caps caps = {.sites = 8, .tasks = 8, .allocs = 4, .strings = 256};
    struct xtab_w w;

    tap_plan(6);
    table_size = xtab_w_size(&caps);
    region = aligned_alloc(4096, (2 * GUARD + table_size + 4095) / 4096 * 4096);
    if (!region || !table_size)
        tap_bail("no memory for the table");
    memset(region, 0xA5, 2 * GUARD + table_size);
    memset(region + GUARD, 0, table_size);
    tap_ok(xtab_w_init(&w, region + GUARD, table_size, &caps) == 0, "a table is laid out");
    write_everything(&w, 1);
    tap_ok(guards_intact(), "an intact table: every write stays inside it");

    /* What another process could write into the header. */
    struct xtab_header *h = w.h;
    h->sites = (struct xtab_area){UINT64_MAX / 2, 1, 0};
    h->tasks = (struct xtab_area){UINT64_C(1) << 40, 0, 0};
    h->allocs = (struct xtab_area){0, 0, UINT32_MAX};
    h->strings_offset = UINT64_C(1) << 50;
    h->strings_size = UINT64_MAX;
    h->total_size = 1;
    h->counters.strings_used = UINT64_MAX - 3;
    h->counters.task_ticket = UINT64_MAX - 5;
    write_everything(&w, 2);
    tap_ok(guards_intact(), "capacities 0, huge offsets and sizes: the writer keeps its layout");

    h->counters.sites = UINT64_MAX;
    h->counters.allocs = 1; /* makes the writer reuse slot 1: data, not memory, is wrong */
    h->counters.strings_used = caps.strings + 1;
    write_everything(&w, 3);
    tap_ok(guards_intact(), "counters beyond the capacities: still inside the table");
    tap_ok(xtab_w_site_add(&w, &(struct xtab_site_in){.key1 = 99, .key2 = 1}) == XTAB_NONE,
           "a site after the counter says full is dropped, not written past the area");
    xtab_w_destroy(&w);
    tap_ok(guards_intact(), "destroy unmaps nothing it did not map (total_size was rewritten)");
    free(region);
    return tap_failed_ ? 1 : 0;
}
