/* SPDX-License-Identifier: MIT */
/* Branches: jmpi (the whole thread) and the structured goto/join, which
 * park and wake lanes (README.md, "Executing instructions"). Targets are
 * IGA's, in bytes from the branch: jmpi has one; goto has JIP then UIP,
 * join has JIP. */
#include <stdlib.h>

#include "gtsim/exec_int.h"

static enum gtsim_exec_result jump(struct gtsim_exec_env *env, int32_t by)
{
    env->jump = by;
    return GTSIM_EXEC_JUMP;
}

/* jmpi is scalar: its predicate is the flag bit of its one lane. */
enum gtsim_exec_result gtsim_x_jmpi(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint32_t f = 1;
    if (x->ntargets != 1 || x->exec_size != 1)
        return gtsim_x_illegal(env, "jmpi form not modelled (register target)");
    if (x->pred != 0) {
        if (x->pred != 1 || !gtsim_x_flag_read(env, x, &f))
            return gtsim_x_illegal(env, "jmpi predicate not modelled");
        f = x->pred_inv ? ~f : f;
    }
    return (f & 1) ? jump(env, x->targets[0]) : GTSIM_EXEC_NEXT;
}

/* The instruction's lanes that run now, ignoring any predicate. */
static uint32_t active_lanes(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint32_t m = 0;
    gtsim_x_exec_mask(x, env, false, &m); /* without a predicate it cannot fail */
    return m;
}

/* goto: the enabled lanes whose predicate holds (all of them without one)
 * are parked until the join at UIP; when no lane of the instruction is left
 * running the thread moves to JIP, the next join where some may wake. */
enum gtsim_exec_result gtsim_x_goto(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint32_t go;
    if (x->ntargets != 2 || x->nomask || x->chan_off + x->exec_size > GTSIM_X_MAX_LANES ||
        !env->simt)
        return gtsim_x_illegal(env, "goto form not modelled");
    if (!gtsim_x_exec_mask(x, env, true, &go))
        return GTSIM_EXEC_ILLEGAL;
    uint32_t active = active_lanes(x, env);
    if (go && !*env->simt && !(*env->simt = calloc(1, sizeof(**env->simt))))
        return gtsim_x_illegal(env, "out of memory for the lanes a goto parks");
    for (unsigned i = 0; i < x->exec_size; i++) {
        if (!(go >> i & 1))
            continue;
        unsigned lane = x->chan_off + i;
        (*env->simt)->off |= 1u << lane;
        (*env->simt)->wait_ip[lane] = env->ip + (uint32_t)x->targets[1];
    }
    return (active & ~go) == 0 ? jump(env, x->targets[0]) : GTSIM_EXEC_NEXT;
}

/* join: wakes the lanes parked for this IP; with none running after that
 * the thread moves to JIP. */
enum gtsim_exec_result gtsim_x_join(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    if (x->ntargets != 1 || x->nomask || x->chan_off + x->exec_size > GTSIM_X_MAX_LANES ||
        !env->simt)
        return gtsim_x_illegal(env, "join form not modelled");
    struct gtsim_exec_simt *s = *env->simt;
    for (unsigned i = 0; s && i < x->exec_size; i++) {
        unsigned lane = x->chan_off + i;
        if ((s->off >> lane & 1) && s->wait_ip[lane] == env->ip)
            s->off &= ~(1u << lane);
    }
    return active_lanes(x, env) == 0 ? jump(env, x->targets[0]) : GTSIM_EXEC_NEXT;
}
