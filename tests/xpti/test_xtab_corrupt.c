/* SPDX-License-Identifier: MIT */
/* A table from a crashed or hostile application: the reader must say
 * "XPTI table unusable: <reason>" for a bad header, skip bad records, and
 * never crash or read outside the table. Run under ASan in CI. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/lib/tap.h"
#include "xpti/xtab_format.h"
#include "xpti/xtab_reader.h"
#include "xpti/xtab_writer.h"

#define UID40 (UINT64_C(1) << 40)

static unsigned char *good;
static size_t good_len;

/* A small sound table with one of everything. */
static void build(void)
{
    static const struct xtab_caps caps = {.sites = 4, .tasks = 4, .allocs = 4, .strings = 256};
    struct xtab_w w;
    good_len = xtab_w_size(&caps);
    good = aligned_alloc(64, good_len);
    memset(good, 0, good_len);
    if (xtab_w_init(&w, good, good_len, &caps) != 0)
        tap_bail("xtab_w_init");
    struct xtab_site_in in = {.uid = UID40, .key1 = 1, .kernel = "k", .file = "f.cpp"};
    xtab_w_site_add(&w, &in);
    xtab_w_task_begin(&w, UID40, 1, 0, 0, 5);
    xtab_w_alloc(&w, 0x10000, 64, 0, 0, UID40, 0, 6);
    xtab_w_destroy(&w);
}

static struct xtab_header *hdr(unsigned char *b)
{
    return (struct xtab_header *)b;
}

/* Opens a modified copy and expects the header to be rejected with `why`. */
static void rejected(const char *what, size_t len, void (*spoil)(unsigned char *), const char *why)
{
    unsigned char *b = malloc(good_len);
    memcpy(b, good, good_len);
    if (spoil)
        spoil(b);
    char err[256] = "";
    struct xtab *t = xtab_open_buffer(b, len, err, sizeof(err));
    if (!tap_ok(!t && !strncmp(err, XTAB_ERR_PREFIX, strlen(XTAB_ERR_PREFIX)) && strstr(err, why),
                "%s: rejected", what))
        tap_diag("err: %s", err);
    xtab_close(t);
    free(b);
}

static void random_bytes(unsigned char *b)
{
    srand(7);
    for (size_t i = 0; i < good_len; i++)
        b[i] = (unsigned char)rand();
}
static void bad_version(unsigned char *b)
{
    hdr(b)->version = 2;
}
static void bad_header_size(unsigned char *b)
{
    hdr(b)->header_size = 64;
}
static void huge_total(unsigned char *b)
{
    hdr(b)->total_size = UINT64_MAX;
}
static void tasks_outside(unsigned char *b)
{
    hdr(b)->tasks.offset = hdr(b)->total_size;
}
static void tasks_wrap(unsigned char *b)
{
    hdr(b)->tasks.capacity = UINT32_MAX;
}
static void sites_misaligned(unsigned char *b)
{
    hdr(b)->sites.offset += 4;
}
static void sites_in_header(unsigned char *b)
{
    hdr(b)->sites.offset = 8;
}
static void alloc_rec_size(unsigned char *b)
{
    hdr(b)->allocs.record_size = 8;
}
static void strings_outside(unsigned char *b)
{
    hdr(b)->strings_size = UINT64_MAX - 10;
}
static void areas_overlap(unsigned char *b)
{
    hdr(b)->allocs.offset = hdr(b)->tasks.offset;
}

static void test_headers(void)
{
    rejected("random bytes", good_len, random_bytes, "bad magic");
    rejected("empty file", 0, NULL, "truncated");
    rejected("truncated to 100 bytes", 100, NULL, "truncated");
    rejected("truncated by one byte", good_len - 1, NULL, "truncated");
    rejected("wrong version", good_len, bad_version, "format version 2");
    rejected("wrong header size", good_len, bad_header_size, "header size");
    rejected("size beyond the file", good_len, huge_total, "truncated");
    rejected("task area past the end", good_len, tasks_outside, "outside");
    rejected("task capacity overflowing", good_len, tasks_wrap, "outside");
    rejected("misaligned site area", good_len, sites_misaligned, "outside");
    rejected("site area inside the header", good_len, sites_in_header, "outside");
    rejected("wrong record size", good_len, alloc_rec_size, "allocation records are 8 bytes");
    rejected("string area past the end", good_len, strings_outside, "string area");
    rejected("overlapping areas", good_len, areas_overlap, "overlap");
}

static struct xtab *open_spoilt(unsigned char *b)
{
    char err[256];
    struct xtab *t = xtab_open_buffer(b, good_len, err, sizeof(err));
    if (!t)
        tap_bail(err);
    return t;
}

static void *rec(unsigned char *b, const struct xtab_area *a, size_t i)
{
    return b + a->offset + i * a->record_size;
}

static void test_records(void)
{
    unsigned char *b = malloc(good_len);
    struct xtab_header *h = hdr(b);
    struct xtab_site s;
    struct xtab_task task;
    struct xtab_alloc a;
    struct xtab_stats st;

    memcpy(b, good, good_len);
    ((struct xtab_site_rec *)rec(b, &h->sites, 0))->kernel.offset = 0x7fffffff;
    struct xtab *t = open_spoilt(b);
    tap_ok(xtab_site_at(t, 0, &s) == -ENOENT && xtab_find_kernel(t, "k", &s, 1, NULL, NULL) == 0,
           "string offset outside the string area: record skipped");
    xtab_stats(t, &st);
    tap_ok(st.bad_records >= 1, "and counted as a bad record");
    xtab_close(t);

    memcpy(b, good, good_len);
    struct xtab_site_rec *sr = rec(b, &h->sites, 0);
    memset(b + h->strings_offset + sr->kernel.offset, 'x', h->strings_size - sr->kernel.offset);
    t = open_spoilt(b);
    tap_ok(xtab_site_at(t, 0, &s) == -ENOENT, "string without its NUL: record skipped");
    xtab_close(t);

    memcpy(b, good, good_len);
    ((struct xtab_site_rec *)rec(b, &h->sites, 0))->file.length = UINT32_MAX - 1;
    t = open_spoilt(b);
    tap_ok(xtab_site_at(t, 0, &s) == -ENOENT, "huge string length: record skipped");
    xtab_close(t);

    memcpy(b, good, good_len);
    ((struct xtab_task_rec *)rec(b, &h->tasks, 0))->site = 1000;
    t = open_spoilt(b);
    tap_ok(xtab_task_at(t, 0, &task) == -ENOENT, "task naming a site past the capacity: skipped");
    xtab_close(t);

    memcpy(b, good, good_len);
    ((struct xtab_task_rec *)rec(b, &h->tasks, 0))->ticket = 3;
    ((struct xtab_task_rec *)rec(b, &h->tasks, 0))->seq = 7; /* forever being written */
    t = open_spoilt(b);
    tap_ok(xtab_task_at(t, 0, &task) == -ENOENT, "task stuck mid-write: reported busy");
    xtab_close(t);

    memcpy(b, good, good_len);
    ((struct xtab_task_rec *)rec(b, &h->tasks, 0))->ticket = 3;
    t = open_spoilt(b);
    tap_ok(xtab_task_at(t, 0, &task) == -ENOENT, "task in the wrong slot for its ticket: skipped");
    xtab_close(t);

    memcpy(b, good, good_len);
    ((struct xtab_alloc_rec *)rec(b, &h->allocs, 0))->state = 9;
    t = open_spoilt(b);
    tap_ok(xtab_find_alloc(t, 0x10000, &a) == -ENOENT, "allocation with a bad state: skipped");
    xtab_close(t);

    memcpy(b, good, good_len);
    struct xtab_alloc_rec *ar = rec(b, &h->allocs, 0);
    ar->base = UINT64_MAX - 10;
    ar->size = UINT64_MAX;
    ar->guard = UINT64_MAX;
    t = open_spoilt(b);
    tap_ok(xtab_find_alloc(t, 5, &a) == -ENOENT && xtab_find_alloc(t, UINT64_MAX, &a) == 0,
           "allocation bounds that overflow are handled");
    xtab_close(t);

    /* The writer never counts a site, an allocation or a string byte past
     * its area: such a counter was overwritten, and its figures are lies. */
    char err[256] = "";
    memcpy(b, good, good_len);
    h->counters.sites = UINT64_MAX;
    t = xtab_open_buffer(b, good_len, err, sizeof(err));
    tap_ok(!t && strstr(err, XTAB_ERR_PREFIX) && strstr(err, "site counter"),
           "a site counter beyond the capacity: unusable, with the reason: %s", err);
    xtab_close(t);
    memcpy(b, good, good_len);
    h->counters.allocs = 1u << 31;
    t = xtab_open_buffer(b, good_len, err, sizeof(err));
    tap_ok(!t && strstr(err, "allocation counter"),
           "an allocation counter beyond the capacity: unusable: %s", err);
    xtab_close(t);
    /* The task ticket only grows: a huge one is a ring gone round often. */
    memcpy(b, good, good_len);
    h->counters.task_ticket = UINT64_MAX;
    t = open_spoilt(b);
    tap_ok(xtab_count(t, XTAB_TASKS) == 4,
           "a huge task ticket opens, its slot count clamped to the capacity");
    int ok = 1;
    for (size_t i = 0; i < 4; i++)
        ok &= xtab_task_at(t, i, &task) == 0 || xtab_task_at(t, i, &task) == -ENOENT;
    tap_ok(ok && xtab_find_uid(t, UID40, &s) == 0, "and its records still read");
    xtab_close(t);
    free(b);
}

/* A live table whose header is rewritten after it was opened. */
static void test_refresh_and_fd(void)
{
    char err[256] = "";
    int fd = memfd_create("zestub-xpti", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)good_len) != 0 || pwrite(fd, good, good_len, 0) < 0)
        tap_bail("memfd");
    struct xtab *t = xtab_open_fd(fd, err, sizeof(err));
    tap_ok(!t && strstr(err, "not sealed"), "an unsealed table is refused (it could shrink)");
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
    t = xtab_open_fd(fd, err, sizeof(err));
    if (!tap_ok(t != NULL, "the sealed one opens"))
        tap_diag("%s", err);
    uint32_t v = 3;
    if (pwrite(fd, &v, sizeof(v), offsetof(struct xtab_header, version)) < 0)
        tap_bail("pwrite");
    struct xtab_site s;
    tap_ok(t && xtab_refresh(t, err, sizeof(err)) == -EPROTO && strstr(err, XTAB_ERR_PREFIX),
           "refresh notices a changed header: %s", err);
    xtab_close(t);
    t = NULL;
    v = XTAB_VERSION;
    uint64_t huge = UINT64_MAX / 2;
    if (pwrite(fd, &v, sizeof(v), offsetof(struct xtab_header, version)) < 0 ||
        !(t = xtab_open_fd(fd, err, sizeof(err))) ||
        pwrite(fd, &huge, sizeof(huge),
               offsetof(struct xtab_header, counters) + offsetof(struct xtab_counters, sites)) < 0)
        tap_bail("cannot reopen the table");
    tap_ok(xtab_refresh(t, err, sizeof(err)) == -EPROTO && strstr(err, "site counter"),
           "refresh notices a counter overwritten after the open: %s", err);
    tap_ok(t && xtab_count(t, XTAB_SITES) == 0 && xtab_find_uid(t, UID40, &s) == -ENOENT,
           "and the broken table answers nothing");
    xtab_close(t);
    close(fd);
    int null = open("/dev/null", O_RDONLY);
    tap_ok(!xtab_open_fd(null, err, sizeof(err)) && strstr(err, "not a memory file"),
           "a device is refused");
    close(null);
}

static void test_open_by_pid(void)
{
    char err[256];
    tap_ok(!xtab_open(getpid(), err, sizeof(err)) && strstr(err, "application not instrumented"),
           "a process without a table: %s", err);
    tap_ok(!xtab_open(0x7ffffff0, err, sizeof(err)) && strstr(err, "no such process"),
           "no such process: %s", err);
}

int main(void)
{
    tap_plan(35);
    build();
    test_headers();
    test_records();
    test_refresh_and_fd();
    test_open_by_pid();
    free(good);
    return tap_done();
}
