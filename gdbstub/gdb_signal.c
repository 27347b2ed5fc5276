/* SPDX-License-Identifier: MIT */
/* Linux signal numbers to GDB's (gdb/signals.def): only the signals that
 * end a process by default and whose numbers differ need a row. */
#include "gdbstub/gdb_signal.h"

#include <signal.h>
#include <stddef.h>

int rsp_gdb_signal(int linux_signal)
{
    static const int map[][2] = {{SIGBUS, 10},  {SIGUSR1, 30},   {SIGUSR2, 31},
                                 {SIGSYS, 12},  {SIGXCPU, 24},   {SIGXFSZ, 25},
                                 {SIGPROF, 27}, {SIGVTALRM, 26}, {SIGIO, 23}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i][0] == linux_signal)
            return map[i][1];
    return linux_signal;
}
