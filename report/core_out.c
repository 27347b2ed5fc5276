/* SPDX-License-Identifier: MIT */
/* The GPU core writer of zestub dump --core (doc/core-format.md): the ELF
 * header and program headers through libelf, then the notes and the load
 * segments streamed behind them, thread by thread, so that a core of many
 * threads is never held in memory whole. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/core_plan.h"
#include "report/device_desc.h"
#include "regsets/regs.h"
#include "regsets/tdesc_xml.h"

#define CORE_EM_INTELGT 205
#define CORE_NT_PRSTATUS 1
#define CORE_NT_PRPSINFO 3
#define CORE_NT_SIGINFO 0x53494749u
#define CORE_NT_FILE 0x46494c45u
/* Our own note ("ZESTUB"): no note type bfd knows, so Intel's GDB skips it. */
#define CORE_NT_ZESTUB 0x5a455354u
#define CORE_FORMAT_VERSION 1
#define SIGINFO_SIZE 128
/* Module i's ELF sits at (i + 1) << 50 in the core: far above any device
 * address, never among the kernel code's segments. */
#define MODULE_VADDR_SHIFT 50

static const char core_name[] = "CORE";
static const char zestub_name[] = "ZESTUB";

/* ---- the plan: what goes in, and its sizes -------------------------------- */

/* The lowest address the module's ELF asks to be loaded at: its first
 * PT_LOAD, or without program headers its lowest allocated section. */
static bool first_address(Elf *e, uint64_t *addr)
{
    size_t nph = 0;
    bool found = false;
    Elf_Scn *scn = NULL;
    if (elf_getphdrnum(e, &nph) == 0)
        for (size_t i = 0; i < nph; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
                *addr = ph.p_vaddr;
                return true;
            }
        }
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0)
            continue;
        if (!found || sh.sh_addr < *addr)
            *addr = sh.sh_addr;
        found = true;
    }
    return found;
}

/* Code sections of the module, at their device addresses. */
static int code_ranges(Elf *e, struct module *mod)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        struct code_range *c;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0 ||
            (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
            sh.sh_offset > mod->size || sh.sh_size > mod->size - sh.sh_offset)
            continue;
        if (!(c = realloc(mod->code, (mod->ncode + 1) * sizeof(*c))))
            return -1;
        mod->code = c;
        c[mod->ncode].addr = sh.sh_addr + mod->delta;
        c[mod->ncode].size = sh.sh_size;
        c[mod->ncode].elf_off = sh.sh_offset;
        mod->ncode++;
    }
    return 0;
}

static int load_modules(struct plan *p)
{
    size_t n = sess_module_count(p->m, p->k);
    p->mods = calloc(n + 1, sizeof(*p->mods));
    if (!p->mods)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct sess_module_info info;
        struct module *mod = &p->mods[p->nmods];
        struct zd_error err;
        uint64_t first = 0;
        Elf *e;
        if (sess_module_at(p->m, p->k, i, &info) != 0 || info.end <= info.begin ||
            info.end - info.begin > (256u << 20))
            continue;
        mod->size = (size_t)(info.end - info.begin);
        if (!(mod->elf = malloc(mod->size)))
            return -1;
        if (sess_read_memory(p->m, p->k, UINT32_MAX, ZD_SPACE_DEFAULT, info.begin, mod->size,
                             mod->elf, &err) != 0) {
            fprintf(p->log, "zestub dump: core: module at 0x%llx left out: %s\n",
                    (unsigned long long)info.begin, err.msg);
            free(mod->elf);
            mod->elf = NULL;
            continue;
        }
        e = elf_memory((char *)mod->elf, mod->size);
        if (!e || elf_kind(e) != ELF_K_ELF) {
            fprintf(p->log, "zestub dump: core: module at 0x%llx left out: not an ELF image\n",
                    (unsigned long long)info.begin);
            if (e)
                elf_end(e);
            free(mod->elf);
            mod->elf = NULL;
            continue;
        }
        mod->begin = info.begin;
        mod->end = info.end;
        mod->vaddr = (uint64_t)(p->nmods + 1) << MODULE_VADDR_SHIFT;
        /* Modules linked at their device address (gtsim's) give 0. */
        mod->delta = info.load && first_address(e, &first) ? info.load - first : 0;
        snprintf(mod->name, sizeof(mod->name), "in-memory-0x%llx-0x%llx",
                 (unsigned long long)info.begin, (unsigned long long)info.end);
        if (code_ranges(e, mod) != 0) {
            elf_end(e);
            return -1;
        }
        elf_end(e);
        p->file_desc += 3 * 8 + strlen(mod->name) + 1;
        p->nmods++;
    }
    if (p->nmods)
        p->file_desc += 2 * 8;
    return 0;
}

void core_plan_free(struct plan *p)
{
    for (size_t i = 0; p->mods && i < p->nmods; i++) {
        free(p->mods[i].elf);
        free(p->mods[i].code);
    }
    free(p->mods);
    core_threads_free(&p->th);
    free(p->xml);
    core_mem_free(&p->mem);
}

/* ---- sizes: what the bound lets in ------------------------------------------- */

static size_t status_desc(const struct plan *p)
{
    return 16 + p->reg_bytes;
}

static bool has_siginfo(const struct core_thread *t)
{
    return core_host_signal(t->reason) != 0;
}

static uint64_t notes_size(const struct plan *p)
{
    uint64_t n = core_note_size(zestub_name, strlen(p->version) + 1);
    n += core_note_size(core_name, 4 + p->xml_len + 1);
    for (size_t i = 0; i < p->th.n; i++) {
        n += core_note_size(core_name, status_desc(p));
        if (has_siginfo(&p->th.t[i]))
            n += core_note_size(core_name, SIGINFO_SIZE);
    }
    if (p->nmods)
        n += core_note_size(core_name, p->file_desc);
    return n;
}

static GElf_Phdr *layout(const struct plan *p, size_t *phnum, uint64_t *notes_off);
static uint64_t core_size(const GElf_Phdr *ph, size_t phnum);

static bool overlaps(uint64_t a, uint64_t asize, uint64_t b, uint64_t bsize)
{
    return a < b + bsize && b < a + asize;
}

/* SLM has its own segment at the address Intel's GDB reads it at (the
 * core has no address spaces): only while no device memory or code of
 * the core is there too, which would make either unreadable. */
static void keep_slm_apart(struct plan *p)
{
    const struct core_mem_range *s = &p->mem.slm;
    bool clash = false;
    for (size_t i = 0; s->size && i < p->mem.n; i++)
        clash |= overlaps(s->addr, s->size, p->mem.r[i].addr, p->mem.r[i].size);
    for (size_t i = 0; s->size && i < p->nmods; i++)
        for (size_t c = 0; c < p->mods[i].ncode; c++)
            clash |= overlaps(s->addr, s->size, p->mods[i].code[c].addr, p->mods[i].code[c].size);
    if (!clash)
        return;
    fprintf(p->log,
            "zestub dump: core: SLM left out: device memory or code at 0x%llx, where "
            "Intel's GDB would read it\n",
            (unsigned long long)s->addr);
    p->mem.slm.size = 0;
}

/* The memory within limit; the SLM is that of the core's first thread
 * (Intel's GDB's current thread when it opens the core). */
static int plan_memory(struct plan *p, uint64_t limit)
{
    if (core_mem_plan(p->m, p->k, p->x, p->th.t[0].thread, limit, &p->mem) != 0)
        return -1;
    p->mem_limit = limit;
    keep_slm_apart(p);
    return 0;
}

/* The file's size as planned now; UINT64_MAX when out of memory. */
static uint64_t planned_size(const struct plan *p)
{
    size_t phnum;
    uint64_t notes_off, size;
    GElf_Phdr *ph = layout(p, &phnum, &notes_off);
    if (!ph)
        return UINT64_MAX;
    size = core_size(ph, phnum);
    free(ph);
    return size;
}

static uint64_t thread_size(const struct plan *p, const struct core_thread *t)
{
    uint64_t n = core_note_size(core_name, status_desc(p));
    return has_siginfo(t) ? n + core_note_size(core_name, SIGINFO_SIZE) : n;
}

/* --core-size: the headers, the notes every core has, the modules and
 * their code first, then threads in core order (at least one: a core
 * without a thread tells nothing), then memory within what is left. */
static int fit_size(struct plan *p, uint64_t bound)
{
    size_t keep = 0, had = p->th.n;
    uint64_t used, mem_limit = p->opts->mem_limit;
    p->th.n = 0;
    used = planned_size(p) + 8; /* + the notes' padding to 8 bytes */
    while (keep < had && (keep == 0 || used + thread_size(p, &p->th.t[keep]) <= bound))
        used += thread_size(p, &p->th.t[keep++]);
    p->th.n = keep;
    if (keep < had)
        fprintf(p->log,
                "zestub dump: core: %zu of %zu stopped threads written (--core-size %llu)\n", keep,
                had, (unsigned long long)bound);
    if (used >= bound)
        mem_limit = 0;
    else if (bound - used < mem_limit)
        mem_limit = bound - used;
    /* Each memory range also takes a program header and padding: plan
     * again within the overshoot until the whole file fits. */
    for (int round = 0;; round++) {
        uint64_t size;
        if (plan_memory(p, mem_limit) != 0)
            return -1;
        if ((size = planned_size(p)) == UINT64_MAX)
            return -1;
        if (size <= bound || (p->mem.n == 0 && p->mem.slm.size == 0)) {
            if (size > bound)
                fprintf(p->log,
                        "zestub dump: core: %llu bytes, more than --core-size %llu: the "
                        "modules and one thread need that much\n",
                        (unsigned long long)size, (unsigned long long)bound);
            return 0;
        }
        core_mem_free(&p->mem);
        mem_limit = round < 4 && size - bound < mem_limit ? mem_limit - (size - bound) : 0;
    }
}

int core_plan_make(struct plan *p)
{
    char name[128];
    struct regs_tdesc_device td;
    if (!p->cat)
        return -1;
    /* The same <device> element as the server's (target/tgt_ops.c). */
    report_device_desc(sess_device(p->m, p->k), &td, name, sizeof(name));
    if (!(p->xml = regs_tdesc_xml(p->cat, &td, &p->xml_len)))
        return -1;
    for (size_t i = 0; i < regs_catalog_count(p->cat); i++)
        p->reg_bytes += regs_catalog_at(p->cat, i)->bit_size / 8;
    snprintf(p->version, sizeof(p->version), "zestub core %d\nzestub %s\n", CORE_FORMAT_VERSION,
             PACKAGE_VERSION);
    if (core_threads_select(p->m, p->k, &p->th) != 0 || load_modules(p) != 0)
        return -1;
    core_threads_limit(&p->th, p->opts, p->log);
    if (p->th.n == 0)
        return 0;
    if (p->opts->size_limit) {
        if (fit_size(p, p->opts->size_limit) != 0)
            return -1;
    } else if (plan_memory(p, p->opts->mem_limit) != 0) {
        return -1;
    }
    core_threads_order_for_gdb(&p->th);
    p->signal = core_host_signal(p->th.t[0].reason);
    {
        size_t nf = sess_fault_count(p->m, p->k);
        /* Faults are per device: the last one is the one the faulting
         * threads are stopped at. */
        if (nf && sess_fault_at(p->m, p->k, nf - 1, &p->fault_addr, &p->fault_reason) == 0)
            p->has_fault = true;
    }
    return 0;
}

/* ---- writing ---------------------------------------------------------------- */

/* One thread's registers in the description's order, bit_size / 8 bytes
 * each, from its sets (data[s] NULL: set s unreadable, its registers
 * zeros). */
static void write_registers(struct core_io *o, const struct plan *p,
                            const uint8_t *const data[REPORT_MAX_SETS],
                            const size_t size[REPORT_MAX_SETS])
{
    for (size_t i = 0; i < regs_catalog_count(p->cat); i++) {
        const struct regs_reg *r = regs_catalog_at(p->cat, i);
        size_t want = r->bit_size / 8, have = 0;
        size_t at = (size_t)r->index * r->byte_size;
        if (r->regset < REPORT_MAX_SETS && data[r->regset] && at < size[r->regset]) {
            have = r->byte_size < want ? r->byte_size : want;
            if (have > size[r->regset] - at)
                have = size[r->regset] - at;
            core_io_put(o, data[r->regset] + at, have);
        }
        core_io_zeros(o, want - have);
    }
}

static void write_siginfo(struct core_io *o, const struct plan *p, const struct core_thread *t)
{
    uint8_t si[SIGINFO_SIZE] = {0};
    int code = 0;
    if (t->reason == ISA_STOP_PAGE_FAULT) {
        code = p->fault_reason == ZD_FAULT_PERMISSION ? 2 /* SEGV_ACCERR */ : 1 /* SEGV_MAPERR */;
        if (p->has_fault)
            core_put_u64(si + 16, p->fault_addr);
    } else if (t->reason == ISA_STOP_BREAKPOINT) {
        code = 1; /* TRAP_BRKPT */
    } else if (t->reason == ISA_STOP_ILLEGAL) {
        code = 1; /* ILL_ILLOPC */
    }
    core_put_u32(si, (uint32_t)core_host_signal(t->reason));
    core_put_u32(si + 8, (uint32_t)code);
    core_note_begin(o, core_name, CORE_NT_SIGINFO, sizeof(si));
    core_io_put(o, si, sizeof(si));
    core_note_end(o, sizeof(si));
}

/* The notes before the threads': the version and the description. */
static void write_head_notes(struct core_io *o, const struct plan *p)
{
    size_t vl = strlen(p->version) + 1, pl = 4 + p->xml_len + 1;
    core_note_begin(o, zestub_name, CORE_NT_ZESTUB, vl);
    core_io_put(o, p->version, vl);
    core_note_end(o, vl);
    /* "GPU", NUL, the description, NUL. */
    core_note_begin(o, core_name, CORE_NT_PRPSINFO, pl);
    core_io_put(o, "GPU", 4);
    core_io_put(o, p->xml, p->xml_len + 1);
    core_note_end(o, pl);
}

void core_write_thread(struct core_io *o, const struct plan *p, const struct core_thread *t,
                       const uint8_t *const data[REPORT_MAX_SETS],
                       const size_t size[REPORT_MAX_SETS])
{
    uint8_t h[16] = {0};
    core_put_u64(h, (uint64_t)t->thread + 1); /* the server's thread ids */
    /* The process's signal in every status note, as Linux cores do; the
     * thread's own is in its siginfo note. */
    core_put_u32(h + 8, (uint32_t)p->signal);
    core_note_begin(o, core_name, CORE_NT_PRSTATUS, status_desc(p));
    core_io_put(o, h, sizeof(h));
    write_registers(o, p, data, size);
    core_note_end(o, status_desc(p));
    if (has_siginfo(t))
        write_siginfo(o, p, t);
}

/* NT_FILE: where each module's ELF sits in the core. */
static void write_file_note(struct core_io *o, const struct plan *p)
{
    uint8_t w[8];
    if (!p->nmods)
        return;
    core_note_begin(o, core_name, CORE_NT_FILE, p->file_desc);
    core_put_u64(w, p->nmods);
    core_io_put(o, w, 8);
    core_put_u64(w, 1); /* page size: offsets are in bytes */
    core_io_put(o, w, 8);
    for (size_t i = 0; i < p->nmods; i++) {
        core_put_u64(w, p->mods[i].vaddr);
        core_io_put(o, w, 8);
        core_put_u64(w, p->mods[i].vaddr + p->mods[i].size);
        core_io_put(o, w, 8);
        core_put_u64(w, p->mods[i].delta);
        core_io_put(o, w, 8);
    }
    for (size_t i = 0; i < p->nmods; i++)
        core_io_put(o, p->mods[i].name, strlen(p->mods[i].name) + 1);
    core_note_end(o, p->file_desc);
}

/* Kernel code as the device has it now; where a read fails, the module's
 * own bytes (counted, said once). */
static void write_code(struct core_io *o, struct plan *p, const struct module *mod,
                       const struct code_range *c, unsigned *from_elf)
{
    uint8_t buf[1 << 14];
    bool fell_back = false;
    for (uint64_t done = 0; done < c->size;) {
        size_t n = c->size - done < sizeof(buf) ? (size_t)(c->size - done) : sizeof(buf);
        struct zd_error err;
        if (sess_read_memory(p->m, p->k, UINT32_MAX, ZD_SPACE_DEFAULT, c->addr + done, n, buf,
                             &err) == 0) {
            core_io_put(o, buf, n);
        } else {
            core_io_put(o, mod->elf + c->elf_off + done, n);
            fell_back = true;
        }
        done += n;
    }
    if (fell_back)
        (*from_elf)++;
}

/* The program headers: the notes, then each module's ELF followed by its
 * code sections, each load segment 8-aligned after the notes. Returns the
 * array (phnum entries) or NULL; *notes_off is where the notes start. */
static GElf_Phdr *layout(const struct plan *p, size_t *phnum, uint64_t *notes_off)
{
    size_t nload = p->nmods, k = 1;
    uint64_t off;
    GElf_Phdr *ph;
    for (size_t i = 0; i < p->nmods; i++)
        nload += p->mods[i].ncode;
    nload += p->mem.n + (p->mem.slm.size != 0);
    *phnum = 1 + nload;
    if (!(ph = calloc(*phnum, sizeof(*ph))))
        return NULL;
    /* ELF header, program headers, notes, then the segments. */
    *notes_off = 64 + (uint64_t)*phnum * 56;
    ph[0] = (GElf_Phdr){
        .p_type = PT_NOTE, .p_offset = *notes_off, .p_filesz = notes_size(p), .p_align = 4};
    off = (*notes_off + ph[0].p_filesz + 7) & ~(uint64_t)7;
    for (size_t i = 0; i < p->nmods; i++) {
        const struct module *mod = &p->mods[i];
        ph[k++] = (GElf_Phdr){.p_type = PT_LOAD,
                              .p_offset = off,
                              .p_vaddr = mod->vaddr,
                              .p_filesz = mod->size,
                              .p_memsz = mod->size,
                              .p_flags = PF_R,
                              .p_align = 8};
        off = (off + mod->size + 7) & ~(uint64_t)7;
        for (size_t c = 0; c < mod->ncode; c++) {
            ph[k++] = (GElf_Phdr){.p_type = PT_LOAD,
                                  .p_offset = off,
                                  .p_vaddr = mod->code[c].addr,
                                  .p_filesz = mod->code[c].size,
                                  .p_memsz = mod->code[c].size,
                                  .p_flags = PF_R | PF_X,
                                  .p_align = 8};
            off = (off + mod->code[c].size + 7) & ~(uint64_t)7;
        }
    }
    for (size_t i = 0; i < p->mem.n; i++) {
        const struct core_mem_range *r = &p->mem.r[i];
        ph[k++] = (GElf_Phdr){.p_type = PT_LOAD,
                              .p_offset = off,
                              .p_vaddr = r->addr,
                              .p_filesz = r->size,
                              .p_memsz = r->size,
                              .p_flags = PF_R | PF_W,
                              .p_align = 8};
        off = (off + r->size + 7) & ~(uint64_t)7;
    }
    if (p->mem.slm.size)
        ph[k++] = (GElf_Phdr){.p_type = PT_LOAD,
                              .p_offset = off,
                              .p_vaddr = p->mem.slm.addr,
                              .p_filesz = p->mem.slm.size,
                              .p_memsz = p->mem.slm.size,
                              .p_flags = PF_R | PF_W,
                              .p_align = 8};
    return ph;
}

/* The ELF header and the program headers through libelf (the layout is
 * ours: ELF_F_LAYOUT). 0, or -1 with libelf's reason on stderr. */
static int write_headers(const struct plan *p, int fd, const GElf_Phdr *ph, size_t phnum,
                         const char *path)
{
    GElf_Ehdr eh;
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    if (!e || !gelf_newehdr(e, ELFCLASS64) || !gelf_getehdr(e, &eh))
        goto failed;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh.e_type = ET_CORE;
    eh.e_machine = CORE_EM_INTELGT;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = 64;
    if (!gelf_update_ehdr(e, &eh) || !gelf_newphdr(e, phnum))
        goto failed;
    for (size_t i = 0; i < phnum; i++)
        if (!gelf_update_phdr(e, (int)i, (GElf_Phdr *)&ph[i]))
            goto failed;
    elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
    errno = 0;
    if (elf_update(e, ELF_C_WRITE) < 0) {
        /* A write that failed (a full disk) is said as the system says it:
         * libelf's own words would only be "cannot write data to file". */
        if (errno) {
            fprintf(p->log, "zestub dump: writing %s failed: %s\n", path, strerror(errno));
            elf_end(e);
            return -1;
        }
        goto failed;
    }
    elf_end(e);
    return 0;
failed:
    fprintf(p->log, "zestub dump: cannot write %s: libelf: %s\n", path, elf_errmsg(-1));
    if (e)
        elf_end(e);
    return -1;
}

/* The notes and the segments, streamed where the program headers say,
 * but the threads' notes: their place is left for core_write_thread. */
static void write_body(struct core_io *o, struct plan *p, const GElf_Phdr *ph, unsigned *from_elf,
                       uint64_t *mem_unreadable)
{
    size_t k = 1;
    write_head_notes(o, p);
    p->threads_off = core_io_pos(o);
    for (size_t i = 0; i < p->th.n; i++)
        core_io_skip(o, thread_size(p, &p->th.t[i]));
    write_file_note(o, p);
    for (size_t i = 0; i < p->nmods; i++) {
        struct module *mod = &p->mods[i];
        core_io_zeros(o, (size_t)(ph[k].p_offset - core_io_pos(o)));
        core_io_put(o, mod->elf, mod->size);
        k++;
        for (size_t c = 0; c < mod->ncode; c++, k++) {
            core_io_zeros(o, (size_t)(ph[k].p_offset - core_io_pos(o)));
            write_code(o, p, mod, &mod->code[c], from_elf);
        }
        core_io_flush(o);
        free(p->mods[i].elf); /* written: the pass need not hold it */
        p->mods[i].elf = NULL;
    }
    for (size_t i = 0; i < p->mem.n; i++, k++) {
        core_io_zeros(o, (size_t)(ph[k].p_offset - core_io_pos(o)));
        core_mem_write(o, p->m, p->k, &p->mem.r[i], mem_unreadable);
    }
    if (p->mem.slm.size) {
        core_io_zeros(o, (size_t)(ph[k].p_offset - core_io_pos(o)));
        core_mem_write_slm(o, p->m, p->k, &p->mem, mem_unreadable);
    }
    core_io_flush(o);
}

/* What could not be read, once each, after the core is written. */
void core_report_gaps(const struct plan *p, unsigned unreadable, unsigned from_elf,
                      uint64_t mem_unreadable)
{
    if (unreadable)
        fprintf(p->log,
                "zestub dump: core: %u thread%s with unreadable registers (written as zeros)\n",
                unreadable, unreadable == 1 ? "" : "s");
    if (from_elf)
        fprintf(p->log,
                "zestub dump: core: %u code range%s not readable on the device, taken from "
                "the module\n",
                from_elf, from_elf == 1 ? "" : "s");
    if (mem_unreadable)
        fprintf(p->log,
                "zestub dump: core: %llu bytes of memory not readable on the device (left as "
                "holes: zeros to a reader)\n",
                (unsigned long long)mem_unreadable);
    core_mem_report(&p->mem, p->mem_limit,
                    p->mem_limit < p->opts->mem_limit ? "--core-size" : "--core-memory", p->log);
}

/* The end of the last segment: the file's size, holes included. */
static uint64_t core_size(const GElf_Phdr *ph, size_t phnum)
{
    uint64_t end = 0;
    for (size_t i = 0; i < phnum; i++)
        if (ph[i].p_offset + ph[i].p_filesz > end)
            end = ph[i].p_offset + ph[i].p_filesz;
    return end;
}

int core_write_static(struct plan *p, struct core_io *o, const char *path, bool in_place,
                      unsigned *from_elf, uint64_t *mem_unreadable)
{
    size_t phnum;
    uint64_t notes_off;
    GElf_Phdr *ph = layout(p, &phnum, &notes_off);
    if (!ph) {
        fprintf(p->log, "zestub dump: core: out of memory\n");
        return -1;
    }
    if (write_headers(p, o->fd, ph, phnum, path) != 0) {
        free(ph);
        return -1;
    }
    o->off = notes_off;
    write_body(o, p, ph, from_elf, mem_unreadable);
    p->size = core_size(ph, phnum);
    /* Memory left as a hole at the very end still counts in the size (of
     * a regular file: /dev/null has none). */
    if (!o->err && !in_place && ftruncate(o->fd, (off_t)p->size) != 0)
        o->err = errno;
    free(ph);
    return 0;
}

uint64_t core_thread_note_size(const struct plan *p, const struct core_thread *t)
{
    return thread_size(p, t);
}
