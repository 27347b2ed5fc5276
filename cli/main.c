/* SPDX-License-Identifier: MIT */
/* zestub's entry point: global options and sub-command dispatch. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: zestub [--version] [--help] COMMAND [ARGS...]\n"
               "\n"
               "Commands:\n"
               "  devices [--json]   list Level Zero GPU devices and sub-devices, their\n"
               "                     topology and whether a debugger can attach to them\n"
               "  dump --attach PID  write the state of every stopped GPU thread of PID\n"
               "                     (zestub dump --help for its options)\n"
               "  dump -- PROGRAM    start PROGRAM and dump it when it page-faults\n"
               "  merge FILE...      one report from the per-rank dumps of a job\n"
               "  doctor [--json] [PID]  check the setup (driver, device, the process of PID)\n"
               "                     and say what to fix\n"
               "\n"
               "Run 'zestub COMMAND --help' for a command's options. Without an Intel GPU,\n"
               "point the Level Zero loader at the simulator:\n"
               "  ZE_ENABLE_ALT_DRIVERS=/abs/path/libze_gtsim.so zestub devices\n"
               "\n"
               "GDB server (gdbserver's spellings):\n");
    cli_serve_usage(f);
}

int main(int argc, char **argv)
{
    const char *cmd;

    /* A closed pipe (zestub devices | head) must not kill us mid-write:
     * writes then fail and are reported as errors instead. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("%s\n", PACKAGE_STRING);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    /* Each sub-command gets argv starting at its own name, as getopt wants. */
    if (strcmp(cmd, "devices") == 0)
        return cli_devices(argc - 1, argv + 1);
    if (strcmp(cmd, "dump") == 0)
        return cli_dump(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0)
        return cli_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "doctor") == 0)
        return cli_doctor(argc - 1, argv + 1);
    /* zestub [OPTIONS] COMM --attach PID, --multi COMM: the GDB server. */
    if (cmd[0] == '-' || strchr(cmd, ':'))
        return cli_serve(argc, argv);
    fprintf(stderr, "zestub: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
