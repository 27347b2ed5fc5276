/* SPDX-License-Identifier: MIT */
/* What the server must not know of the Intel GT ISA, as target ops: a
 * software breakpoint is the breakpoint control bit of the instruction
 * (protocol 5), planted for clients that cannot write it (Z0), and a
 * thread's PC is isabase + the IP of cr0 (3.4), for the host view of such
 * clients. Memory goes through the device's "all" thread, registers through
 * the sessions' per-stop cache. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "sessions/sess.h"
#include "sessions/sess_where.h"
#include "symbols/symbols.h"
#include "target/tgt_int.h"

static bool alive(struct tgt *t, uint32_t pid)
{
    return pid >= 1 && pid <= t->n && sess_alive(t->m, pid - 1);
}

static int read_insn(struct tgt *t, uint32_t pid, uint64_t addr, uint8_t insn[ISA_INSN_MAX],
                     size_t *len, char *err, size_t errlen)
{
    struct zd_error e;
    /* A native instruction's bytes (a compacted one uses the first 8). */
    if (sess_read_memory(t->m, pid - 1, UINT32_MAX, ZD_SPACE_DEFAULT, addr, ISA_INSN_MAX, insn,
                         &e) != 0) {
        snprintf(err, errlen, "no code at 0x%llx: %s", (unsigned long long)addr, e.msg);
        return -EFAULT;
    }
    *len = isa_insn_length(insn);
    return 0;
}

static int write_insn(struct tgt *t, uint32_t pid, uint64_t addr, const uint8_t *insn, size_t len,
                      char *err, size_t errlen)
{
    struct zd_error e;
    tgt_code_written(t, pid - 1, addr, len); /* even a failed write may have begun */
    if (sess_write_memory(t->m, pid - 1, UINT32_MAX, ZD_SPACE_DEFAULT, addr, len, insn, &e) != 0) {
        tgt_say(err, errlen, e.msg);
        return -EIO;
    }
    return 0;
}

/* Kernels longer than this are not walked for instruction starts. */
#define MAX_WALK ((uint64_t)4 << 20)

/* Why a breakpoint is refused, for the server's log as well: a client
 * shows only "Cannot access memory" for any error reply to Z0, whatever
 * its text (issue 35). A warning when the client asked for the middle of
 * an instruction; code that is not there (data, or a module unloaded,
 * which gdbstub's replanting meets at every library change) only at
 * level info. */
static int refuse(struct tgt *t, enum rsp_log_level level, int rc, char *err, size_t errlen,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int refuse(struct tgt *t, enum rsp_log_level level, int rc, char *err, size_t errlen,
                  const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    rsp_logf(&t->log, level, "no breakpoint planted: %s", why);
    tgt_say(err, errlen, why);
    return rc;
}

/* Where addr lies in a loaded module's kernel: 1 with the start and length
 * of the instruction it falls in the middle of, 0 at an instruction start,
 * -EFAULT outside every kernel's code (*why says so), another negative
 * value when the kernel cannot be read (*why says why). The kernel is
 * walked from its start with the instruction lengths. */
static int mid_instruction(struct tgt *t, uint32_t pid, uint64_t addr, uint64_t *start_addr,
                           unsigned *insn_len, const char **kernel, char *why, size_t whylen)
{
    uint64_t off, p = 0, start = 0;
    struct sess_where w;
    const struct sym_location *loc = &w.loc;
    struct zd_error e;

    if (sess_where_pc(t->m, pid - 1, addr, &w) != 0) {
        snprintf(why, whylen, "0x%llx is not in the code of a loaded module",
                 (unsigned long long)addr);
        return -EFAULT;
    }
    off = addr - loc->kernel_addr;
    if (off == 0 || off > MAX_WALK)
        return 0;
    uint8_t *code = calloc(1, off + ISA_INSN_MAX);
    if (!code) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    if (sess_read_memory(t->m, pid - 1, UINT32_MAX, ZD_SPACE_DEFAULT, loc->kernel_addr, off, code,
                         &e) != 0) {
        free(code);
        snprintf(why, whylen, "cannot read kernel %s: %s", loc->kernel, e.msg);
        return -EIO;
    }
    while (p < off) {
        start = p;
        p += isa_insn_length(code + p);
    }
    free(code);
    if (p == off)
        return 0;
    *start_addr = loc->kernel_addr + start;
    *insn_len = (unsigned)(p - start);
    *kernel = loc->kernel; /* the module's symbols outlive this call */
    return 1;
}

/* A breakpoint bit belongs on the first byte of an instruction of a loaded
 * module's kernel: anywhere else (a data buffer, a kernel argument, the
 * middle of an instruction) setting "the bit" would change the program's
 * data or another field of an instruction. */
static int check_code_address(struct tgt *t, uint32_t pid, uint64_t addr, char *err, size_t errlen)
{
    uint64_t start;
    unsigned len;
    const char *kernel;
    char why[400];
    int rc = mid_instruction(t, pid, addr, &start, &len, &kernel, why, sizeof(why));
    if (rc == 0)
        return 0;
    if (rc < 0)
        return refuse(t, RSP_LOG_INFO, rc == -ENOMEM ? -ENOMEM : -EFAULT, err, errlen, "%s", why);
    return refuse(t, RSP_LOG_WARNING, -EINVAL, err, errlen,
                  "0x%llx is not an instruction start: the instruction there begins at 0x%llx, "
                  "%u bytes long (kernel %s)",
                  (unsigned long long)addr, (unsigned long long)start, len, kernel);
}

int tgt_check_code_write(struct tgt *t, uint32_t pid, uint64_t addr, const uint8_t *buf, size_t len,
                         char *err, size_t errlen)
{
    uint8_t now[ISA_INSN_MAX], planted[ISA_INSN_MAX];
    uint64_t start;
    unsigned ilen;
    const char *kernel;
    char why[400];
    struct zd_error e;

    /* Only a write the size of an instruction can be a plant; the walk
     * (one read of the kernel up to addr) is paid only inside code. */
    if ((len != 8 && len != ISA_INSN_MAX) || !alive(t, pid) ||
        mid_instruction(t, pid, addr, &start, &ilen, &kernel, why, sizeof(why)) != 1)
        return 0;
    if (sess_read_memory(t->m, pid - 1, UINT32_MAX, ZD_SPACE_DEFAULT, addr, len, now, &e) != 0)
        return 0; /* the write itself will say what is wrong */
    /* A plant: the bytes there now with only "the breakpoint bit" set. */
    memcpy(planted, now, len);
    isa_insn_set_breakpoint(planted, true);
    if (isa_insn_breakpoint(now) || memcmp(planted, buf, len) != 0)
        return 0;
    return refuse(t, RSP_LOG_WARNING, -EINVAL, err, errlen,
                  "0x%llx is not an instruction start: the instruction there begins at 0x%llx, "
                  "%u bytes long (kernel %s); setting a breakpoint bit there would corrupt it",
                  (unsigned long long)addr, (unsigned long long)start, ilen, kernel);
}

int tgt_insert_sw_breakpoint(void *ctx, uint32_t pid, uint64_t addr, bool *was_set, char *err,
                             size_t errlen)
{
    struct tgt *t = ctx;
    uint8_t insn[ISA_INSN_MAX], back[ISA_INSN_MAX];
    size_t len, blen;

    if (!alive(t, pid)) {
        tgt_say(err, errlen, "no such process");
        return -ENOENT;
    }
    int rc = check_code_address(t, pid, addr, err, errlen);
    if (rc < 0)
        return rc;
    if (read_insn(t, pid, addr, insn, &len, err, errlen) < 0)
        return -EFAULT;
    *was_set = isa_insn_breakpoint(insn);
    if (*was_set)
        return 0;
    isa_insn_set_breakpoint(insn, true);
    if (write_insn(t, pid, addr, insn, len, err, errlen) < 0)
        return -EIO;
    /* Read back: memory that takes writes but is not code keeps nothing. */
    if (read_insn(t, pid, addr, back, &blen, err, errlen) < 0 || !isa_insn_breakpoint(back)) {
        tgt_say(err, errlen, "the breakpoint bit did not stick");
        return -EIO;
    }
    return 0;
}

int tgt_remove_sw_breakpoint(void *ctx, uint32_t pid, uint64_t addr, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    uint8_t insn[ISA_INSN_MAX];
    size_t len;

    if (!alive(t, pid)) {
        tgt_say(err, errlen, "no such process");
        return -ENOENT;
    }
    if (read_insn(t, pid, addr, insn, &len, err, errlen) < 0)
        return -EFAULT;
    if (!isa_insn_breakpoint(insn))
        return 0;
    isa_insn_set_breakpoint(insn, false);
    return write_insn(t, pid, addr, insn, len, err, errlen);
}

size_t tgt_kernel_entries(void *ctx, uint32_t pid, uint64_t *addrs, size_t max)
{
    struct tgt *t = ctx;
    size_t n = 0;
    if (!alive(t, pid))
        return 0;
    for (size_t i = 0; i < sess_module_count(t->m, pid - 1); i++) {
        const struct sym_module *sm = sess_module_symbols(t->m, pid - 1, i);
        for (size_t k = 0; sm && k < sym_kernel_count(sm); k++, n++)
            if (n < max)
                addrs[n] = sym_kernel_at(sm, k)->addr;
    }
    return n;
}

int tgt_thread_pc(void *ctx, uint32_t pid, uint32_t tid, uint64_t *pc, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    struct zd_error e;

    if (!alive(t, pid) || tid == 0) {
        tgt_say(err, errlen, "no such thread");
        return -ENOENT;
    }
    if (sess_thread_pc(t->m, pid - 1, tid - 1, pc, &e) != 0) {
        tgt_say(err, errlen, e.msg);
        return RSP_TARGET_UNAVAILABLE;
    }
    return 0;
}
