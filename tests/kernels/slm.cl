/* SPDX-License-Identifier: MIT */
/* Shared local memory both ways: a statically sized __local array (it shows
 * up as slm_size in .ze_info) and a __local pointer argument whose size the
 * host picks, joined by a barrier so every work-item reads what another one
 * wrote. One kernel per file: this ocloc drops DWARF from multi-kernel
 * zebins (see README.md). */
__kernel void slm(__global const int *in, __global int *out, __local int *scratch)
{
    __local int tile[64];
    size_t lid = get_local_id(0);
    size_t lsz = get_local_size(0);
    size_t gid = get_global_id(0);

    tile[lid % 64] = in[gid];
    scratch[lid] = in[gid] * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[(lid + 1) % 64] + scratch[lsz - 1 - lid];
}
