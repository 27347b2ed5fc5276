/* SPDX-License-Identifier: MIT */
/* A loop around a call that the compiler must keep as a real call, so that
 * stepping, "finish" and backtraces have a second frame to work with. */
__attribute__((noinline)) int scale_add(int acc, int v, int factor)
{
    return acc + v * factor;
}

__kernel void loop_call(__global const int *in, __global int *out, int n, int factor)
{
    size_t gid = get_global_id(0);
    int acc = 0;
    for (int k = 0; k < n; k++)
        acc = scale_add(acc, in[gid * n + k], factor);
    out[gid] = acc;
}
