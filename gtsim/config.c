/* SPDX-License-Identifier: MIT */
#include "gtsim/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const platform_names[GTSIM_PLATFORM_COUNT] = {
    [GTSIM_GEN12LP] = "gen12lp", [GTSIM_XEHPG] = "xehpg", [GTSIM_XEHPC] = "xehpc"};

const char *gtsim_platform_config_name(enum gtsim_platform p)
{
    return (unsigned)p < GTSIM_PLATFORM_COUNT ? platform_names[p] : "?";
}

void gtsim_config_defaults(struct gtsim_config *cfg)
{
    /* A small Xe-HPC-like device: 256 hardware threads, quick to simulate. */
    cfg->platform = GTSIM_XEHPC;
    cfg->devices = 1;
    cfg->tiles = 1;
    cfg->slices = 1;
    cfg->subslices = 4;
    cfg->eus = 8;
    cfg->threads = 8;
    cfg->pace = 0;
    cfg->workers = 2;
    cfg->tile_attach = true;
    cfg->debug_latency_us = 0;
    cfg->interrupt_spread_ms = 0;
    cfg->barrier_skip = 0;
    cfg->poll_us = GTSIM_DEFAULT_POLL_US;
    cfg->exec = 0;
}

static int parse_u(const char *key, const char *val, uint64_t max, uint64_t *out, char *err,
                   size_t errlen)
{
    char *end;
    unsigned long long v;
    /* pace and the cost knobs take 0 for "none"; a shape of 0 is no hardware */
    bool zero_ok = strcmp(key, "pace") == 0 || strcmp(key, "debug_latency_us") == 0 ||
                   strcmp(key, "interrupt_spread_ms") == 0 || strcmp(key, "barrier_skip") == 0 ||
                   strcmp(key, "poll_us") == 0 || strcmp(key, "exec") == 0;
    errno = 0;
    v = strtoull(val, &end, 0);
    if (errno || end == val || *end || v > max || (v == 0 && !zero_ok)) {
        snprintf(err, errlen, "GTSIM_CONFIG: %s=%s is not a number in %d..%llu", key, val,
                 zero_ok ? 0 : 1, (unsigned long long)max);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_platform(const char *val, struct gtsim_config *cfg, char *err, size_t errlen)
{
    int found = -1;
    for (int p = 0; p < GTSIM_PLATFORM_COUNT; p++)
        if (strcmp(val, platform_names[p]) == 0)
            found = p;
    if (found < 0) {
        snprintf(err, errlen, "GTSIM_CONFIG: unknown platform '%s' (use gen12lp, xehpg or xehpc)",
                 val);
        return -EINVAL;
    }
    cfg->platform = (enum gtsim_platform)found;
    return 0;
}

static int parse_tile_attach(const char *val, struct gtsim_config *cfg, char *err, size_t errlen)
{
    if (strcmp(val, "0") && strcmp(val, "1")) {
        snprintf(err, errlen, "GTSIM_CONFIG: tile_attach must be 0 or 1");
        return -EINVAL;
    }
    cfg->tile_attach = val[0] == '1';
    return 0;
}

/* The numeric keys, in the order store_number numbers them. */
static const struct {
    const char *name;
    uint64_t max;
} numeric_keys[] = {{"devices", 16},
                    {"tiles", 8},
                    {"slices", 64},
                    {"subslices", 64},
                    {"eus", 64},
                    {"threads", 16},
                    {"pace", 1000000000},
                    {"workers", 64},
                    {"debug_latency_us", 1000000},
                    {"interrupt_spread_ms", 60000},
                    {"barrier_skip", 1},
                    {"poll_us", 100000},
                    {"exec", 1}};

#define NUMERIC_KEYS (sizeof(numeric_keys) / sizeof(numeric_keys[0]))

static void store_number(unsigned k, uint64_t v, struct gtsim_config *cfg)
{
    switch (k) {
    case 0:
        cfg->devices = (uint32_t)v;
        break;
    case 1:
        cfg->tiles = (uint32_t)v;
        break;
    case 2:
        cfg->slices = (uint32_t)v;
        break;
    case 3:
        cfg->subslices = (uint32_t)v;
        break;
    case 4:
        cfg->eus = (uint32_t)v;
        break;
    case 5:
        cfg->threads = (uint32_t)v;
        break;
    case 6:
        cfg->pace = v;
        break;
    case 7:
        cfg->workers = (uint32_t)v;
        break;
    case 8:
        cfg->debug_latency_us = (uint32_t)v;
        break;
    case 9:
        cfg->interrupt_spread_ms = (uint32_t)v;
        break;
    case 10:
        cfg->barrier_skip = (uint32_t)v;
        break;
    case 11:
        cfg->poll_us = (uint32_t)v;
        break;
    default:
        cfg->exec = (uint32_t)v;
        break;
    }
}

static int parse_number(const char *key, const char *val, struct gtsim_config *cfg, char *err,
                        size_t errlen)
{
    unsigned k;
    uint64_t v;
    for (k = 0; k < NUMERIC_KEYS; k++)
        if (strcmp(key, numeric_keys[k].name) == 0)
            break;
    if (k == NUMERIC_KEYS) {
        snprintf(err, errlen,
                 "GTSIM_CONFIG: unknown key '%s' (known: platform, devices, tiles, slices, "
                 "subslices, eus, threads, pace, workers, tile_attach, debug_latency_us, "
                 "interrupt_spread_ms, barrier_skip, poll_us, exec)",
                 key);
        return -EINVAL;
    }
    if (parse_u(key, val, numeric_keys[k].max, &v, err, errlen))
        return -EINVAL;
    store_number(k, v, cfg);
    return 0;
}

/* One `key=value` item of GTSIM_CONFIG (item is modified). */
static int parse_item(char *item, struct gtsim_config *cfg, char *err, size_t errlen)
{
    char *eq = strchr(item, '=');
    if (!eq) {
        snprintf(err, errlen, "GTSIM_CONFIG: '%s' is not key=value", item);
        return -EINVAL;
    }
    *eq = 0;
    const char *key = item, *val = eq + 1;
    if (strcmp(key, "platform") == 0)
        return parse_platform(val, cfg, err, errlen);
    if (strcmp(key, "tile_attach") == 0)
        return parse_tile_attach(val, cfg, err, errlen);
    return parse_number(key, val, cfg, err, errlen);
}

int gtsim_config_parse(const char *text, struct gtsim_config *cfg, char *err, size_t errlen)
{
    char buf[512];
    char *save = NULL;
    uint64_t total;

    if (!text)
        return 0;
    if (strlen(text) >= sizeof(buf)) {
        snprintf(err, errlen, "GTSIM_CONFIG is too long");
        return -EINVAL;
    }
    strcpy(buf, text);
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save))
        if (parse_item(item, cfg, err, errlen) != 0)
            return -EINVAL;
    total = (uint64_t)cfg->tiles * cfg->slices * cfg->subslices * cfg->eus * cfg->threads;
    if (total > GTSIM_MAX_THREADS_PER_DEVICE) {
        snprintf(err, errlen,
                 "GTSIM_CONFIG: %llu hardware threads per device is more than the %u gtsim "
                 "supports",
                 (unsigned long long)total, GTSIM_MAX_THREADS_PER_DEVICE);
        return -EINVAL;
    }
    return 0;
}
