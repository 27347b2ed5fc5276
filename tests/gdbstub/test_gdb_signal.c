/* SPDX-License-Identifier: MIT */
/* GDB's signal numbers, which W/X replies carry: the ones Linux numbers
 * differently are converted, the others pass unchanged. A wrong row would
 * make GDB say "terminated with signal SIGCHLD" for a bus error. */
#include <signal.h>

#include "gdbstub/gdb_signal.h"
#include "tests/lib/tap.h"

int main(void)
{
    static const struct {
        int linux_signal, gdb;
        const char *name;
    } cases[] = {
        {SIGHUP, 1, "SIGHUP"},    {SIGINT, 2, "SIGINT"},        {SIGABRT, 6, "SIGABRT"},
        {SIGKILL, 9, "SIGKILL"},  {SIGSEGV, 11, "SIGSEGV"},     {SIGTERM, 15, "SIGTERM"},
        {SIGBUS, 10, "SIGBUS"},   {SIGUSR1, 30, "SIGUSR1"},     {SIGUSR2, 31, "SIGUSR2"},
        {SIGSYS, 12, "SIGSYS"},   {SIGXCPU, 24, "SIGXCPU"},     {SIGXFSZ, 25, "SIGXFSZ"},
        {SIGPROF, 27, "SIGPROF"}, {SIGVTALRM, 26, "SIGVTALRM"}, {SIGIO, 23, "SIGIO"},
    };
    size_t n = sizeof(cases) / sizeof(cases[0]);
    tap_plan((int)n);
    for (size_t i = 0; i < n; i++)
        tap_ok(rsp_gdb_signal(cases[i].linux_signal) == cases[i].gdb, "%s (Linux %d) is GDB's %d",
               cases[i].name, cases[i].linux_signal, cases[i].gdb);
    return tap_done();
}
