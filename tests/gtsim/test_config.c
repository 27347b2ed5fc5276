/* SPDX-License-Identifier: MIT */
/* GTSIM_CONFIG parsing: good strings take effect, bad ones are refused with
 * a sentence that names the problem. */
#include <string.h>

#include "gtsim/config.h"
#include "tests/lib/tap.h"

int main(void)
{
    struct gtsim_config c;
    char err[256];

    tap_plan(21);
    gtsim_config_defaults(&c);
    tap_ok(c.platform == GTSIM_XEHPC && c.devices == 1 && c.tiles == 1, "defaults");
    tap_ok(c.slices * c.subslices * c.eus * c.threads >= 128 &&
               c.slices * c.subslices * c.eus * c.threads <= 1024,
           "default device has a few hundred threads");

    gtsim_config_defaults(&c);
    tap_ok(gtsim_config_parse("platform=gen12lp,devices=2,tiles=2,slices=1,subslices=6,eus=16,"
                              "threads=7,pace=1000,workers=3,tile_attach=0",
                              &c, err, sizeof(err)) == 0,
           "full config parses");
    tap_ok(c.platform == GTSIM_GEN12LP && c.devices == 2 && c.tiles == 2 && c.subslices == 6 &&
               c.eus == 16 && c.threads == 7 && c.pace == 1000 && c.workers == 3 && !c.tile_attach,
           "every key takes effect");

    gtsim_config_defaults(&c);
    tap_ok(gtsim_config_parse(NULL, &c, err, sizeof(err)) == 0, "unset variable = defaults");
    tap_ok(gtsim_config_parse("platform=xe9", &c, err, sizeof(err)) != 0 &&
               strstr(err, "unknown platform"),
           "unknown platform refused: %s", err);
    tap_ok(gtsim_config_parse("colour=blue", &c, err, sizeof(err)) != 0 &&
               strstr(err, "unknown key"),
           "unknown key refused: %s", err);
    tap_ok(gtsim_config_parse("eus=0", &c, err, sizeof(err)) != 0, "zero EUs refused: %s", err);
    tap_ok(gtsim_config_parse("threads=abc", &c, err, sizeof(err)) != 0, "non-number refused");
    tap_ok(gtsim_config_parse("slices", &c, err, sizeof(err)) != 0 && strstr(err, "key=value"),
           "missing '=' refused");
    gtsim_config_defaults(&c);
    tap_ok(gtsim_config_parse("tiles=8,slices=64,subslices=64", &c, err, sizeof(err)) != 0 &&
               strstr(err, "262144"),
           "too many threads refused: %s", err);
    gtsim_config_defaults(&c);
    tap_ok(gtsim_config_parse("platform=xehpc,tiles=2,slices=8,subslices=8,eus=8,threads=16", &c,
                              err, sizeof(err)) == 0,
           "a 16384-thread PVC-like device is accepted");
    gtsim_config_defaults(&c);
    tap_ok(gtsim_config_parse("tiles=4,slices=64,subslices=8,eus=8,threads=16", &c, err,
                              sizeof(err)) == 0,
           "a 262144-thread device is accepted");
    gtsim_config_defaults(&c);
    tap_ok(gtsim_config_parse("debug_latency_us=20,interrupt_spread_ms=0", &c, err, sizeof(err)) ==
                   0 &&
               c.debug_latency_us == 20 && c.interrupt_spread_ms == 0,
           "the cost knobs take effect, 0 included");
    tap_ok(gtsim_config_parse("interrupt_spread_ms=60001", &c, err, sizeof(err)) != 0,
           "a spread over a minute refused: %s", err);
    gtsim_config_defaults(&c);
    tap_ok(c.barrier_skip == 0 && gtsim_config_parse("barrier_skip=1", &c, err, sizeof(err)) == 0 &&
               c.barrier_skip == 1,
           "barrier_skip is off by default and takes 1");
    tap_ok(gtsim_config_parse("barrier_skip=2", &c, err, sizeof(err)) != 0,
           "barrier_skip=2 refused: %s", err);
    gtsim_config_defaults(&c);
    tap_ok(c.poll_us == GTSIM_DEFAULT_POLL_US && GTSIM_DEFAULT_POLL_US > 0 &&
               gtsim_config_parse("poll_us=0", &c, err, sizeof(err)) == 0 && c.poll_us == 0,
           "poll_us is %u by default and takes 0 (sleep at once)", GTSIM_DEFAULT_POLL_US);
    tap_ok(gtsim_config_parse("poll_us=100001", &c, err, sizeof(err)) != 0,
           "poll_us over 0.1 s refused: %s", err);
    gtsim_config_defaults(&c);
    tap_ok(c.exec == 0 && gtsim_config_parse("exec=1", &c, err, sizeof(err)) == 0 && c.exec == 1,
           "exec is off by default and takes 1");
    tap_ok(gtsim_config_parse("exec=2", &c, err, sizeof(err)) != 0, "exec=2 refused: %s", err);
    return tap_done();
}
