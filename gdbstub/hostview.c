/* SPDX-License-Identifier: MIT */
/* The register view for debuggers without the intelgt architecture (stock
 * GDB). Such a GDB lays registers out as its host's, rejects an Intel GT
 * register block, and refuses to work with a thread whose PC it cannot
 * read ("PC register is not available"). So it gets a host-shaped view in
 * which only the program counter is real: for an x86 GDB (qSupported
 * xmlRegisters=i386) a target description that names i386:x86-64 and no
 * registers (so GDB uses its own x86-64 layout; without it a GDB with no
 * executable assumes 32-bit i386), rip carries the device PC (the target's
 * thread_pc: gdbstub knows no ISA) and every other register is
 * unavailable. Threads, the PC of each thread, memory and monitor commands
 * then work; disassembly does not (GDB would decode Intel GT code as x86).
 * See doc/stock-gdb.md.
 *
 * For other host families only the unavailable registers are sent. GDB
 * wants a 'g' reply that starts with a hex digit or 'x' (anything else is
 * skipped as out of sync) and that does not cut a register in two; eight
 * bytes end on a register boundary for every host with 4- or 8-byte first
 * registers, and GDB asks 'p' for the rest. */
#include <string.h>

#include "gdbstub/hostview.h"
#include "gdbstub/server_state.h"
#include "gdbstub/threadid.h"

/* GDB's built-in x86-64 register numbering: rax..r15 are 0..15 (8 bytes
 * each), rip is 16 at byte 128 of the 'g' block. */
#define X86_64_RIP 16
#define X86_64_RIP_OFFSET 128
/* x86-64 GNU/Linux's orig_rax, after the built-in registers. */
#define X86_64_LINUX_ORIG_RAX 57

enum rsp_host_arch rsp_host_arch_from_qsupported(const char *arg, size_t len)
{
    static const char key[] = "xmlRegisters=";
    const char *p = arg, *end = arg + len;

    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *f_end = semi ? semi : end;
        if ((size_t)(f_end - p) > sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0) {
            const char *a = p + sizeof(key) - 1;
            while (a < f_end) { /* a comma-separated list */
                const char *comma = memchr(a, ',', (size_t)(f_end - a));
                const char *a_end = comma ? comma : f_end;
                if (a_end - a == 4 && memcmp(a, "i386", 4) == 0)
                    return RSP_HOST_X86_64;
                a = a_end + 1;
            }
        }
        p = f_end + 1;
    }
    return RSP_HOST_UNKNOWN;
}

/* The PC of the Hg thread, from the target (which knows how its ISA makes
 * one); false when the thread has none that can be read. */
static bool hg_pc(struct rsp_server *s, uint64_t *pc)
{
    char e[RSP_ERR_LEN];
    uint32_t pid, tid;

    return rsp_resolve_thread(s, s->g, &pid, &tid) &&
           s->target.ops->sw_breakpoints->thread_pc(s->target.ctx, pid, tid, pc, e, sizeof(e)) == 0;
}

int rsp_hostview_tdesc(struct rsp_server *s, const char *annex, struct rsp_buf *out)
{
    if (s->host_arch != RSP_HOST_X86_64 || strcmp(annex, "target.xml") != 0)
        return -1;
    rsp_buf_puts(out, "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
                      "<target><architecture>i386:x86-64</architecture></target>\n");
    return 0;
}

static void put_unavailable(struct rsp_buf *b, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        rsp_buf_puts(b, "xx");
}

static void put_pc(struct rsp_server *s)
{
    uint64_t pc;
    uint8_t le[8];

    /* A target that cannot tell PCs (no sw_breakpoints table):
     * unavailable, as every other register. */
    if (!s->target.ops->sw_breakpoints) {
        put_unavailable(&s->reply, sizeof(le));
        return;
    }
    /* A thread with no readable state (idle: no kernel runs on it) shows
     * PC 0: GDB drops a connection whose current thread has no PC at all
     * ("PC register is not available"), and 0 is never device code. */
    if (!hg_pc(s, &pc))
        pc = 0;
    for (unsigned i = 0; i < sizeof(le); i++)
        le[i] = (uint8_t)(pc >> (8 * i));
    rsp_buf_hex(&s->reply, le, sizeof(le));
}

void rsp_hostview_read_regs(struct rsp_server *s)
{
    if (s->host_arch != RSP_HOST_X86_64) {
        put_unavailable(&s->reply, 8);
        return;
    }
    put_unavailable(&s->reply, X86_64_RIP_OFFSET);
    put_pc(s);
}

bool rsp_hostview_write_ignored(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    uint64_t regnum;
    /* Whenever it sets the PC (`run` does, to the PC it has), an x86-64
     * GNU/Linux GDB also writes orig_rax = -1 so that the kernel restarts
     * no system call. A device has no such register: the write changes
     * nothing, and refusing it would make GDB abandon `run`. */
    return s->host_arch == RSP_HOST_X86_64 && rsp_parse_hex(&p, end, &regnum) && p < end &&
           *p == '=' && regnum == X86_64_LINUX_ORIG_RAX;
}

void rsp_hostview_read_reg(struct rsp_server *s, uint64_t regnum)
{
    if (s->host_arch == RSP_HOST_X86_64 && regnum == X86_64_RIP)
        put_pc(s);
    else
        rsp_buf_puts(&s->reply, "xx"); /* unavailable, whatever its size */
}
