/* SPDX-License-Identifier: MIT */
/* The code the client wrote (M, X, z0, Z0) where a breakpoint bit may have
 * gone since a thread stopped on it. A held breakpoint stop whose bit is no
 * longer at the thread's PC is dropped at the next resume (tgt_run.c,
 * drop_gone_breakpoints); reading the instruction of every held thread at
 * every resume made the breakpoint cycle quadratic in held threads (issue
 * 36: 8,192 x 8,193 / 2 reads for 8,192 hits). Only the client changes
 * code, and only through this target, so a held thread whose instruction
 * no write touched still has the bit it stopped on; only a thread whose
 * PC is in a written range is read, and a read that finds the bit there
 * takes the instruction out of the ranges, so each change costs at most one
 * read per instruction.
 *
 * The ranges are kept per device, sorted by (device, start), never
 * overlapping nor touching: a write merges into its neighbours, so their
 * number is that of the separate places the client wrote and did not see
 * again, whatever the number of writes. */
#include <stdlib.h>
#include <string.h>

#include "target/tgt_int.h"

/* Bytes of an instruction that decide its breakpoint bit: the bit itself
 * and the compaction bit, both in dword 0 (isa/isa.h, "instructions"). */
#define CONTROL_BYTES 4

static bool before(const struct code_write *w, unsigned k, uint64_t addr)
{
    return w->k < k || (w->k == k && w->start < addr);
}

/* The index of the first range not before (k, addr). */
static size_t lower_bound(const struct tgt *t, unsigned k, uint64_t addr)
{
    size_t lo = 0, hi = t->ncode;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(&t->code[mid], k, addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool make_room(struct tgt *t, size_t more)
{
    size_t cap = t->cap_code ? t->cap_code : 8;
    struct code_write *n;
    while (cap < t->ncode + more)
        cap *= 2;
    if (cap == t->cap_code)
        return true;
    n = realloc(t->code, cap * sizeof(*n));
    if (!n)
        return false;
    t->code = n;
    t->cap_code = cap;
    return true;
}

void tgt_code_written(struct tgt *t, unsigned k, uint64_t addr, size_t len)
{
    uint64_t start = addr, end = addr + len;
    size_t i, j;

    if (len == 0)
        return;
    if (end < start)
        end = UINT64_MAX; /* wrapped: the rest of the space */
    /* The first range that ends at or after start, then every one that
     * begins at or before end: they merge with [start, end). */
    i = lower_bound(t, k, start);
    if (i > 0 && t->code[i - 1].k == k && t->code[i - 1].end >= start)
        i--;
    for (j = i; j < t->ncode && t->code[j].k == k && t->code[j].start <= end; j++) {
        start = t->code[j].start < start ? t->code[j].start : start;
        end = t->code[j].end > end ? t->code[j].end : end;
    }
    if (j == i && !make_room(t, 1)) {
        /* No memory to remember it: forget nothing instead, every held
         * breakpoint stop is checked from now on. */
        t->code_unknown = true;
        return;
    }
    if (j == i) {
        memmove(&t->code[i + 1], &t->code[i], (t->ncode - i) * sizeof(*t->code));
        t->ncode++;
        j = i + 1;
    }
    t->code[i] = (struct code_write){k, start, end};
    memmove(&t->code[i + 1], &t->code[j], (t->ncode - j) * sizeof(*t->code));
    t->ncode -= j - i - 1;
}

bool tgt_code_any_written(const struct tgt *t)
{
    return t->ncode > 0 || t->code_unknown;
}

bool tgt_code_written_at(const struct tgt *t, unsigned k, uint64_t pc)
{
    uint64_t last = pc + CONTROL_BYTES - 1;
    size_t i = lower_bound(t, k, last < pc ? UINT64_MAX : last);
    if (t->code_unknown)
        return true;
    /* The range starting at last, or else the one before it. */
    if (i < t->ncode && t->code[i].k == k && t->code[i].start == last)
        return true;
    return i > 0 && t->code[i - 1].k == k && t->code[i - 1].end > pc;
}

void tgt_code_intact_at(struct tgt *t, unsigned k, uint64_t pc, size_t len)
{
    uint64_t end = pc + len;
    size_t i = lower_bound(t, k, pc);

    if (i > 0 && t->code[i - 1].k == k && t->code[i - 1].end > pc)
        i--;
    while (i < t->ncode && t->code[i].k == k && t->code[i].start < end) {
        struct code_write *w = &t->code[i];
        if (w->start < pc && w->end > end) {
            /* The instruction is inside the range: split it around. */
            if (!make_room(t, 1))
                return; /* kept whole: it is only read again */
            w = &t->code[i];
            memmove(w + 1, w, (t->ncode - i) * sizeof(*w));
            t->ncode++;
            w[0].end = pc;
            w[1].start = end;
            return;
        }
        if (w->start < pc) {
            w->end = pc;
            i++;
        } else if (w->end > end) {
            w->start = end;
            return;
        } else {
            memmove(w, w + 1, (t->ncode - i - 1) * sizeof(*w));
            t->ncode--;
        }
    }
}

void tgt_code_forget(struct tgt *t)
{
    free(t->code);
    t->code = NULL;
    t->ncode = t->cap_code = 0;
    t->code_unknown = false;
}
