/* SPDX-License-Identifier: MIT */
/* What the executor's files share (exec.c the ALU and the dispatch,
 * exec_operands.c operands and lane masks, exec_lsc.c LSC messages,
 * exec_dataport.c legacy data-port messages,
 * exec_flags.c flags, compares and sel, exec_flow.c branches and the
 * goto/join lane masks). Private to gtsim/exec*.c. */
#ifndef GTSIM_EXEC_INT_H
#define GTSIM_EXEC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtsim/exec.h"

#define GTSIM_X_MAX_LANES 32

/* IGA's source modifier value for a negated source (read back on
 * long_kernel: "-r16.0<1;1,0>:d" is 2). Absolute values are not modelled. */
#define GTSIM_X_SRC_NEG 2

enum gtsim_exec_result gtsim_x_illegal(struct gtsim_exec_env *env, const char *why);
unsigned gtsim_x_type_size(uint8_t t);
bool gtsim_x_type_signed(uint8_t t);
bool gtsim_x_is_int(uint8_t t);
size_t gtsim_x_grf_bytes(const struct gtsim_exec_env *env);
uint8_t *gtsim_x_file_bytes(struct gtsim_exec_env *env, uint8_t file, size_t *size);

/* Element i of source s, sign- or zero-extended to 64 bits. A negated
 * integer source is negated when allow_neg, refused otherwise (logic
 * operations read the modifier as a bitwise not, which is not modelled). */
bool gtsim_x_read_src(struct gtsim_exec_env *env, const struct gtsim_xop *s, unsigned i,
                      bool allow_neg, uint64_t *v);
/* Checks a destination for lanes elements before anything is written. */
bool gtsim_x_dst_ok(struct gtsim_exec_env *env, const struct gtsim_xop *d, unsigned lanes);
void gtsim_x_write_dst(struct gtsim_exec_env *env, const struct gtsim_xop *d, unsigned i,
                       uint64_t v);

/* The lanes an instruction runs for (bit i is lane chan_off + i): the
 * dispatch mask, less the lanes a goto parked, or every lane with (W);
 * then the predicate, when predicate is true. False (with env->why set)
 * for a predicate form that is not modelled. */
bool gtsim_x_exec_mask(const struct gtsim_xinsn *x, struct gtsim_exec_env *env, bool predicate,
                       uint32_t *mask);

/* The flag bits an instruction's flag register gives its lanes: bit i is
 * lane chan_off + i. Flag fN.s is bits N*32 + s*16 of the flag file. */
bool gtsim_x_flag_read(struct gtsim_exec_env *env, const struct gtsim_xinsn *x, uint32_t *bits);
/* Sets the instruction's flag bits of the lanes in mask to values. */
void gtsim_x_flag_write(struct gtsim_exec_env *env, const struct gtsim_xinsn *x, uint32_t mask,
                        uint32_t values);

enum gtsim_exec_result gtsim_x_lsc(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);
enum gtsim_exec_result gtsim_x_dataport(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);
enum gtsim_exec_result gtsim_x_cmp(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);
enum gtsim_exec_result gtsim_x_sel(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);
enum gtsim_exec_result gtsim_x_jmpi(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);
enum gtsim_exec_result gtsim_x_goto(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);
enum gtsim_exec_result gtsim_x_join(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);

#endif
