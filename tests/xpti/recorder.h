/* SPDX-License-Identifier: MIT */
/* What the recorder subscriber (recorder_subscriber.c) saw, for tests that
 * load it through XPTI_SUBSCRIBERS and then fetch the log with dlsym. */
#ifndef ZESTUB_TESTS_XPTI_RECORDER_H
#define ZESTUB_TESTS_XPTI_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#define RECORDER_MAX_NOTES 128

struct recorded_note {
    uint16_t type;
    uint64_t uid, parent_uid, instance;
    const void *user_data;
    /* The seed's "sycl" stream metadata, decoded; empty/-1 when absent. */
    char kernel_name[64], source_file[64], function[64], device[64];
    int64_t line, column, from_source;
};

struct recorder_log {
    int sycl_inits, default_inits, sycl_finishes;
    unsigned major, minor;
    char version[32];
    size_t n;
    struct recorded_note notes[RECORDER_MAX_NOTES];
};

typedef const struct recorder_log *(*recorder_log_fn)(void);
#define RECORDER_LOG_SYMBOL "recorder_log"

#endif
