/* SPDX-License-Identifier: MIT */
/* Inlined functions and DW_AT_ranges: the inline_calls fixtures (IGC
 * inlines mix(), which inlines sq() and clampv(); the pieces of mix() are
 * described by a .debug_ranges list) placed as a debug zebin above 4 GiB.
 * The expected answer for each pc comes from binutils' readelf, which
 * decodes .debug_info and .debug_ranges of the debug zebin without
 * libdwarf: the deepest DW_TAG_inlined_subroutine whose ranges hold the pc
 * must be what sym_lookup calls `inlined`, and the kernel stays the
 * `function`. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gtsim/debug_zebin.h"
#include "gtsim/zebin.h"
#include "symbols/symbols.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

#define BASE 0x800000000ULL
#define MAX_DIES 512
#define MAX_RANGES 256

/* One DIE as readelf prints it. */
struct rdie {
    unsigned long off, origin;
    int depth;
    bool inlined, subprogram, has_lohi, has_ranges;
    char name[64];
    uint64_t lo, hi;
    unsigned long ranges;
};

struct rrange {
    unsigned long list; /* offset of its list in .debug_ranges */
    uint64_t begin, end;
};

struct rinfo {
    struct rdie dies[MAX_DIES];
    size_t ndies;
    struct rrange ranges[MAX_RANGES];
    size_t nranges;
};

static FILE *readelf(const char *what, const char *path)
{
    char cmd[1024];
    const char *re = getenv("READELF");
    snprintf(cmd, sizeof(cmd), "%s -W --debug-dump=%s '%s' 2>/dev/null", re ? re : "readelf", what,
             path);
    return popen(cmd, "r");
}

/* The value of a "DW_AT_x : (form) value" line (readelf -W names the form;
 * an indirect string reads "(indirect string, offset: 0x..): value"). */
static const char *attr_value(const char *line)
{
    const char *v = strstr(line, "DW_AT_");
    v = v ? strchr(v, ':') : NULL;
    if (!v)
        return "";
    v++;
    for (;;) {
        while (*v == ' ' || *v == '\t' || *v == ':')
            v++;
        if (*v != '(' || !strchr(v, ')'))
            return v;
        v = strchr(v, ')') + 1;
    }
}

static int parse_info(const char *path, struct rinfo *ri)
{
    char line[512];
    FILE *p = readelf("info", path);
    struct rdie *d = NULL;
    if (!p)
        return -1;
    while (fgets(line, sizeof(line), p)) {
        int depth;
        unsigned long off;
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, " <%d><%lx>: Abbrev Number:", &depth, &off) == 2) {
            d = NULL;
            if (strstr(line, "Abbrev Number: 0") || ri->ndies == MAX_DIES)
                continue;
            d = &ri->dies[ri->ndies++];
            memset(d, 0, sizeof(*d));
            d->off = off;
            d->depth = depth;
            d->inlined = strstr(line, "(DW_TAG_inlined_subroutine)") != NULL;
            d->subprogram = strstr(line, "(DW_TAG_subprogram)") != NULL;
            continue;
        }
        if (!d)
            continue;
        if (strstr(line, "DW_AT_name ")) {
            snprintf(d->name, sizeof(d->name), "%s", attr_value(line));
        } else if (strstr(line, "DW_AT_abstract_origin")) {
            const char *v = strstr(line, "<0x");
            d->origin = v ? strtoul(v + 1, NULL, 16) : 0;
        } else if (strstr(line, "DW_AT_low_pc")) {
            d->lo = strtoull(attr_value(line), NULL, 16);
            d->has_lohi = true;
        } else if (strstr(line, "DW_AT_high_pc")) {
            d->hi = strtoull(attr_value(line), NULL, 16);
        } else if (strstr(line, "DW_AT_ranges")) {
            d->ranges = strtoul(attr_value(line), NULL, 16);
            d->has_ranges = true;
        }
    }
    /* A high_pc below low_pc is a length (DW_FORM_data*): every address
     * here is above BASE, every length far below it. */
    for (size_t i = 0; i < ri->ndies; i++)
        if (ri->dies[i].has_lohi && ri->dies[i].hi < ri->dies[i].lo)
            ri->dies[i].hi += ri->dies[i].lo;
    return pclose(p) == 0 && ri->ndies ? 0 : -1;
}

/* `Offset Begin End` rows; readelf has added the unit's base address. */
static int parse_ranges(const char *path, struct rinfo *ri)
{
    char line[512];
    FILE *p = readelf("Ranges", path);
    if (!p)
        return -1;
    while (fgets(line, sizeof(line), p)) {
        unsigned long list;
        unsigned long long b, e;
        char tail[8];
        if (strchr(line, '<') || strchr(line, '(') || ri->nranges == MAX_RANGES)
            continue;
        if (sscanf(line, " %lx %llx %llx %7s", &list, &b, &e, tail) != 3)
            continue;
        ri->ranges[ri->nranges++] = (struct rrange){list, b, e};
    }
    return pclose(p) == 0 ? 0 : -1;
}

static const struct rdie *die_at(const struct rinfo *ri, unsigned long off)
{
    for (size_t i = 0; i < ri->ndies; i++)
        if (ri->dies[i].off == off)
            return &ri->dies[i];
    return NULL;
}

/* A DIE's name, following abstract origins as DWARF allows. */
static const char *die_name(const struct rinfo *ri, const struct rdie *d)
{
    for (int hops = 0; d && hops < 8; hops++) {
        if (d->name[0])
            return d->name;
        d = d->origin ? die_at(ri, d->origin) : NULL;
    }
    return NULL;
}

static bool covers(const struct rinfo *ri, const struct rdie *d, uint64_t pc)
{
    if (d->has_lohi)
        return d->lo <= pc && pc < d->hi;
    if (d->has_ranges)
        for (size_t i = 0; i < ri->nranges; i++)
            if (ri->ranges[i].list == d->ranges && ri->ranges[i].begin <= pc &&
                pc < ri->ranges[i].end)
                return true;
    return false;
}

/* The deepest inlined subroutine (or subprogram) holding pc, by readelf. */
static const struct rdie *deepest(const struct rinfo *ri, uint64_t pc, bool inlined)
{
    const struct rdie *best = NULL;
    for (size_t i = 0; i < ri->ndies; i++) {
        const struct rdie *d = &ri->dies[i];
        if ((inlined ? d->inlined : d->subprogram) && covers(ri, d, pc) &&
            (!best || d->depth > best->depth))
            best = d;
    }
    return best;
}

static bool same(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* sym_lookup at pc against readelf; a diagnostic for the first misses. */
static bool agrees(const struct sym_module *m, const struct rinfo *ri, uint64_t pc, const char *fx,
                   unsigned *bad)
{
    struct sym_location loc;
    const struct rdie *in = deepest(ri, pc, true), *fn = deepest(ri, pc, false);
    const char *want_in = in ? die_name(ri, in) : NULL, *want_fn = fn ? die_name(ri, fn) : NULL;
    if (sym_lookup(m, pc, &loc) == 0 && same(loc.inlined, want_in) && same(loc.function, want_fn))
        return true;
    if ((*bad)++ < 3)
        tap_diag("%s: pc %#" PRIx64 ": inlined %s function %s, readelf %s / %s", fx, pc,
                 loc.inlined ? loc.inlined : "-", loc.function ? loc.function : "-",
                 want_in ? want_in : "-", want_fn ? want_fn : "-");
    return false;
}

static void check_fixture(const char *dir, const char *fx)
{
    static struct rinfo ri;
    char path[512], tmp[] = "/tmp/zestub-inline-XXXXXX", err[256] = "";
    size_t size = 0, dsize = 0;
    void *raw = NULL, *dbg = NULL;
    struct gtsim_zebin *zb = NULL;
    struct sym_module *m = NULL;
    struct sym_location loc;
    uint64_t kaddr = BASE + 0x40;
    unsigned checked = 0, bad = 0, via_ranges = 0, nested = 0, with_pcs = 0;
    int fd = -1;

    memset(&ri, 0, sizeof(ri));
    if (snprintf(path, sizeof(path), "%s/%s", dir, fx) >= (int)sizeof(path))
        tap_bail("fixture path too long");
    raw = tests_slurp(path, &size);
    if (raw && gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) == 0 &&
        gtsim_debug_zebin_create(zb, &kaddr, &dbg, &dsize, err, sizeof(err)) == 0 &&
        (fd = mkstemp(tmp)) >= 0 && write(fd, dbg, dsize) == (ssize_t)dsize)
        sym_module_open(dbg, dsize, &m, err, sizeof(err));
    if (fd >= 0)
        close(fd);
    if (!tap_ok(m != NULL, "%s: debug zebin at %#" PRIx64 " written and opened %s", fx, kaddr, err))
        goto out;

    if (parse_info(tmp, &ri) != 0 || parse_ranges(tmp, &ri) != 0)
        ri.ndies = 0;
    for (size_t i = 0; i < ri.ndies; i++) {
        const struct rdie *d = &ri.dies[i];
        bool any = d->has_lohi;
        for (size_t k = 0; !any && d->has_ranges && k < ri.nranges; k++)
            any = ri.ranges[k].list == d->ranges;
        if (!d->inlined || !any)
            continue;
        with_pcs++;
        via_ranges += d->has_ranges;
    }
    tap_ok(with_pcs >= 2 && via_ranges >= 1,
           "%s: readelf shows %u inlined subroutines with code, %u of them by DW_AT_ranges", fx,
           with_pcs, via_ranges);

    /* Both ends of every range of every DIE with code, inlined or not. */
    for (size_t i = 0; i < ri.ndies; i++) {
        const struct rdie *d = &ri.dies[i];
        if (!d->inlined && !d->subprogram)
            continue;
        if (d->has_lohi && d->hi > d->lo) {
            checked += 2;
            agrees(m, &ri, d->lo, fx, &bad);
            agrees(m, &ri, d->hi - 1, fx, &bad);
        }
        for (size_t k = 0; d->has_ranges && k < ri.nranges; k++) {
            if (ri.ranges[k].list != d->ranges || ri.ranges[k].end <= ri.ranges[k].begin)
                continue;
            checked += 2;
            agrees(m, &ri, ri.ranges[k].begin, fx, &bad);
            agrees(m, &ri, ri.ranges[k].end - 1, fx, &bad);
        }
    }
    tap_ok(checked > 0 && bad == 0,
           "%s: inlined function and function of %u pcs agree with readelf", fx, checked);

    /* Where an inlined subroutine sits inside another, the inner one is
     * named (the frame GDB shows innermost). */
    for (uint64_t pc = kaddr; pc < sym_module_high(m) && !nested; pc += 8) {
        const struct rdie *in = deepest(&ri, pc, true);
        for (size_t i = 0; in && !nested && i < ri.ndies; i++)
            if (ri.dies[i].inlined && ri.dies[i].depth < in->depth && covers(&ri, &ri.dies[i], pc))
                nested = agrees(m, &ri, pc, fx, &bad) ? 1 : 2;
    }
    tap_ok(nested == 1, "%s: a pc inside two inlined subroutines names the inner one", fx);

    if (sym_lookup(m, kaddr, &loc) != 0)
        memset(&loc, 0, sizeof(loc));
    tap_ok(!loc.inlined && loc.function && strcmp(loc.function, zb->kernels[0].name) == 0 &&
               !deepest(&ri, kaddr, true),
           "%s: the kernel's first instruction is in %s, not inlined", fx,
           loc.function ? loc.function : "(none)");
out:
    unlink(tmp);
    sym_module_close(m);
    free(dbg);
    gtsim_zebin_free(zb);
    free(raw);
}

int main(void)
{
    static const char *const fixtures[] = {"inline_calls-gen12lp.elf", "inline_calls-xehpg.elf",
                                           "inline_calls-xehpc.elf"};
    const char *top = getenv("top_srcdir");
    char dir[512];

    snprintf(dir, sizeof(dir), "%s/tests/kernels/fixtures", top ? top : ".");
    tap_plan(5 * 3);
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
        check_fixture(dir, fixtures[i]);
    return tap_done();
}
