/* SPDX-License-Identifier: MIT */
/* Helpers that IGC inlines when optimising (built with -g only): the
 * kernel's DWARF then has DW_TAG_inlined_subroutine entries, nested two
 * deep (mix inlines sq and clampv), and code split into several pieces,
 * described by DW_AT_ranges rather than low_pc/high_pc. */
static inline int sq(int x)
{
    return x * x;
}

static inline int clampv(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static inline int mix(int a, int b)
{
    int s = sq(a) + b;
    return clampv(s, -1000, 1000);
}

kernel void inline_calls(global const int *in, global int *out, int n)
{
    int i = get_global_id(0);
    int acc = 0;
    for (int k = 0; k < n; k++)
        acc += mix(in[i + k], k);
    out[i] = acc;
}
