/* SPDX-License-Identifier: MIT */
/* The benchmark's subscriber: a no-op callback on the "xpti" stream for the
 * standard trace types, so notifications reach a real callback in another
 * shared object, as they would in production. */
#include <string.h>

#include "xpti/xpti.h"

void xptiTraceInit(unsigned maj, unsigned min, const char *version, const char *stream);
void xptiTraceFinish(const char *stream);

static void no_op(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                  uint64_t instance, const void *ud)
{
}

void xptiTraceInit(unsigned maj, unsigned min, const char *version, const char *stream)
{
    if (strcmp(stream, "xpti") != 0)
        return;
    xpti_stream_id_t id = xptiRegisterStream(stream);
    for (uint16_t t = XPTI_TP_GRAPH_CREATE; t <= XPTI_TP_FUNCTION_END; t++)
        xptiRegisterCallback(id, t, no_op);
}

void xptiTraceFinish(const char *stream) {}
