/* SPDX-License-Identifier: MIT */
/* Writes at a caller-chosen element offset: a large enough offset leaves the
 * buffer, which is how the tests provoke a page fault. */
__kernel void oob(__global int *p, long offset, int value)
{
    size_t i = get_global_id(0);
    p[offset + (long)i] = value;
}
