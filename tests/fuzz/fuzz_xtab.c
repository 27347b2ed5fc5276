/* SPDX-License-Identifier: MIT */
/* Fuzz target for the XPTI table reader: any bytes as a table must give
 * "unusable" with a reason, or answers that keep the reader's promises
 * (xpti/xtab_reader.h), never a crash or an out-of-bounds read (run under
 * ASan). With -DZESTUB_LIBFUZZER this is a libFuzzer target that aborts on
 * a broken promise; otherwise a small driver replays files given as
 * arguments and then mutations of a sound table, so `make check` runs it
 * without libFuzzer (TAP output, one check per promise over all tables);
 * `fuzz_xtab --write-seed FILE` writes that sound table for a corpus. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/xtab_reader.h"

/* The promises checked on every table, one bit each in a violation mask. */
enum promise {
    P_REJECT_REASON, /* a refused table says "XPTI table unusable: <reason>" */
    P_COUNTS,        /* slot counts never exceed the capacities */
    P_RANGE,         /* *_at answers 0 or -ENOENT below the count, -ERANGE at it */
    P_RECORDS,       /* records hand out in-bounds indexes and bounded strings */
    P_QUERIES,       /* queries answer what they match, in bounds */
    P_REFRESH,       /* refresh: 0, or -EPROTO with the unusable reason */
    P_COUNT
};

static const char *const promise_name[P_COUNT] = {
    "a rejected table is refused with \"" XTAB_ERR_PREFIX "<reason>\"",
    "slot counts never exceed the table's capacities",
    "record reads answer 0/-ENOENT below the count and -ERANGE at it",
    "every record read has in-bounds indexes and NUL-terminated strings",
    "kernel, uid and address queries answer only matching, bounded records",
    "refresh answers 0 or -EPROTO with the unusable reason",
};

/* Outcome of one table, for the driver's sanity checks. */
static int last_opened;

static int bounded(const char *s, size_t cap)
{
    return memchr(s, 0, cap) != NULL;
}

static int site_bounded(const struct xtab_site *s)
{
    return bounded(s->kernel, sizeof(s->kernel)) && bounded(s->function, sizeof(s->function)) &&
           bounded(s->file, sizeof(s->file)) && bounded(s->device, sizeof(s->device));
}

static int site_index_ok(uint32_t site, uint32_t capacity)
{
    return site == UINT32_MAX || site < capacity;
}

static int reason_ok(const char *err)
{
    size_t n = strlen(XTAB_ERR_PREFIX);
    return strncmp(err, XTAB_ERR_PREFIX, n) == 0 && err[n] != 0;
}

static unsigned check_sites(struct xtab *t, const struct xtab_stats *st)
{
    unsigned bad = 0;
    size_t n = xtab_count(t, XTAB_SITES);
    struct xtab_site s[2];
    struct xtab_task task;
    int have;
    for (size_t i = 0; i < n; i++) {
        int rc = xtab_site_at(t, i, s);
        if (rc != 0 && rc != -ENOENT)
            bad |= 1u << P_RANGE;
        if (rc != 0)
            continue;
        if (s[0].index != i || !site_bounded(&s[0]))
            bad |= 1u << P_RECORDS;
        char name[XTAB_KERNEL_MAX];
        memcpy(name, s[0].kernel, sizeof(name));
        int found = xtab_find_kernel(t, name, s, 2, &task, &have);
        /* The site just read matches its own name: at least one answer. */
        if (found < 1)
            bad |= 1u << P_QUERIES;
        for (int k = 0; k < found && k < 2; k++)
            if (!site_bounded(&s[k]) || strcmp(s[k].kernel, name) != 0 ||
                s[k].index >= st->site_capacity)
                bad |= 1u << P_QUERIES;
        if (found > 0 && have && !site_index_ok(task.site, st->site_capacity))
            bad |= 1u << P_QUERIES;
    }
    if (xtab_site_at(t, n, s) != -ERANGE)
        bad |= 1u << P_RANGE;
    return bad;
}

static unsigned check_tasks(struct xtab *t, const struct xtab_stats *st)
{
    unsigned bad = 0;
    size_t n = xtab_count(t, XTAB_TASKS);
    struct xtab_task task;
    struct xtab_site s;
    for (size_t i = 0; i < n; i++) {
        int rc = xtab_task_at(t, i, &task);
        if (rc != 0 && rc != -ENOENT)
            bad |= 1u << P_RANGE;
        if (rc != 0)
            continue;
        if (task.ticket % st->task_capacity != i || !site_index_ok(task.site, st->site_capacity))
            bad |= 1u << P_RECORDS;
        rc = xtab_find_uid(t, task.uid, &s);
        if (rc != 0 && rc != -ENOENT)
            bad |= 1u << P_QUERIES;
        if (rc == 0 && (!site_bounded(&s) || s.index >= st->site_capacity))
            bad |= 1u << P_QUERIES;
    }
    if (xtab_task_at(t, n, &task) != -ERANGE)
        bad |= 1u << P_RANGE;
    return bad;
}

static unsigned check_allocs(struct xtab *t, const struct xtab_stats *st)
{
    unsigned bad = 0;
    size_t n = xtab_count(t, XTAB_ALLOCS);
    struct xtab_alloc a, f;
    for (size_t i = 0; i < n; i++) {
        int rc = xtab_alloc_at(t, i, &a);
        if (rc != 0 && rc != -ENOENT)
            bad |= 1u << P_RANGE;
        if (rc != 0)
            continue;
        if ((a.live != 0 && a.live != 1) || !site_index_ok(a.alloc_site, st->site_capacity) ||
            !site_index_ok(a.free_site, st->site_capacity))
            bad |= 1u << P_RECORDS;
        rc = xtab_find_alloc(t, a.base, &f);
        if (rc != 0 && rc != -ENOENT)
            bad |= 1u << P_QUERIES;
        if (rc == 0 &&
            ((f.live != 0 && f.live != 1) || !site_index_ok(f.alloc_site, st->site_capacity)))
            bad |= 1u << P_QUERIES;
    }
    if (xtab_alloc_at(t, n, &a) != -ERANGE)
        bad |= 1u << P_RANGE;
    return bad;
}

/* Opens `data` as a table and returns the promises it broke (a mask). */
static unsigned check_table(const uint8_t *data, size_t size)
{
    char err[256] = "";
    struct xtab *t = xtab_open_buffer(data, size, err, sizeof(err));
    unsigned bad = 0;
    last_opened = t != NULL;
    if (!t)
        return reason_ok(err) ? 0 : 1u << P_REJECT_REASON;
    struct xtab_stats st;
    xtab_stats(t, &st);
    if (xtab_count(t, XTAB_SITES) > st.site_capacity ||
        xtab_count(t, XTAB_TASKS) > st.task_capacity ||
        xtab_count(t, XTAB_ALLOCS) > st.alloc_capacity)
        bad |= 1u << P_COUNTS;
    /* An accepted table has areas: a zero capacity would have been refused. */
    if (st.site_capacity && st.task_capacity && st.alloc_capacity) {
        bad |= check_sites(t, &st);
        bad |= check_tasks(t, &st);
        bad |= check_allocs(t, &st);
    } else {
        bad |= 1u << P_COUNTS;
    }
    struct xtab_site s;
    int have;
    if (xtab_find_kernel(t, "", &s, 1, NULL, &have) < 0)
        bad |= 1u << P_QUERIES;
    err[0] = 0;
    int rc = xtab_refresh(t, err, sizeof(err));
    if (rc != 0 && (rc != -EPROTO || !reason_ok(err)))
        bad |= 1u << P_REFRESH;
    xtab_close(t);
    return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned bad = check_table(data, size);
    for (int p = 0; p < P_COUNT; p++)
        if (bad & (1u << p)) {
            fprintf(stderr, "fuzz_xtab: broken promise: %s\n", promise_name[p]);
            abort();
        }
    return 0;
}

#ifndef ZESTUB_LIBFUZZER
#include "tests/fuzz/plain.h"
#include "tests/lib/tap.h"
#include "xpti/xtab_writer.h"

#define MUTATIONS 20000

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    return fuzz_xorshift(&rng);
}

/* A sound table with records in every area, the mutations' starting point. */
static unsigned char *seed(size_t *len)
{
    static const struct xtab_caps caps = {.sites = 4, .tasks = 8, .allocs = 4, .strings = 128};
    struct xtab_w w;
    *len = xtab_w_size(&caps);
    unsigned char *b = aligned_alloc(64, (*len + 63) & ~(size_t)63);
    memset(b, 0, *len);
    if (xtab_w_init(&w, b, *len, &caps) != 0)
        return NULL;
    struct xtab_site_in in = {.uid = 1ull << 40, .key1 = 1, .kernel = "k", .file = "a.cpp"};
    xtab_w_site_add(&w, &in);
    in.key1 = 2;
    in.kernel = "k2";
    xtab_w_site_add(&w, &in);
    for (uint64_t i = 1; i < 12; i++) {
        xtab_w_task_begin(&w, i << 40, i, (uint32_t)(i & 1), 0, i);
        if (i % 3)
            xtab_w_task_end(&w, i << 40, i, i + 1);
    }
    xtab_w_alloc(&w, 0x1000, 64, 16, 0, 1ull << 40, 0, 1);
    xtab_w_alloc(&w, 0x2000, 64, 0, 0, 2ull << 40, 1, 2);
    xtab_w_release(&w, 0x2000, 3ull << 40, 0, 3);
    xtab_w_destroy(&w);
    return b;
}

/* Seeds a libFuzzer corpus: random bytes rarely get past the magic. */
static int write_seed(const char *path)
{
    size_t len;
    unsigned char *good = seed(&len);
    FILE *f = good ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(good, 1, len, f) == len;
    if (f)
        ok &= fclose(f) == 0;
    free(good);
    return ok ? 0 : 1;
}

/* One mutation of `good` into `b`; returns the length to read. */
static size_t mutate(unsigned char *b, const unsigned char *good, size_t len)
{
    memcpy(b, good, len);
    int flips = 1 + (int)(next_random() % 16);
    for (int k = 0; k < flips; k++) {
        /* Half the damage in the header and counters, where it counts most. */
        size_t at = next_random() % 2 ? next_random() % 256 : next_random() % len;
        b[at] = (unsigned char)next_random();
    }
    return next_random() % 10 == 0 ? next_random() % len : len;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seed") == 0)
        return write_seed(argv[2]);
    /* Plan: one check per replayed file, the seed, one per promise, and
     * that the mutations reached both the refusal and the reading paths. */
    tap_plan(argc - 1 + 1 + P_COUNT + 2);
    unsigned violations[P_COUNT] = {0};
    fuzz_replay_args(argc, argv, check_table);
    size_t len;
    unsigned char *good = seed(&len);
    unsigned char *b = malloc(len);
    if (!good || !b)
        tap_bail("cannot build the seed table");
    tap_ok(check_table(good, len) == 0 && last_opened, "the sound seed table opens and reads");
    unsigned opened = 0, refused = 0;
    for (int m = 0; m < MUTATIONS; m++) {
        size_t cut = mutate(b, good, len);
        unsigned bad = check_table(b, cut);
        opened += last_opened;
        refused += !last_opened;
        for (int p = 0; p < P_COUNT; p++)
            violations[p] += (bad >> p) & 1;
    }
    for (int p = 0; p < P_COUNT; p++)
        tap_ok(violations[p] == 0, "%s (%u of %d tables broke it)", promise_name[p], violations[p],
               MUTATIONS);
    tap_ok(refused > 0, "some mutated tables are refused (%u)", refused);
    tap_ok(opened > 0, "some mutated tables are read (%u)", opened);
    free(b);
    free(good);
    return tap_failed_ ? 1 : 0;
}
#endif
