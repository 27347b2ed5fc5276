/* SPDX-License-Identifier: MIT */
/* Launch mode: zestub starts the program itself, with program debugging on
 * and libzestub_launch.so preloaded, so it is held in its first
 * zeModuleCreate until zestub has attached (launch_proto.h). */
#ifndef ZESTUB_LAUNCH_LAUNCH_H
#define ZESTUB_LAUNCH_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct launch {
    pid_t child;  /* the program zestub started */
    pid_t target; /* the process that announced itself (the child, or one it started) */
    int fd;       /* zestub's end of the handshake; -1 once released */
    int status;   /* wait status, valid when exited */
    bool exited;
};

/* Starts argv (PATH searched). stdio_away: the program's stdin is
 * /dev/null and its stdout goes to zestub's stderr (the server speaks RSP
 * on zestub's own stdin/stdout). 0, or -1 and err says why. */
int launch_start(struct launch *l, char **argv, bool stdio_away, char *err, size_t errlen);
/* How vRun starts a program: as launch_start, plus the client's changes to
 * zestub's environment ("NAME=VALUE" sets, "NAME" unsets; ours still
 * win: LD_PRELOAD gets the library in front) and a working directory. */
struct launch_opts {
    bool stdio_away;
    char *const *env;
    size_t nenv;
    const char *cwd; /* NULL: zestub's own */
};
int launch_start_opts(struct launch *l, char **argv, const struct launch_opts *o, char *err,
                      size_t errlen);
/* Waits until the program is held in its first zeModuleCreate (1,
 * l->target set) or has exited before creating a module (0). */
int launch_wait_held(struct launch *l);
/* The same, giving up after timeout_ms (-1: never): -1 then. */
int launch_wait_held_for(struct launch *l, int timeout_ms);
/* Lets the held program go on. */
void launch_release(struct launch *l);
/* Reaps the program if it has exited; true once it has. */
bool launch_poll_exit(struct launch *l);
void launch_wait_exit(struct launch *l);
/* The shell's convention: the exit code, or 128 + the signal that killed
 * the program. */
int launch_exit_code(const struct launch *l);
/* Describes how the program ended ("exited with status 0", "was killed by
 * signal 9 (Killed)"). */
void launch_describe_exit(const struct launch *l, char *buf, size_t len);

#endif
