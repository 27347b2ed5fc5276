/* SPDX-License-Identifier: MIT */
/* qXfer:siginfo:read for a stopped thread, so that `p $_siginfo` works
 * live (a page fault's address without the XPTI table included). The
 * layout is the one Intel's GDB declares for Intel GT (si_signo, si_errno,
 * si_code as 32-bit ints, then the fault fields aligned to 8: si_addr at
 * byte 16, _addr_lsb at 24), padded to the 128 bytes of Linux's siginfo_t,
 * whose leading fields sit at the same offsets: a client that reads the
 * thread with the host's siginfo type finds the same values. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa.h"
#include "sessions/sess.h"
#include "target/tgt_int.h"
#include "zetdebug/zd.h"

#define SIGINFO_SIZE 128
#define SI_ADDR_OFFSET 16
/* GDB's and Linux's SIGINT: what the stop reply says of the client's
 * interrupt (gdbstub/stopreply.c). */
#define SIGINT_NUMBER 2

/* si_code values of Linux's <signal.h>, the codes GDB users know. */
enum {
    SI_USER_CODE = 0,
    SEGV_MAPERR_CODE = 1,
    SEGV_ACCERR_CODE = 2,
    TRAP_BRKPT_CODE = 1,
    TRAP_TRACE_CODE = 2,
    ILL_ILLOPC_CODE = 1,
    SI_KERNEL_CODE = 0x80
};

static void put32(uint8_t *b, size_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

/* The driver's page-fault events name an address but no thread: a faulting
 * thread gets the session's latest fault (exact when there was one). */
static int fault_code(struct tgt *t, unsigned k, uint64_t *addr)
{
    size_t n = sess_fault_count(t->m, k);
    enum zd_fault_reason why = ZD_FAULT_INVALID;
    *addr = 0;
    if (n == 0 || sess_fault_at(t->m, k, n - 1, addr, &why) != 0)
        return SI_KERNEL_CODE;
    return why == ZD_FAULT_PERMISSION ? SEGV_ACCERR_CODE : SEGV_MAPERR_CODE;
}

int tgt_thread_siginfo(void *ctx, uint32_t pid, uint32_t tid, uint8_t *buf, size_t len, char *err,
                       size_t errlen)
{
    struct tgt *t = ctx;
    uint8_t si[SIGINFO_SIZE];
    uint64_t addr = 0;
    int code = SI_USER_CODE;
    int signo;

    if (pid < 1 || pid > t->n || tid < 1 || !sess_alive(t->m, pid - 1) ||
        tid > sess_thread_count(t->m, pid - 1)) {
        tgt_say(err, errlen, "no such thread");
        return -ENOENT;
    }
    unsigned k = pid - 1;
    uint32_t th = tid - 1;
    if (!sess_state_stopped(sess_thread_state(t->m, k, th))) {
        tgt_say(err, errlen, "the thread is not stopped: it has no signal");
        return -EAGAIN;
    }
    enum isa_stop_reason r = sess_thread_reason(t->m, k, th);
    signo = isa_stop_signal(r);
    switch (r) {
    case ISA_STOP_PAGE_FAULT:
        code = fault_code(t, k, &addr);
        break;
    case ISA_STOP_BREAKPOINT:
        code = isa_stop_is_step_end(r, sess_thread_is_stepping(t->m, k, th)) ? TRAP_TRACE_CODE
                                                                             : TRAP_BRKPT_CODE;
        break;
    case ISA_STOP_ILLEGAL:
        code = ILL_ILLOPC_CODE;
        break;
    case ISA_STOP_UNKNOWN:
        code = SI_KERNEL_CODE;
        break;
    case ISA_STOP_INTERRUPT:
        /* The stop reply told the client SIGINT for the client's own
         * interrupt: its siginfo must say the same (issue 35). */
        if (tgt_stopped_by_client(t, k, th))
            signo = SIGINT_NUMBER;
        break;
    default:
        break;
    }
    memset(si, 0, sizeof(si));
    put32(si, 0, (uint32_t)signo);
    put32(si, 8, (uint32_t)code);
    put64(si, SI_ADDR_OFFSET, addr);
    if (len > sizeof(si))
        len = sizeof(si);
    memcpy(buf, si, len);
    return (int)len;
}
