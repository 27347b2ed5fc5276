/* SPDX-License-Identifier: MIT */
/* The smallest useful kernel: one global id, three global buffers. */
__kernel void vadd(__global const int *a, __global const int *b, __global int *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
