/* SPDX-License-Identifier: MIT */
/* Reads the parts of a zebin (the ELF that ocloc and the Intel compute
 * runtime use for GPU modules) that gtsim needs to run its kernels: each
 * kernel's machine code and the launch facts in the .ze_info YAML document. */
#ifndef GTSIM_ZEBIN_H
#define GTSIM_ZEBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Intel Graphics Technology ELF machine (EM_INTELGT in newer <elf.h>). */
#define GTSIM_EM_INTELGT 205

enum gtsim_zebin_arg_kind {
    GTSIM_ZEBIN_ARG_IMPLICIT,      /* filled by the runtime: global_id_offset, local_size, ... */
    GTSIM_ZEBIN_ARG_BYVALUE,       /* arg_byvalue */
    GTSIM_ZEBIN_ARG_GLOBAL_PTR,    /* arg_bypointer addrspace global, or buffer_address */
    GTSIM_ZEBIN_ARG_LOCAL_PTR,     /* arg_bypointer, addrspace local (SLM) */
    GTSIM_ZEBIN_ARG_CONST_PTR,     /* arg_bypointer, addrspace constant */
    GTSIM_ZEBIN_ARG_BUFFER_OFFSET, /* buffer_offset: the pointer's offset in its buffer */
    GTSIM_ZEBIN_ARG_OTHER,         /* images, samplers, anything else by pointer */
};

/* One entry of a kernel's payload_arguments, in ocloc's order. A global
 * pointer argument appears more than once: a stateful binding-table entry
 * (size 0, nothing to write) plus its 8-byte address, either as a stateless
 * arg_bypointer or as a buffer_address entry, and sometimes a 4-byte
 * buffer_offset. Entries with size 0 need no payload bytes. */
struct gtsim_zebin_arg {
    int arg_index;      /* explicit kernel argument index, -1 if implicit */
    uint32_t offset;    /* in the cross-thread payload */
    uint32_t size;      /* bytes in the payload (0 for stateful-only entries) */
    char arg_type[32];  /* e.g. "arg_bypointer", "local_size" */
    char addrmode[16];  /* "stateless", "stateful", "slm", or "" */
    char addrspace[16]; /* "global", "local", "constant", or "" */
    enum gtsim_zebin_arg_kind kind;
};

struct gtsim_zebin_kernel {
    char name[128];
    const uint8_t *text;   /* .text.<name> contents, inside the zebin's own image copy */
    size_t text_size;      /* sh_size of .text.<name> (includes IGC's zero padding) */
    size_t text_offset;    /* sh_offset of .text.<name> in the image */
    unsigned text_section; /* section index of .text.<name> */
    uint32_t simd_size;    /* 1, 8, 16 or 32 */
    uint32_t grf_count;    /* 0 if .ze_info does not say */
    uint32_t slm_size;     /* static local memory in bytes, 0 if none */
    uint32_t barrier_count;
    bool has_stack_calls;
    uint32_t offset_to_skip_per_thread_data_load;
    /* per_thread_payload_arguments local_id: the per-lane local ids the
     * runtime provides for each thread (0 if the kernel takes none). */
    uint32_t local_id_offset, local_id_size;
    size_t nargs;
    struct gtsim_zebin_arg *args;
};

struct gtsim_zebin {
    uint8_t *image; /* private copy of the parsed image */
    size_t image_size;
    uint16_t e_machine;
    uint16_t e_type;
    char ze_info_version[16];
    size_t text_size; /* sum of every .text and .text.* section */
    size_t nkernels;
    struct gtsim_zebin_kernel *kernels;
};

/* Parses image (copied, so the caller may free it afterwards). On success
 * *out owns everything and is released with gtsim_zebin_free. On failure
 * returns a negative errno (-EINVAL for malformed input, -ENOMEM), leaves
 * *out NULL and writes a sentence into err (if errlen > 0). */
int gtsim_zebin_parse(const void *image, size_t size, struct gtsim_zebin **out, char *err,
                      size_t errlen);

void gtsim_zebin_free(struct gtsim_zebin *zb);

/* The kernel called name, or NULL. */
const struct gtsim_zebin_kernel *gtsim_zebin_find_kernel(const struct gtsim_zebin *zb,
                                                         const char *name);

#endif
