/* SPDX-License-Identifier: MIT */
/* Passing the launched program the signals meant for it
 * (forward_signals.h). */
#include "cli/forward_signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile pid_t forward_to;
static volatile int forward_wake = -1;

static void on_forwarded(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    /* SI_KERNEL: the terminal sent it to the whole foreground group, the
     * program has it already. */
    if (si->si_code != SI_KERNEL && forward_to > 0)
        kill(forward_to, sig);
    if ((sig == SIGINT || sig == SIGTERM) && forward_wake >= 0) {
        char c = (char)sig;
        if (write(forward_wake, &c, 1) < 0) {
            /* nothing more can be done in a signal handler */
        }
    }
}

void cli_forward_signals(pid_t child, int wake_fd)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    struct sigaction sa;
    forward_to = child;
    forward_wake = wake_fd;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_forwarded;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}
