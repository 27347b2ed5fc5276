/* SPDX-License-Identifier: MIT */
/* Exported ABI: per-thread state (universal id, stashed tuple, tracepoint
 * scope). Thread-local by specification. */
#include <stddef.h>

#include "xpti/framework.h"

static _Thread_local uint64_t tls_universal_id;
static _Thread_local const char *tls_stash_key;
static _Thread_local uint64_t tls_stash_value;
static _Thread_local struct xpti_tracepoint_if *tls_scope;
/* The tracepoint xptiRegisterTracepointScope made last on this thread. */
static _Thread_local const struct xpti_tracepoint_if *tls_registered_scope;

uint64_t xptiGetUniversalId(void)
{
    return tls_universal_id;
}

void xptiSetUniversalId(uint64_t uid)
{
    tls_universal_id = uid;
}

xpti_result_t xptiStashTuple(const char *key, uint64_t value)
{
    if (!key)
        return XPTI_RESULT_FAIL;
    tls_stash_key = key;
    tls_stash_value = value;
    return XPTI_RESULT_SUCCESS;
}

xpti_result_t xptiGetStashedTuple(char **key, uint64_t *value)
{
    if (!key || !value)
        return XPTI_RESULT_INVALIDARG;
    if (!tls_stash_key)
        return XPTI_RESULT_NOTFOUND;
    *key = (char *)tls_stash_key;
    *value = tls_stash_value;
    return XPTI_RESULT_SUCCESS;
}

void xptiUnstashTuple(void)
{
    /* Deliberately empty: the G3 framework keeps the stash here too, and a
     * subscriber compiled against it may read the tuple after an unstash. */
}

const struct xpti_tracepoint_if *xptiGetTracepointScopeData(void)
{
    return tls_scope;
}

xpti_result_t xptiSetTracepointScopeData(struct xpti_tracepoint_if *tp)
{
    if (!tp)
        return XPTI_RESULT_INVALIDARG;
    struct tp_inst *inst =
        tpreg_validate(&xpti_fw_get()->tracepoints, tp, offsetof(struct tp_inst, tracepoint_if));
    if (!inst)
        return XPTI_RESULT_INVALIDARG;
    tls_scope = tp;
    tls_universal_id = tp_inst_uid64(inst);
    return XPTI_RESULT_SUCCESS;
}

void xptiUnsetTracepointScopeData(void)
{
    tls_scope = NULL;
    tls_universal_id = 0;
}

const struct xpti_tracepoint_if *xptiRegisterTracepointScope(const char *func_name,
                                                             const char *file_name, uint32_t line,
                                                             uint32_t column, void *code_ptr_va)
{
    tls_registered_scope = xptiCreateTracepoint(func_name, file_name, line, column, code_ptr_va);
    return tls_registered_scope;
}
