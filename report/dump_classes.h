/* SPDX-License-Identifier: MIT */
/* The human dump's equivalence classes: threads that stopped for the same
 * reason at the same place (device, reason, kernel and source line, or the
 * pc when there is no line) form one class, shown as a count, compact
 * thread ranges and one representative thread in full, so that a dump of
 * 65,536 threads stays a page long. The JSON document keeps every thread;
 * `zestub dump --all-threads` gives one human line per thread. */
#ifndef ZESTUB_REPORT_DUMP_CLASSES_H
#define ZESTUB_REPORT_DUMP_CLASSES_H

#include <stdbool.h>
#include <stdio.h>

#include "report/record.h"

struct dump_classes;

struct dump_classes *dump_classes_new(void);
void dump_classes_free(struct dump_classes *c);

/* Puts thread t (of device `device`, at position `index` of its session's
 * thread table) into its class: true when it is the class's first thread,
 * whose full record the caller then gives to dump_classes_set_record. False
 * also when memory ran out (the thread is then only counted). */
bool dump_classes_add(struct dump_classes *c, const struct dump_thread *t, unsigned device,
                      uint32_t index);
/* The representative's record as the human dump prints it (taken over). */
void dump_classes_set_record(struct dump_classes *c, char *text);
/* Every class, then forgets them: those of threads that stopped for a
 * reason of their own (fault, breakpoint, exception) before those the dump
 * interrupted, each group largest first (ties: first seen). */
void dump_classes_print(struct dump_classes *c, FILE *f);
/* Classes so far. */
size_t dump_classes_count(const struct dump_classes *c);

#endif
