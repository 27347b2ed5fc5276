/* SPDX-License-Identifier: MIT */
/* Spins until someone (a debugger) writes 0 to flag[0]. */
__kernel void spin(__global volatile int *flag, __global int *out)
{
    size_t gid = get_global_id(0);
    int rounds = 0;
    while (flag[0] != 0) {
        rounds++;
    }
    out[gid] = rounds;
}
