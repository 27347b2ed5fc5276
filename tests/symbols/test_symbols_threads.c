/* SPDX-License-Identifier: MIT */
/* sym_module_open from several threads at once, as the event pumps of two
 * devices do when both load a module: every module must keep its own line
 * table. With Debian 12's libdwarf unserialised, about one run in four of
 * this test gave loop_call's rows vadd's file name. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/debug_zebin.h"
#include "gtsim/zebin.h"
#include "symbols/symbols.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

#define THREADS 4
#define ROUNDS 1500

struct image {
    const char *fixture, *source; /* the fixture and the file its lines name */
    void *dbg;
    size_t size;
    uint64_t lo, hi;
};

struct worker {
    const struct image *img;
    unsigned opens_failed, wrong_files;
    unsigned long rows_seen; /* lookups that found a line: none would make "no wrong file" empty */
    char first_wrong[256];
};

static void *parse_again_and_again(void *arg)
{
    struct worker *w = arg;
    const struct image *img = w->img;
    for (int r = 0; r < ROUNDS; r++) {
        struct sym_module *m;
        char err[256];
        if (sym_module_open(img->dbg, img->size, &m, err, sizeof(err)) != 0) {
            w->opens_failed++;
            continue;
        }
        for (uint64_t pc = img->lo; pc < img->hi; pc += 8) {
            struct sym_location loc;
            if (sym_lookup(m, pc, &loc) != 0 || !loc.has_line)
                continue;
            w->rows_seen++;
            const char *base = loc.file ? strrchr(loc.file, '/') : NULL;
            base = base ? base + 1 : loc.file;
            if (!base || strcmp(base, img->source) != 0) {
                if (!w->wrong_files++)
                    snprintf(w->first_wrong, sizeof(w->first_wrong), "%s at %#" PRIx64 ": '%s'",
                             img->fixture, pc, loc.file ? loc.file : "(null)");
            }
        }
        sym_module_close(m);
    }
    return NULL;
}

static int load(const char *dir, struct image *img, uint64_t kaddr)
{
    char path[512], err[256] = "";
    size_t size;
    struct gtsim_zebin *zb = NULL;
    void *raw;
    if (snprintf(path, sizeof(path), "%s/%s", dir, img->fixture) >= (int)sizeof(path))
        return -1;
    raw = tests_slurp(path, &size);
    if (!raw || gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) != 0 || zb->nkernels != 1 ||
        gtsim_debug_zebin_create(zb, &kaddr, &img->dbg, &img->size, err, sizeof(err)) != 0) {
        tap_diag("%s: %s", path, err);
        free(raw);
        return -1;
    }
    img->lo = kaddr;
    img->hi = kaddr + zb->kernels[0].text_size;
    gtsim_zebin_free(zb);
    free(raw);
    return 0;
}

int main(void)
{
    const char *top = getenv("top_srcdir");
    char dir[512];
    struct image imgs[2] = {{.fixture = "vadd-xehpc.elf", .source = "vadd.cl"},
                            {.fixture = "loop_call-xehpc.elf", .source = "loop_call.cl"}};
    struct worker w[THREADS];
    pthread_t th[THREADS];
    unsigned failed = 0, wrong = 0;
    unsigned long rows = 0;

    tap_plan(3);
    snprintf(dir, sizeof(dir), "%s/tests/kernels/fixtures", top ? top : ".");
    if (!tap_ok(load(dir, &imgs[0], 0x100000) == 0 && load(dir, &imgs[1], 0x200000) == 0,
                "two fixtures placed as debug zebins"))
        return tap_done();
    memset(w, 0, sizeof(w));
    for (int i = 0; i < THREADS; i++) {
        w[i].img = &imgs[i % 2];
        if (pthread_create(&th[i], NULL, parse_again_and_again, &w[i]) != 0)
            tap_bail("pthread_create");
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        failed += w[i].opens_failed;
        wrong += w[i].wrong_files;
        rows += w[i].rows_seen;
    }
    tap_ok(failed == 0, "%d threads x %d opens of two modules: every open succeeds (%u failed)",
           THREADS, ROUNDS, failed);
    const char *example = "";
    for (int i = 0; i < THREADS; i++)
        if (w[i].wrong_files && !example[0])
            example = w[i].first_wrong;
    tap_ok(wrong == 0 && rows > 0,
           "every line row names its own module's source (%lu rows, %u wrong%s%s)", rows, wrong,
           wrong ? ", first: " : "", example);
    free(imgs[0].dbg);
    free(imgs[1].dbg);
    return tap_done();
}
