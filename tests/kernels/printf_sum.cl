// SPDX-License-Identifier: MIT
// vadd with a printf in one work-item: the kernel gets a printf buffer
// (.ze_info printf_buffer) and reserves room in it with an atomic add.
kernel void printf_sum(global const int *a, global const int *b, global int *c)
{
    int i = get_global_id(0);
    c[i] = a[i] + b[i];
    if (i == 0)
        printf("printf_sum: c[0] = %d\n", c[i]);
}
