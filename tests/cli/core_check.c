/* SPDX-License-Identifier: MIT */
/* Reads a core of `zestub dump --core` with libelf and checks it against
 * doc/core-format.md and against facts given on the command line (from the
 * JSON dump of the same run and the module the device served). Prints
 * "ok - " / "not ok - " lines for run_check.sh, always CHECKS of them (a
 * core that cannot be read fails the checks it could not make); exits 1
 * when one failed.
 *
 *   core_check CORE [--prefix P] [--threads N] [--signal S]
 *              [--fault-addr A] [--pc A] [--module FILE] */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECKS 12
#define NT_ZESTUB_TYPE 0x5a455354u
#define NT_SIGINFO_TYPE 0x53494749u
#define NT_FILE_TYPE 0x46494c45u

static const char *prefix = "";
static int count, failed;

__attribute__((format(printf, 2, 3))) static bool check(bool ok, const char *fmt, ...)
{
    va_list ap;
    count++;
    printf("%s - %s", ok ? "ok" : "not ok", prefix);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    if (!ok)
        failed++;
    return ok;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct note {
    char name[16];
    uint32_t type;
    const uint8_t *desc;
    size_t size;
};

/* A register of the description: its name, and where it sits in a
 * status note's register block. */
struct reg {
    char name[24];
    size_t offset, bytes;
};

static bool attr(const char *tag, const char *end, const char *key, char *out, size_t len)
{
    char pat[32];
    const char *p, *q;
    snprintf(pat, sizeof(pat), " %s=\"", key);
    if (!(p = strstr(tag, pat)) || p > end)
        return false;
    p += strlen(pat);
    if (!(q = strchr(p, '"')) || q > end || (size_t)(q - p) >= len)
        return false;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return true;
}

/* The <reg> elements in document order (the order of the register block). */
static size_t parse_regs(const char *xml, struct reg **out, size_t *block)
{
    size_t n = 0;
    struct reg *r = NULL;
    *block = 0;
    for (const char *p = xml; (p = strstr(p, "<reg ")); p++) {
        const char *end = strchr(p, '>');
        char bits[16];
        struct reg *nr;
        if (!end || !(nr = realloc(r, (n + 1) * sizeof(*r))))
            break;
        r = nr;
        memset(&r[n], 0, sizeof(r[n]));
        if (!attr(p, end, "name", r[n].name, sizeof(r[n].name)) ||
            !attr(p, end, "bitsize", bits, sizeof(bits)))
            continue;
        r[n].bytes = strtoul(bits, NULL, 10) / 8;
        r[n].offset = *block;
        *block += r[n].bytes;
        n++;
    }
    *out = r;
    return n;
}

static const struct reg *find_reg(const struct reg *r, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].name, name) == 0)
            return &r[i];
    return NULL;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        *len = (size_t)n;
    else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *module = NULL;
    long want_threads = -1, want_signal = -1;
    bool has_fault = false, has_pc = false;
    uint64_t want_fault = 0, want_pc = 0;
    char why[256] = "";
    struct stat st;
    int fd;
    Elf *e = NULL;
    GElf_Ehdr eh;
    size_t nph = 0;
    GElf_Phdr *ph = NULL;
    struct note *notes = NULL;
    size_t nnotes = 0;
    bool whole = false;

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--prefix") && v)
            prefix = argv[++i];
        else if (!strcmp(argv[i], "--threads") && v)
            want_threads = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--signal") && v)
            want_signal = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--fault-addr") && v)
            has_fault = true, want_fault = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--pc") && v)
            has_pc = true, want_pc = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--module") && v)
            module = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: core_check CORE [--prefix P] [--threads N] [--signal S] "
                            "[--fault-addr A] [--pc A] [--module FILE]\n");
            return 2;
        }
    }
    if (!path || elf_version(EV_CURRENT) == EV_NONE)
        return 2;

    /* 1. The file is an ELF whose headers, notes and segments are all in it. */
    if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
        snprintf(why, sizeof(why), "cannot open %s", path);
    else if (st.st_size < 64)
        snprintf(why, sizeof(why), "truncated: %lld bytes, less than an ELF header",
                 (long long)st.st_size);
    else if (!(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(e) != ELF_K_ELF ||
             !gelf_getehdr(e, &eh))
        snprintf(why, sizeof(why), "not an ELF file (libelf: %s)", elf_errmsg(-1));
    else if (elf_getphdrnum(e, &nph) != 0 || nph == 0 || !(ph = calloc(nph, sizeof(*ph))))
        snprintf(why, sizeof(why), "truncated or corrupt: no program headers (libelf: %s)",
                 elf_errmsg(-1));
    else {
        whole = true;
        for (size_t i = 0; i < nph && whole; i++) {
            if (!gelf_getphdr(e, (int)i, &ph[i])) {
                snprintf(why, sizeof(why), "truncated: program header %zu unreadable", i);
                whole = false;
            } else if (ph[i].p_offset > (uint64_t)st.st_size ||
                       ph[i].p_filesz > (uint64_t)st.st_size - ph[i].p_offset) {
                snprintf(why, sizeof(why),
                         "truncated: segment %zu ends at byte %llu, the file has %llu", i,
                         (unsigned long long)(ph[i].p_offset + ph[i].p_filesz),
                         (unsigned long long)st.st_size);
                whole = false;
            }
        }
    }
    /* The notes, through libelf's note reader. */
    for (size_t i = 0; whole && i < nph; i++) {
        Elf_Data *d;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        if (ph[i].p_type != PT_NOTE)
            continue;
        if (!(d = elf_getdata_rawchunk(e, (int64_t)ph[i].p_offset, ph[i].p_filesz, ELF_T_NHDR))) {
            snprintf(why, sizeof(why), "corrupt: note segment unreadable (libelf: %s)",
                     elf_errmsg(-1));
            whole = false;
            break;
        }
        while (off < d->d_size) {
            size_t next = gelf_getnote(d, off, &nh, &name_off, &desc_off);
            struct note *nn;
            if (next == 0) {
                snprintf(why, sizeof(why), "corrupt: a note at segment offset %zu is cut", off);
                whole = false;
                break;
            }
            if (!(nn = realloc(notes, (nnotes + 1) * sizeof(*notes))))
                return 2;
            notes = nn;
            memset(&notes[nnotes], 0, sizeof(notes[nnotes]));
            snprintf(notes[nnotes].name, sizeof(notes[nnotes].name), "%.*s",
                     (int)(nh.n_namesz ? nh.n_namesz - 1 : 0), (char *)d->d_buf + name_off);
            notes[nnotes].type = nh.n_type;
            notes[nnotes].desc = (const uint8_t *)d->d_buf + desc_off;
            notes[nnotes].size = nh.n_descsz;
            nnotes++;
            off = next;
        }
    }
    if (!check(whole, "the core is whole%s%s", whole ? "" : ": rejected, ", why)) {
        for (int i = count; i < CHECKS; i++)
            check(false, "check %d not made: the core was rejected", i + 1);
        free(notes);
        free(ph);
        if (e)
            elf_end(e);
        if (fd >= 0)
            close(fd);
        return 1;
    }

    /* 2. The ELF header. */
    check(eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
              eh.e_type == ET_CORE && eh.e_machine == 205,
          "ELF64 little-endian ET_CORE for EM_INTELGT (got class %d type %d machine %d)",
          eh.e_ident[EI_CLASS], eh.e_type, eh.e_machine);

    /* 3. Our note, first, says the format version. */
    check(nnotes > 0 && !strcmp(notes[0].name, "ZESTUB") && notes[0].type == NT_ZESTUB_TYPE &&
              notes[0].size > 14 && !memcmp(notes[0].desc, "zestub core 1\n", 14),
          "the first note is zestub's, format 1");

    /* 4. The program note: "GPU", NUL, the description, NUL at its end. */
    const struct note *prog = NULL;
    for (size_t i = 0; i < nnotes && !prog; i++)
        if (!strcmp(notes[i].name, "CORE") && notes[i].type == NT_PRPSINFO)
            prog = &notes[i];
    const char *xml = NULL;
    if (prog && prog->size > 5 && !memcmp(prog->desc, "GPU", 4) && prog->desc[prog->size - 1] == 0)
        xml = (const char *)prog->desc + 4;
    struct reg *regs = NULL;
    size_t block = 0, nregs = xml ? parse_regs(xml, &regs, &block) : 0;
    check(xml && strstr(xml, "<device vendor-id=\"0x") && strstr(xml, " target-id=\"0x") &&
              strstr(xml, "<architecture>intelgt</architecture>") && find_reg(regs, nregs, "ce") &&
              find_reg(regs, nregs, "r26") && find_reg(regs, nregs, "cr0") &&
              find_reg(regs, nregs, "sr0") && find_reg(regs, nregs, "isabase") &&
              strlen(xml) + 5 == prog->size && strstr(xml, "</target>"),
          "the program note holds a whole description with <device> and ce, r26, cr0, sr0, "
          "isabase (%zu registers, %zu bytes a thread)",
          nregs, block);

    /* 5-8. Status notes: their count, their size, their ids, the signal
     * the first and the last carry, a siginfo note right after each. */
    size_t nstatus = 0, bad_size = 0, bad_id = 0, orphan_si = 0;
    const struct note *first = NULL, *last = NULL, *first_si = NULL;
    uint64_t *ids = calloc(nnotes + 1, sizeof(*ids));
    for (size_t i = 0; i < nnotes; i++) {
        const struct note *n = &notes[i];
        if (strcmp(n->name, "CORE"))
            continue;
        if (n->type == NT_PRSTATUS) {
            uint64_t id = n->size >= 16 ? get_u64(n->desc) : 0;
            if (n->size != 16 + block)
                bad_size++;
            for (size_t k = 0; k < nstatus; k++)
                bad_id += ids[k] == id;
            bad_id += id == 0;
            ids[nstatus++] = id;
            if (!first)
                first = n;
            last = n;
            if (first == n && i + 1 < nnotes && notes[i + 1].type == NT_SIGINFO_TYPE)
                first_si = &notes[i + 1];
        } else if (n->type == NT_SIGINFO_TYPE) {
            if (i == 0 || notes[i - 1].type != NT_PRSTATUS || n->size != 128)
                orphan_si++;
        }
    }
    check(want_threads < 0 ? nstatus > 0 : nstatus == (size_t)want_threads,
          "one status note per thread (%zu, want %ld)", nstatus, want_threads);
    check(nstatus > 0 && bad_size == 0 && block > 0,
          "every status note is 16 + %zu bytes, the description's registers (%zu are not)", block,
          bad_size);
    check(nstatus > 0 && bad_id == 0, "thread ids unique and non-zero (%zu clashes or zeros)",
          bad_id);
    {
        long s_first = first ? (long)get_u32(first->desc + 8) : -1;
        long s_last = last ? (long)get_u32(last->desc + 8) : -1;
        long si_signo = first_si ? (long)get_u32(first_si->desc) : -1;
        uint64_t si_addr = first_si ? get_u64(first_si->desc + 16) : 0;
        bool ok = s_first == s_last && s_first > 0 && orphan_si == 0 && first_si &&
                  (want_signal < 0 || (s_last == want_signal && si_signo == want_signal)) &&
                  (!has_fault || si_addr == want_fault);
        check(ok,
              "signal %ld in the first and last status notes (want %ld), the first thread's "
              "siginfo follows it (signo %ld, si_addr 0x%llx), %zu siginfo notes misplaced",
              s_last, want_signal, si_signo, (unsigned long long)si_addr, orphan_si);
    }

    /* 9. The first thread's PC (isabase + cr0 dword 2) from its registers,
     * inside an executable load segment. */
    {
        const struct reg *cr0 = find_reg(regs, nregs, "cr0");
        const struct reg *isa = find_reg(regs, nregs, "isabase");
        uint64_t pc = 0;
        bool in_code = false;
        if (first && cr0 && isa && cr0->bytes >= 12 && isa->bytes >= 8)
            pc = get_u64(first->desc + 16 + isa->offset) +
                 get_u32(first->desc + 16 + cr0->offset + 8);
        for (size_t i = 0; i < nph; i++)
            if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) && pc >= ph[i].p_vaddr &&
                pc - ph[i].p_vaddr < ph[i].p_filesz)
                in_code = true;
        check(pc && in_code && (!has_pc || pc == want_pc),
              "the first thread's PC 0x%llx (want 0x%llx) is in a code segment",
              (unsigned long long)pc, (unsigned long long)want_pc);
    }

    /* 10-11. The file-mapping note: well formed, each module a whole ELF in
     * a load segment of its own. */
    const struct note *fnote = NULL;
    for (size_t i = 0; i < nnotes; i++)
        if (!strcmp(notes[i].name, "CORE") && notes[i].type == NT_FILE_TYPE)
            fnote = &notes[i];
    uint64_t nfiles = fnote && fnote->size >= 16 ? get_u64(fnote->desc) : 0;
    bool fok = fnote && nfiles > 0 && get_u64(fnote->desc + 8) == 1 &&
               fnote->size > 16 + nfiles * 24 && fnote->desc[fnote->size - 1] == 0;
    const uint8_t *first_mod = NULL;
    size_t first_mod_size = 0;
    if (fok) {
        const char *names = (const char *)fnote->desc + 16 + nfiles * 24;
        const char *end = (const char *)fnote->desc + fnote->size;
        for (uint64_t k = 0; k < nfiles && fok; k++) {
            const uint8_t *ent = fnote->desc + 16 + k * 24;
            uint64_t start = get_u64(ent), stop = get_u64(ent + 8);
            bool seg = false;
            if (names >= end)
                fok = false;
            else
                names += strlen(names) + 1;
            for (size_t i = 0; i < nph && !seg; i++)
                if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr == start &&
                    ph[i].p_filesz == stop - start) {
                    Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph[i].p_offset, ph[i].p_filesz,
                                                       ELF_T_BYTE);
                    seg = d && d->d_size >= 4 && !memcmp(d->d_buf, "\177ELF", 4);
                    if (seg && k == 0) {
                        first_mod = d->d_buf;
                        first_mod_size = d->d_size;
                    }
                }
            fok = fok && seg;
        }
        fok = fok && names == end;
    }
    check(fok, "the file-mapping note lists %llu module(s), each a whole ELF in a load segment",
          (unsigned long long)nfiles);
    if (module) {
        size_t len = 0;
        uint8_t *want = slurp(module, &len);
        check(want && first_mod && len == first_mod_size && !memcmp(want, first_mod, len),
              "the embedded module equals %s byte for byte (%zu and %zu bytes)", module,
              first_mod_size, len);
        free(want);
    } else {
        check(first_mod != NULL, "a module is embedded");
    }

    /* 12. Nothing but what the format says: one note segment, loads. */
    {
        size_t nnote_seg = 0, other = 0;
        for (size_t i = 0; i < nph; i++) {
            nnote_seg += ph[i].p_type == PT_NOTE;
            other += ph[i].p_type != PT_NOTE && ph[i].p_type != PT_LOAD;
        }
        check(nnote_seg == 1 && other == 0 && eh.e_shnum == 0,
              "one note segment, load segments, no section headers");
    }

    free(ids);
    free(regs);
    free(notes);
    free(ph);
    elf_end(e);
    close(fd);
    return failed ? 1 : 0;
}
