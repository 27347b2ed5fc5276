/* SPDX-License-Identifier: MIT */
/* GTSIM_FAULTS parsing and the decision, per call, whether it fails. The
 * rules are process-wide like the driver they stand for; counting is
 * under one lock so "every=3" means every third call whatever thread
 * makes it. */
#include "gtsim/faults.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULES 16

struct rule {
    enum gtsim_fault_call call;
    uint64_t every, after, first; /* 0: not used */
    double probability;           /* 0: not used */
    uint64_t seed;
    long delay_ms;
    bool lose;
    bool has_result; /* result= given: a delay_ms rule then fails too */
    ze_result_t result;
    uint64_t count; /* calls seen */
};

static const char *const call_names[GTSIM_FAULT_CALLS] = {
    [GTSIM_FAULT_ATTACH] = "attach",
    [GTSIM_FAULT_DETACH] = "detach",
    [GTSIM_FAULT_READ_EVENT] = "read_event",
    [GTSIM_FAULT_ACK] = "ack",
    [GTSIM_FAULT_INTERRUPT] = "interrupt",
    [GTSIM_FAULT_RESUME] = "resume",
    [GTSIM_FAULT_READ_MEMORY] = "read_memory",
    [GTSIM_FAULT_WRITE_MEMORY] = "write_memory",
    [GTSIM_FAULT_READ_REGISTERS] = "read_registers",
    [GTSIM_FAULT_WRITE_REGISTERS] = "write_registers",
};

/* The results a rule may name: those the real driver's debug calls return. */
static const struct {
    const char *name;
    ze_result_t r;
} result_names[] = {
    {"ZE_RESULT_ERROR_UNKNOWN", ZE_RESULT_ERROR_UNKNOWN},
    {"ZE_RESULT_ERROR_DEVICE_LOST", ZE_RESULT_ERROR_DEVICE_LOST},
    {"ZE_RESULT_ERROR_NOT_AVAILABLE", ZE_RESULT_ERROR_NOT_AVAILABLE},
    {"ZE_RESULT_NOT_READY", ZE_RESULT_NOT_READY},
    {"ZE_RESULT_ERROR_INVALID_ARGUMENT", ZE_RESULT_ERROR_INVALID_ARGUMENT},
    {"ZE_RESULT_ERROR_UNSUPPORTED_FEATURE", ZE_RESULT_ERROR_UNSUPPORTED_FEATURE},
    {"ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS", ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS},
    {"ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY},
    {"ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET", ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET},
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rule rules[MAX_RULES];
static size_t nrules;
static long lost_after_ms = -1;
static uint64_t lost_at_launch; /* the 1-based launch, or 0 */
static uint64_t launches;

static int parse_number(const char *key, const char *val, uint64_t *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    if (errno || end == val || *end || v == 0 || v > 1000000000ull) {
        snprintf(err, errlen, "GTSIM_FAULTS: %s=%s is not a number in 1..1000000000", key, val);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_result(const char *val, ze_result_t *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof(result_names) / sizeof(result_names[0]); i++)
        if (strcmp(val, result_names[i].name) == 0 || strcmp(val, result_names[i].name + 10) == 0) {
            *out = result_names[i].r;
            return 0;
        }
    snprintf(err, errlen, "GTSIM_FAULTS: unknown result '%s' (see gtsim/README.md)", val);
    return -EINVAL;
}

static int parse_probability(const char *val, double *out, char *err, size_t errlen)
{
    char *end;
    double p = strtod(val, &end);
    if (end == val || *end || !(p > 0.0 && p <= 1.0)) {
        snprintf(err, errlen, "GTSIM_FAULTS: p=%s is not a probability in (0, 1]", val);
        return -EINVAL;
    }
    *out = p;
    return 0;
}

/* One "key=value" or "device_lost" of a call's rule. */
static int parse_field(struct rule *r, char *field, char *err, size_t errlen)
{
    char *val = strchr(field, '=');
    uint64_t n;
    if (!val) {
        if (strcmp(field, "device_lost") == 0) {
            r->lose = true;
            r->result = ZE_RESULT_ERROR_DEVICE_LOST;
            return 0;
        }
        snprintf(err, errlen, "GTSIM_FAULTS: '%s' is not key=value or device_lost", field);
        return -EINVAL;
    }
    *val++ = '\0';
    if (strcmp(field, "result") == 0) {
        r->has_result = true;
        return parse_result(val, &r->result, err, errlen);
    }
    if (strcmp(field, "p") == 0)
        return parse_probability(val, &r->probability, err, errlen);
    if (strcmp(field, "seed") == 0)
        return parse_number(field, val, &r->seed, err, errlen);
    if (parse_number(field, val, &n, err, errlen))
        return -EINVAL;
    if (strcmp(field, "every") == 0)
        r->every = n;
    else if (strcmp(field, "after") == 0)
        r->after = n;
    else if (strcmp(field, "first") == 0)
        r->first = n;
    else if (strcmp(field, "delay_ms") == 0 && n <= 60000)
        r->delay_ms = (long)n;
    else {
        snprintf(err, errlen, "GTSIM_FAULTS: unknown key '%s' (or delay_ms over 60000)", field);
        return -EINVAL;
    }
    return 0;
}

/* "time:ms=N:device_lost" and "launch:at=N:device_lost" are points
 * where the device is lost, not calls. */
static int parse_point(const char *what, char *rest, char *err, size_t errlen)
{
    char *save = NULL, *ms = NULL, *at = NULL;
    bool lose = false;
    uint64_t n;
    for (char *f = strtok_r(rest, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
        if (strcmp(f, "device_lost") == 0)
            lose = true;
        else if (strncmp(f, "ms=", 3) == 0 && what[0] == 't')
            ms = f + 3;
        else if (strncmp(f, "at=", 3) == 0 && what[0] == 'l')
            at = f + 3;
        else {
            snprintf(err, errlen, "GTSIM_FAULTS: %s takes %s and device_lost, not '%s'", what,
                     what[0] == 't' ? "ms=N" : "at=N", f);
            return -EINVAL;
        }
    }
    if (!lose || !(ms || at)) {
        snprintf(err, errlen, "GTSIM_FAULTS: %s needs %s:device_lost", what,
                 what[0] == 't' ? "ms=N" : "at=N");
        return -EINVAL;
    }
    if (parse_number(ms ? "ms" : "at", ms ? ms : at, &n, err, errlen))
        return -EINVAL;
    if (ms)
        lost_after_ms = (long)n;
    else
        lost_at_launch = n;
    return 0;
}

static int parse_rule(char *text, char *err, size_t errlen)
{
    char *save = NULL;
    char *name = strtok_r(text, ":", &save);
    struct rule *r;
    if (!name) {
        snprintf(err, errlen, "GTSIM_FAULTS: empty rule");
        return -EINVAL;
    }
    if (strcmp(name, "time") == 0 || strcmp(name, "launch") == 0) {
        char none[1] = "";
        return parse_point(name, save ? save : none, err, errlen);
    }
    if (nrules == MAX_RULES) {
        snprintf(err, errlen, "GTSIM_FAULTS: more than %d rules", MAX_RULES);
        return -EINVAL;
    }
    r = &rules[nrules];
    memset(r, 0, sizeof(*r));
    r->call = GTSIM_FAULT_CALLS;
    for (int c = 0; c < GTSIM_FAULT_CALLS; c++)
        if (strcmp(name, call_names[c]) == 0)
            r->call = (enum gtsim_fault_call)c;
    if (r->call == GTSIM_FAULT_CALLS) {
        snprintf(err, errlen, "GTSIM_FAULTS: unknown call '%s' (see gtsim/README.md)", name);
        return -EINVAL;
    }
    r->result = ZE_RESULT_ERROR_UNKNOWN;
    r->seed = 1;
    for (char *f = strtok_r(NULL, ":", &save); f; f = strtok_r(NULL, ":", &save))
        if (parse_field(r, f, err, errlen))
            return -EINVAL;
    if ((r->every != 0) + (r->after != 0) + (r->first != 0) + (r->probability > 0) > 1) {
        snprintf(err, errlen, "GTSIM_FAULTS: %s: every, after, first and p exclude each other",
                 name);
        return -EINVAL;
    }
    nrules++;
    return 0;
}

int gtsim_faults_init(const char *text, char *err, size_t errlen)
{
    char *copy, *save = NULL;
    int rc = 0;
    pthread_mutex_lock(&lock);
    nrules = 0;
    lost_after_ms = -1;
    lost_at_launch = 0;
    launches = 0;
    copy = text ? strdup(text) : NULL;
    if (text && !copy)
        rc = -ENOMEM;
    for (char *rule = copy ? strtok_r(copy, ",", &save) : NULL; rule && rc == 0;
         rule = strtok_r(NULL, ",", &save)) {
        char *one = strdup(rule);
        rc = one ? parse_rule(one, err, errlen) : -ENOMEM;
        free(one);
    }
    free(copy);
    if (rc)
        nrules = 0;
    pthread_mutex_unlock(&lock);
    return rc;
}

/* A small generator of our own (xorshift64*), so a seed gives the same
 * sequence everywhere, whatever libc's rand does. */
static double next_random(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / (double)(1ull << 53);
}

static bool fires(struct rule *r)
{
    r->count++;
    if (r->every)
        return r->count % r->every == 0;
    if (r->after)
        return r->count > r->after;
    if (r->first)
        return r->count <= r->first;
    if (r->probability > 0)
        return next_random(&r->seed) < r->probability;
    return true; /* no trigger: every call */
}

bool gtsim_faults_may_touch(enum gtsim_fault_call call)
{
    if (lost_after_ms >= 0)
        return true;
    for (size_t i = 0; i < nrules; i++)
        if (rules[i].call == call)
            return true;
    return false;
}

void gtsim_faults_check(enum gtsim_fault_call call, struct gtsim_fault_hit *hit)
{
    memset(hit, 0, sizeof(*hit));
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nrules; i++) {
        struct rule *r = &rules[i];
        if (r->call != call || !fires(r))
            continue;
        if (r->delay_ms)
            hit->delay_ms += r->delay_ms;
        if (r->lose || r->has_result || !r->delay_ms) {
            if (!hit->fail || r->lose) {
                hit->fail = true;
                hit->result = r->result;
                hit->lose = r->lose;
            }
        }
    }
    pthread_mutex_unlock(&lock);
}

long gtsim_faults_lost_after_ms(void)
{
    long ms;
    pthread_mutex_lock(&lock);
    ms = lost_after_ms;
    pthread_mutex_unlock(&lock);
    return ms;
}

bool gtsim_faults_launch_loses(void)
{
    bool lose;
    pthread_mutex_lock(&lock);
    lose = lost_at_launch && ++launches == lost_at_launch;
    pthread_mutex_unlock(&lock);
    return lose;
}
