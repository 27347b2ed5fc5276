/* SPDX-License-Identifier: MIT */
/* Hand-built Itanium C++ ABI virtual tables for the four interfaces a G3 SYCL
 * runtime calls methods on (xpti_payload_t, xpti_metadata_t,
 * xpti_trace_event_t, xpti_tracepoint_t). */
#ifndef ZESTUB_XPTI_CXX_INTERFACES_H
#define ZESTUB_XPTI_CXX_INTERFACES_H

struct tp_inst;

/* Point the instance's four interface sub-objects at their tables. */
void cxx_attach_interfaces(struct tp_inst *inst);

#endif
