/* SPDX-License-Identifier: MIT */
/* gdbstub/tdesc_cache.c: a kept target description is found again only for
 * the same registers and device, compared by value: a catalogue freed and
 * another one built in its place (the case after a detach and a new
 * attach) must not get the old document, nor a device whose attributes
 * changed; the oldest entry goes when the cache is full. */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/tdesc_cache.h"
#include "regsets/regs.h"
#include "tests/lib/tap.h"

static const struct zd_regset grf128[] = {
    {REGS_GRF, 0, 128, 256, 32, true, true},
    {REGS_CE, 0, 1, 32, 4, true, false},
    {REGS_SR, 0, 1, 128, 16, true, true},
    {REGS_CR, 0, 1, 128, 16, true, true},
};
/* The same sets with one register fewer in the GRF. */
static const struct zd_regset grf127[] = {
    {REGS_GRF, 0, 127, 256, 32, true, true},
    {REGS_CE, 0, 1, 32, 4, true, false},
    {REGS_SR, 0, 1, 128, 16, true, true},
    {REGS_CR, 0, 1, 128, 16, true, true},
};
/* The same count, ce expedited: only a flag differs. */
static const struct zd_regset grf128x[] = {
    {REGS_GRF, 0, 128, 256, 32, true, true},
    {REGS_CE, 0, 1, 32, 4, true, true},
    {REGS_SR, 0, 1, 128, 16, true, true},
    {REGS_CR, 0, 1, 128, 16, true, true},
};
#define NSETS(a) (sizeof(a) / sizeof((a)[0]))

static struct rsp_buf doc(const char *s)
{
    struct rsp_buf b;
    rsp_buf_init(&b);
    rsp_buf_puts(&b, s);
    return b;
}

static bool is(const struct rsp_buf *b, const char *s)
{
    return b && b->len == strlen(s) && memcmp(b->data, s, b->len) == 0;
}

int main(void)
{
    struct rsp_tdesc_cache *c = NULL;
    struct regs_catalog *a = regs_catalog_new(grf128, NSETS(grf128));
    struct regs_catalog *a2 = regs_catalog_new(grf128, NSETS(grf128));
    struct regs_catalog *b = regs_catalog_new(grf127, NSETS(grf127));
    struct regs_catalog *x = regs_catalog_new(grf128x, NSETS(grf128x));
    struct rsp_device_info dev, dev2;
    struct rsp_buf xa = doc("<target>A</target>"), xb = doc("<target>B</target>");
    bool evicted_first, kept_rest = true;

    tap_plan(10);
    if (!a || !a2 || !b || !x)
        tap_bail("regs_catalog_new failed");
    memset(&dev, 0, sizeof(dev));
    snprintf(dev.name, sizeof(dev.name), "Mock GPU A");
    dev.subdevice_id = -1;
    dev2 = dev;
    dev2.total_threads = 8;

    tap_ok(rsp_tdesc_cache_find(c, a, &dev) == NULL, "an empty cache finds nothing");
    rsp_tdesc_cache_store(&c, a, &dev, &xa);
    tap_ok(is(rsp_tdesc_cache_find(c, a, &dev), xa.data), "a stored document is found again");
    tap_ok(is(rsp_tdesc_cache_find(c, a2, &dev), xa.data),
           "another catalogue of the same registers finds it (compared by value)");
    tap_ok(rsp_tdesc_cache_find(c, b, &dev) == NULL, "one register fewer: not found");
    tap_ok(rsp_tdesc_cache_find(c, x, &dev) == NULL, "one register's flag differs: not found");
    tap_ok(rsp_tdesc_cache_find(c, a, &dev2) == NULL, "a device attribute differs: not found");
    tap_ok(rsp_tdesc_cache_find(c, a, NULL) == NULL, "no device element: not found");

    /* The catalogue freed, one with other registers built (often at the
     * same address): the old document must not come back. */
    regs_catalog_free(a);
    a = regs_catalog_new(grf127, NSETS(grf127));
    tap_ok(a && rsp_tdesc_cache_find(c, a, &dev) == NULL,
           "a catalogue freed and another built: the old document is not served");
    rsp_tdesc_cache_store(&c, a, &dev, &xb);
    tap_ok(is(rsp_tdesc_cache_find(c, b, &dev), xb.data),
           "the new document is found for the new registers");

    /* Full: four more entries push the first two out, keep the rest. */
    rsp_tdesc_cache_store(&c, x, &dev, &xa);
    rsp_tdesc_cache_store(&c, x, &dev2, &xa);
    rsp_tdesc_cache_store(&c, x, NULL, &xa);
    rsp_tdesc_cache_store(&c, a2, &dev2, &xb);
    evicted_first =
        rsp_tdesc_cache_find(c, a2, &dev) == NULL && rsp_tdesc_cache_find(c, b, &dev) == NULL;
    kept_rest = is(rsp_tdesc_cache_find(c, x, &dev), xa.data) &&
                is(rsp_tdesc_cache_find(c, x, &dev2), xa.data) &&
                is(rsp_tdesc_cache_find(c, x, NULL), xa.data) &&
                is(rsp_tdesc_cache_find(c, a2, &dev2), xb.data);
    tap_ok(evicted_first && kept_rest, "full: the oldest entries go, the newest four stay");

    rsp_tdesc_cache_free(c);
    rsp_buf_free(&xa);
    rsp_buf_free(&xb);
    regs_catalog_free(a);
    regs_catalog_free(a2);
    regs_catalog_free(b);
    regs_catalog_free(x);
    return tap_done();
}
