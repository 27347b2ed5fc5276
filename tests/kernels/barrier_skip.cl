/* SPDX-License-Identifier: MIT */
/* The last sub-group (hardware thread) of each work-group skips the
 * barrier the others wait at: on hardware the others wait for ever. */
__kernel void barrier_skip(__global int *out)
{
    __local int seen[64];
    size_t lid = get_local_id(0);
    seen[lid % 64] = (int)lid;
    if (get_sub_group_id() != get_num_sub_groups() - 1)
        barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = seen[(lid + 1) % 64];
}
