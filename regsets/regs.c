/* SPDX-License-Identifier: MIT */
#include "regsets/regs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per type: name prefix (numbered registers) or a single name, group,
 * element type, which registers are expedited (protocol 3.2). */
struct type_info {
    const char *name;   /* regs_type_name */
    const char *prefix; /* "r" -> r0, r1...; NULL: single or SBA names */
    const char *single; /* the one register's name for CE and SP */
    enum regs_group group;
    uint32_t elem_bits; /* 0: the register's own bit size */
};

static const struct type_info types[] = {
    [REGS_GRF] = {"grf", "r", NULL, REGS_GROUP_GRF, 32},
    [REGS_ADDR] = {"addr", "a", NULL, REGS_GROUP_ARF, 16},
    [REGS_FLAG] = {"flag", "f", NULL, REGS_GROUP_ARF, 16},
    [REGS_CE] = {"ce", NULL, "ce", REGS_GROUP_ARF, 32},
    [REGS_SR] = {"sr", "sr", NULL, REGS_GROUP_ARF, 32},
    [REGS_CR] = {"cr", "cr", NULL, REGS_GROUP_ARF, 32},
    [REGS_TDR] = {"tdr", "tdr", NULL, REGS_GROUP_ARF, 16},
    [REGS_ACC] = {"acc", "acc", NULL, REGS_GROUP_ARF, 32},
    [REGS_MME] = {"mme", "mme", NULL, REGS_GROUP_ARF, 32},
    [REGS_SP] = {"sp", NULL, "sp", REGS_GROUP_ARF, 0},
    [REGS_SBA] = {"sba", NULL, NULL, REGS_GROUP_VIRTUAL, 0},
    [REGS_DBG] = {"dbg", "dbg", NULL, REGS_GROUP_ARF, 32},
    [REGS_FC] = {"fc", "fc", NULL, REGS_GROUP_ARF, 32},
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const char *const sba_names[] = {"genstbase", "sustbase",   "dynbase",    "iobase",
                                        "isabase",   "blsustbase", "blsastbase", "btbase",
                                        "scrbase",   "scrbase2"};
#define NSBA (sizeof(sba_names) / sizeof(sba_names[0]))

static const char *const features[] = {
    [REGS_GRF] = "org.gnu.gdb.intelgt.grf",   [REGS_ADDR] = "org.gnu.gdb.intelgt.addr",
    [REGS_FLAG] = "org.gnu.gdb.intelgt.flag", [REGS_CE] = "org.gnu.gdb.intelgt.ce",
    [REGS_SR] = "org.gnu.gdb.intelgt.sr",     [REGS_CR] = "org.gnu.gdb.intelgt.cr",
    [REGS_TDR] = "org.gnu.gdb.intelgt.tdr",   [REGS_ACC] = "org.gnu.gdb.intelgt.acc",
    [REGS_MME] = "org.gnu.gdb.intelgt.mme",   [REGS_SP] = "org.gnu.gdb.intelgt.sp",
    [REGS_SBA] = "org.gnu.gdb.intelgt.sba",   [REGS_DBG] = "org.gnu.gdb.intelgt.dbg",
    [REGS_FC] = "org.gnu.gdb.intelgt.fc",
};

struct regs_catalog {
    size_t n, nsets;
    struct regs_reg *regs;
    struct regs_set *sets;
    char notes[512];
};

const char *regs_type_name(uint32_t type)
{
    return type > 0 && type < NTYPES ? types[type].name : NULL;
}

const char *regs_group_name(enum regs_group g)
{
    return g == REGS_GROUP_GRF ? "grf" : g == REGS_GROUP_ARF ? "arf" : "virtual";
}

static void note(struct regs_catalog *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct regs_catalog *c, const char *fmt, ...)
{
    size_t len = strlen(c->notes);
    va_list ap;
    if (len + 2 >= sizeof(c->notes))
        return;
    va_start(ap, fmt);
    vsnprintf(c->notes + len, sizeof(c->notes) - len - 1, fmt, ap);
    va_end(ap);
    strcat(c->notes, "\n");
}

/* How many registers a set contributes; 0 when the set is skipped. */
static uint32_t accepted(struct regs_catalog *c, const struct zd_regset *s, const bool *seen)
{
    uint32_t n = s->count;
    if (s->type == 0 || s->type >= NTYPES) {
        note(c, "ignored register set of unknown type %u (%u registers)", s->type, s->count);
        return 0;
    }
    if (s->count < 1 || !s->readable) {
        note(c, "ignored register set type %u: %s", s->type,
             s->count < 1 ? "no registers" : "not readable");
        return 0;
    }
    if (seen[s->type]) {
        note(c, "ignored a second register set of type %u", s->type);
        return 0;
    }
    if (s->type == REGS_SBA) {
        if (s->version != 0) {
            note(c, "ignored SBA register set of version %u (only 0 is known)", s->version);
            return 0;
        }
        if (n > NSBA) {
            note(c, "SBA: kept the first %u of %u registers", (unsigned)NSBA, n);
            n = NSBA;
        }
    }
    if ((s->type == REGS_CE || s->type == REGS_SP) && n > 1) {
        note(c, "register set type %u: kept 1 of %u registers", s->type, n);
        n = 1;
    }
    return n;
}

/* Which registers GDB gets without asking (stop replies): the first and
 * last GRF, the first of a few ARFs, the two SBA bases the debugger needs. */
static bool is_expedited(uint32_t type, uint32_t j, uint32_t nregs)
{
    switch (type) {
    case REGS_GRF:
        return j == 0 || j + 1 == nregs;
    case REGS_CE:
    case REGS_SR:
    case REGS_CR:
        return j == 0;
    case REGS_SBA:
        return j == REGS_SBA_GENSTBASE || j == REGS_SBA_ISABASE;
    default:
        return false;
    }
}

/* Appends the first `take` registers of set s as the catalog's set k. */
static void add_set(struct regs_catalog *c, const struct zd_regset *s, uint32_t take, size_t k)
{
    const struct type_info *ti = &types[s->type];
    struct regs_set *set = &c->sets[k];
    set->props = *s;
    set->first_regnum = (uint32_t)c->n;
    set->nregs = take;
    set->feature = features[s->type];
    for (uint32_t j = 0; j < take; j++) {
        struct regs_reg *r = &c->regs[c->n];
        r->regnum = (uint32_t)c->n;
        r->bit_size = s->bit_size;
        r->byte_size = s->byte_size ? s->byte_size : (s->bit_size + 7) / 8;
        r->regset_type = s->type;
        r->index = j;
        r->regset = (unsigned)k;
        r->group = ti->group;
        r->writable = s->writable;
        r->elem_bits = ti->elem_bits ? ti->elem_bits : s->bit_size;
        if (r->elem_bits > s->bit_size)
            r->elem_bits = s->bit_size;
        if (ti->prefix)
            snprintf(r->name, sizeof(r->name), "%s%u", ti->prefix, (unsigned)j);
        else if (ti->single)
            snprintf(r->name, sizeof(r->name), "%s", ti->single);
        else
            snprintf(r->name, sizeof(r->name), "%s", sba_names[j]);
        r->expedited = is_expedited(s->type, j, take);
        c->n++;
    }
}

struct regs_catalog *regs_catalog_new(const struct zd_regset *sets, size_t n)
{
    struct regs_catalog *c = calloc(1, sizeof(*c));
    bool seen[NTYPES] = {false};
    size_t total = 0, k = 0;
    uint32_t *take;

    if (!c)
        return NULL;
    take = calloc(n ? n : 1, sizeof(*take));
    if (!take) {
        free(c);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        take[i] = accepted(c, &sets[i], seen);
        if (take[i]) {
            seen[sets[i].type] = true;
            total += take[i];
            c->nsets++;
        }
    }
    c->regs = calloc(total ? total : 1, sizeof(*c->regs));
    c->sets = calloc(c->nsets ? c->nsets : 1, sizeof(*c->sets));
    if (!c->regs || !c->sets) {
        free(take);
        regs_catalog_free(c);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (take[i])
            add_set(c, &sets[i], take[i], k++);
    free(take);
    return c;
}

void regs_catalog_free(struct regs_catalog *c)
{
    if (!c)
        return;
    free(c->regs);
    free(c->sets);
    free(c);
}

size_t regs_catalog_count(const struct regs_catalog *c)
{
    return c ? c->n : 0;
}

const struct regs_reg *regs_catalog_at(const struct regs_catalog *c, size_t regnum)
{
    return c && regnum < c->n ? &c->regs[regnum] : NULL;
}

const struct regs_reg *regs_catalog_find(const struct regs_catalog *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->n; i++)
        if (strcmp(c->regs[i].name, name) == 0)
            return &c->regs[i];
    return NULL;
}

const struct regs_reg *regs_catalog_lookup(const struct regs_catalog *c, uint32_t type,
                                           uint32_t index)
{
    for (size_t i = 0; c && i < c->nsets; i++)
        if (c->sets[i].props.type == type)
            return index < c->sets[i].nregs ? &c->regs[c->sets[i].first_regnum + index] : NULL;
    return NULL;
}

size_t regs_catalog_set_count(const struct regs_catalog *c)
{
    return c ? c->nsets : 0;
}

const struct regs_set *regs_catalog_set(const struct regs_catalog *c, size_t i)
{
    return c && i < c->nsets ? &c->sets[i] : NULL;
}

const char *regs_catalog_notes(const struct regs_catalog *c)
{
    return c ? c->notes : "";
}

void regs_reg_xml_type(const struct regs_reg *r, char *buf, size_t size)
{
    if (r->elem_bits == 0 || r->bit_size == r->elem_bits || r->bit_size % r->elem_bits != 0)
        snprintf(buf, size, "uint%u", (unsigned)r->bit_size);
    else
        snprintf(buf, size, "vector%ux%u", (unsigned)(r->bit_size / r->elem_bits),
                 (unsigned)r->elem_bits);
}
