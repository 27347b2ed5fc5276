/* SPDX-License-Identifier: MIT */
#include "gtsim/iga.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The kernel-view entry points of libiga64 (visa/iga/IGALibrary/api/kv.h in
 * intel/intel-graphics-compiler, the version Debian ships as 1.0.12504).
 * Declared here from that documentation, so building needs no IGC headers.
 * kv_create's last parameter is a C++ enum with a default (the SWSB
 * encoding mode); through the C ABI it must be passed, 0 = "derive it
 * from the platform". */
typedef struct kv_opaque kv_t;
#define IGA_XE_HPC 0x01000004 /* XE_VER(1, 4) in iga.h */

struct iga_api {
    kv_t *(*create)(int plat, const void *bytes, size_t len, int *status, char *err, size_t errcap,
                    int swsb_mode);
    void (*destroy)(kv_t *);
    int32_t (*inst_size)(const kv_t *, int32_t pc);
    uint32_t (*exec_size)(const kv_t *, int32_t pc);
    uint32_t (*chan_off)(const kv_t *, int32_t pc);
    uint32_t (*mask_ctrl)(const kv_t *, int32_t pc);
    int32_t (*nsrc)(const kv_t *, int32_t pc);
    int32_t (*has_dst)(const kv_t *, int32_t pc);
    int32_t (*dst_reg)(const kv_t *, int32_t pc);
    int32_t (*dst_subreg)(const kv_t *, int32_t pc);
    uint32_t (*dst_type)(const kv_t *, int32_t pc);
    uint32_t (*dst_file)(const kv_t *, int32_t pc);
    uint32_t (*dst_kind)(const kv_t *, int32_t pc);
    int32_t (*dst_region)(const kv_t *, int32_t pc, uint32_t *hz);
    uint32_t (*dst_mod)(const kv_t *, int32_t pc);
    int32_t (*src_reg)(const kv_t *, int32_t pc, uint32_t n);
    int32_t (*src_subreg)(const kv_t *, int32_t pc, uint32_t n);
    uint32_t (*src_type)(const kv_t *, int32_t pc, uint32_t n);
    uint32_t (*src_file)(const kv_t *, int32_t pc, uint32_t n);
    uint32_t (*src_kind)(const kv_t *, int32_t pc, uint32_t n);
    int32_t (*src_region)(const kv_t *, int32_t pc, uint32_t n, uint32_t *vt, uint32_t *wi,
                          uint32_t *hz);
    int32_t (*src_imm)(const kv_t *, int32_t pc, uint32_t n, uint64_t *imm);
    uint32_t (*src_mod)(const kv_t *, int32_t pc, uint32_t n);
    uint32_t (*flag_mod)(const kv_t *, int32_t pc);
    int32_t (*flag_reg)(const kv_t *, int32_t pc);
    int32_t (*flag_subreg)(const kv_t *, int32_t pc);
    uint32_t (*pred)(const kv_t *, int32_t pc);
    uint32_t (*pred_inv)(const kv_t *, int32_t pc);
    uint32_t (*send_descs)(const kv_t *, int32_t pc, uint32_t *exdesc, uint32_t *desc);
    uint32_t (*msg_len)(const kv_t *, int32_t pc, uint32_t *mlen, uint32_t *emlen, uint32_t *rlen);
    int32_t (*syncfc)(const kv_t *, int32_t pc);
    uint32_t (*targets)(const kv_t *, int32_t pc, int32_t *pcs);
};

/* Process-wide: the library is loaded once and never unloaded (README.md,
 * "Global state"). IGA's decoder is not documented as thread-safe, and
 * several devices' workers may decode at once, so calls are serialized. */
static pthread_once_t iga_once = PTHREAD_ONCE_INIT;
static struct iga_api iga;
static const char *iga_why = "libiga64 not loaded yet";
static bool iga_ok;
static pthread_mutex_t iga_lock = PTHREAD_MUTEX_INITIALIZER;

#define RESOLVE(field, name)                                                                       \
    do {                                                                                           \
        *(void **)&iga.field = dlsym(h, name);                                                     \
        if (!iga.field) {                                                                          \
            iga_why = "libiga64.so.1 lacks " name;                                                 \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void load_iga(void)
{
    /* GTSIM_IGA_LIBRARY names another copy (or none: tests check that gtsim
     * without the library still walks). */
    const char *path = getenv("GTSIM_IGA_LIBRARY");
    void *h = dlopen(path && *path ? path : "libiga64.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        iga_why = "libiga64.so.1 not found (Debian package libigc1)";
        return;
    }
    RESOLVE(create, "kv_create");
    RESOLVE(destroy, "kv_delete");
    RESOLVE(inst_size, "kv_get_inst_size");
    RESOLVE(exec_size, "kv_get_execution_size");
    RESOLVE(chan_off, "kv_get_channel_offset");
    RESOLVE(mask_ctrl, "kv_get_mask_control");
    RESOLVE(nsrc, "kv_get_number_sources");
    RESOLVE(has_dst, "kv_get_has_destination");
    RESOLVE(dst_reg, "kv_get_destination_register");
    RESOLVE(dst_subreg, "kv_get_destination_sub_register");
    RESOLVE(dst_type, "kv_get_destination_data_type");
    RESOLVE(dst_file, "kv_get_destination_register_type");
    RESOLVE(dst_kind, "kv_get_destination_register_kind");
    RESOLVE(dst_region, "kv_get_destination_region");
    RESOLVE(dst_mod, "kv_get_destination_modifier");
    RESOLVE(src_reg, "kv_get_source_register");
    RESOLVE(src_subreg, "kv_get_source_sub_register");
    RESOLVE(src_type, "kv_get_source_data_type");
    RESOLVE(src_file, "kv_get_source_register_type");
    RESOLVE(src_kind, "kv_get_source_register_kind");
    RESOLVE(src_region, "kv_get_source_region");
    RESOLVE(src_imm, "kv_get_source_immediate");
    RESOLVE(src_mod, "kv_get_source_modifier");
    RESOLVE(flag_mod, "kv_get_flag_modifier");
    RESOLVE(flag_reg, "kv_get_flag_register");
    RESOLVE(flag_subreg, "kv_get_flag_sub_register");
    RESOLVE(pred, "kv_get_predicate");
    RESOLVE(pred_inv, "kv_get_is_inverse_predicate");
    RESOLVE(send_descs, "kv_get_send_descs");
    RESOLVE(msg_len, "kv_get_message_len");
    RESOLVE(syncfc, "kv_get_syncfc");
    RESOLVE(targets, "kv_get_inst_targets");
    iga_ok = true;
    iga_why = NULL;
}

bool gtsim_iga_available(const char **why)
{
    pthread_once(&iga_once, load_iga);
    if (why)
        *why = iga_why;
    return iga_ok;
}

/* IGA's RegName values (read back on the fixtures: r, null, acc0, cr0). */
static uint8_t map_file(uint32_t file, uint32_t kind)
{
    if (kind == 4) /* Kind::IMMEDIATE */
        return GTSIM_XF_IMM;
    if (kind != 1) /* Kind::DIRECT; indirect and the rest are not modelled */
        return GTSIM_XF_OTHER;
    switch (file) {
    case 17:
        return GTSIM_XF_GRF;
    case 1:
        return GTSIM_XF_NULL;
    case 3:
        return GTSIM_XF_ACC;
    case 10:
        return GTSIM_XF_CR;
    default:
        return GTSIM_XF_OTHER;
    }
}

/* IGA's Type values: :ub 6, :uw 8, :w 9, :ud 10, :d 11, :uq 12, :q 13, :f 20
 * were read back; :b 7 follows from that order (ub, b, uw, w, ...). :hf 14
 * was read back on iga64 -a's "mov (1|M0) r1.25<1>:hf 0.0:hf" (:bf is 16,
 * :df 21; both stay unmodelled). */
static uint8_t map_type(uint32_t t)
{
    switch (t) {
    case 6:
        return GTSIM_XT_UB;
    case 7:
        return GTSIM_XT_B;
    case 8:
        return GTSIM_XT_UW;
    case 9:
        return GTSIM_XT_W;
    case 10:
        return GTSIM_XT_UD;
    case 11:
        return GTSIM_XT_D;
    case 12:
        return GTSIM_XT_UQ;
    case 13:
        return GTSIM_XT_Q;
    case 14:
        return GTSIM_XT_HF;
    case 20:
        return GTSIM_XT_F;
    default:
        return GTSIM_XT_OTHER;
    }
}

/* IGA marks an undefined region field with all ones of its field width
 * (63 for the vertical stride, 31 width, 15 horizontal stride). */
static uint8_t rgn(uint32_t v, uint32_t none)
{
    return v == none ? GTSIM_XRGN_NONE : (uint8_t)v;
}

static void fill(const kv_t *kv, const uint8_t *code, struct gtsim_xinsn *x)
{
    x->opcode = code[0] & 0x7f;
    x->exec_size = (uint8_t)iga.exec_size(kv, 0);
    /* IGA counts the mask offset in groups of four lanes (M16 is 4). */
    x->chan_off = (uint8_t)(iga.chan_off(kv, 0) * 4);
    x->nomask = iga.mask_ctrl(kv, 0) == 1;
    x->pred = (uint8_t)iga.pred(kv, 0);
    x->pred_inv = iga.pred_inv(kv, 0) != 0;
    x->flag_reg = (uint8_t)iga.flag_reg(kv, 0);
    x->flag_sub = (uint8_t)iga.flag_subreg(kv, 0);
    x->cond_mod = (uint8_t)iga.flag_mod(kv, 0);
    x->dst_mod = (uint8_t)iga.dst_mod(kv, 0);
    x->has_dst = iga.has_dst(kv, 0) != 0;
    if (x->has_dst) {
        uint32_t hz = 0;
        iga.dst_region(kv, 0, &hz);
        x->dst.file = map_file(iga.dst_file(kv, 0), iga.dst_kind(kv, 0));
        x->dst.type = map_type(iga.dst_type(kv, 0));
        x->dst.reg = (uint16_t)iga.dst_reg(kv, 0);
        x->dst.subreg = (uint16_t)iga.dst_subreg(kv, 0);
        x->dst.hs = rgn(hz, 15);
        x->dst.vs = x->dst.w = GTSIM_XRGN_NONE;
    }
    int32_t n = iga.nsrc(kv, 0);
    x->nsrc = (uint8_t)(n < 0 ? 0 : n > 3 ? 3 : n);
    for (uint32_t i = 0; i < x->nsrc; i++) {
        struct gtsim_xop *s = &x->src[i];
        uint32_t vt = 0, wi = 0, hz = 0;
        iga.src_region(kv, 0, i, &vt, &wi, &hz);
        s->file = map_file(iga.src_file(kv, 0, i), iga.src_kind(kv, 0, i));
        s->type = map_type(iga.src_type(kv, 0, i));
        s->mod = (uint8_t)iga.src_mod(kv, 0, i);
        if (s->file == GTSIM_XF_IMM) {
            iga.src_imm(kv, 0, i, &s->imm);
        } else {
            s->reg = (uint16_t)iga.src_reg(kv, 0, i);
            s->subreg = (uint16_t)iga.src_subreg(kv, 0, i);
            s->vs = rgn(vt, 63);
            s->w = rgn(wi, 31);
            s->hs = rgn(hz, 15);
        }
    }
    uint32_t exdesc = 0, desc = 0;
    x->is_send = (x->opcode == 0x31 || x->opcode == 0x32) && x->length == 16;
    if (x->is_send && iga.send_descs(kv, 0, &exdesc, &desc) == 2) {
        uint32_t mlen = 0, emlen = 0, rlen = 0;
        x->desc = desc;
        x->exdesc = exdesc;
        x->sfid = code[11] >> 4;
        x->eot = (code[4] & 0x04) != 0;
        iga.msg_len(kv, 0, &mlen, &emlen, &rlen);
        x->mlen = (uint8_t)mlen;
        x->emlen = (uint8_t)emlen;
        x->rlen = (uint8_t)rlen;
    } else if (x->is_send) {
        x->sfid = 0xff; /* a register descriptor: not modelled */
    }
    x->syncfc = x->opcode == 0x01 ? iga.syncfc(kv, 0) : -1;
    int32_t t[3] = {0, 0, 0};
    uint32_t nt = iga.targets(kv, 0, t);
    x->ntargets = (uint8_t)(nt > 3 ? 3 : nt);
    memcpy(x->targets, t, sizeof(t));
}

int gtsim_iga_decode(enum gtsim_platform p, const uint8_t *code, size_t len,
                     struct gtsim_xinsn *out)
{
    uint8_t buf[16];
    int status = -1;
    char err[128];

    if (!code || !out || len < 4)
        return -EINVAL;
    if (p != GTSIM_XEHPC || !gtsim_iga_available(NULL))
        return -ENOSYS;
    memset(out, 0, sizeof(*out));
    out->length = (code[3] & 0x20) ? 8 : 16;
    if (len < out->length)
        return -EINVAL;
    /* The breakpoint bit is the debugger's, not part of the instruction. */
    memcpy(buf, code, out->length);
    if (out->length == 8)
        buf[0] &= 0x7f;
    else
        buf[3] &= (uint8_t)~0x40;
    pthread_mutex_lock(&iga_lock);
    kv_t *kv = iga.create(IGA_XE_HPC, buf, out->length, &status, err, sizeof(err), 0);
    int rc = 0;
    /* Decoded alone, a branch targets code outside the one instruction IGA
     * sees, which it reports as an error (and still decodes, targets
     * included); any other error means the bytes are not an instruction. */
    bool only_targets = kv && status != 0 && iga.targets(kv, 0, NULL) > 0;
    if (!kv || (status != 0 && !only_targets) || iga.inst_size(kv, 0) != out->length)
        rc = -EINVAL;
    else
        fill(kv, buf, out);
    if (kv)
        iga.destroy(kv);
    pthread_mutex_unlock(&iga_lock);
    return rc;
}
