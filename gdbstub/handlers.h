/* SPDX-License-Identifier: MIT */
/* The packet handlers and the shape of the dispatch table (dispatch.c).
 * A table entry also says what qSupported announces for its packet and
 * when the packet is answered at all, both as offers decided in offers.c,
 * so that the reply follows from what is in the table and what the target
 * provides, not from a string kept by hand. This header has no .c of its
 * own: the handlers (h_*.c) and the table both include it. */
#ifndef ZESTUB_GDBSTUB_HANDLERS_H
#define ZESTUB_GDBSTUB_HANDLERS_H

#include <stdbool.h>
#include <stddef.h>

#include "gdbstub/offers.h"

struct rsp_resume;
struct rsp_server;

/* What a handler asks of the loop. */
enum rsp_hresult {
    RSP_H_REPLY = 0, /* send s->reply */
    RSP_H_NOREPLY,   /* nothing now (resume: the stop reply comes later) */
};

typedef enum rsp_hresult (*rsp_handler_fn)(struct rsp_server *s, const char *arg, size_t len);

/* What rsp_dispatch_lookup shows of an entry (dispatch.h). */
struct rsp_dispatch_entry {
    const char *prefix;
    bool exact;
    const char *handler_name; /* for traces and tests */
};

struct rsp_packet {
    struct rsp_dispatch_entry pub;
    rsp_handler_fn fn; /* NULL: refused, the empty reply */
    /* qSupported: `feature` when `announce` is offered (offers.h), else
     * `refused`; either may be NULL (nothing said). */
    const char *feature, *refused;
    enum rsp_offer announce;
    /* The handler runs only when this is offered; the empty reply else. */
    enum rsp_offer serve;
};

/* h_query.c */
enum rsp_hresult rsp_h_qsupported(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_qc(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_qattached(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_noack(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_thread_events(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_delta(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_extended(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_rcmd(struct rsp_server *s, const char *arg, size_t len);
/* h_threads.c */
enum rsp_hresult rsp_h_set_thread(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_thread_alive(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_first_thread(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_next_thread(struct rsp_server *s, const char *arg, size_t len);
/* h_regs.c */
enum rsp_hresult rsp_h_read_regs(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_regs(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_read_reg(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_reg(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_expedited(struct rsp_server *s, const char *arg, size_t len);
/* h_memory.c */
enum rsp_hresult rsp_h_read_mem_hex(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_mem_hex(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_read_mem_bin(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_mem_bin(struct rsp_server *s, const char *arg, size_t len);
/* h_run.c */
enum rsp_hresult rsp_h_status(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vcont_query(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vcont(struct rsp_server *s, const char *arg, size_t len);
/* Resumes with the given actions (h_run.c); in all-stop the stop reply
 * follows from the event loop (RSP_H_NOREPLY), else the reply is built. */
enum rsp_hresult rsp_resume_start(struct rsp_server *s, const struct rsp_resume *a, size_t n);
enum rsp_hresult rsp_h_continue(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_continue_sig(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_step(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_step_sig(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_attach(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_detach(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_kill(struct rsp_server *s, const char *arg, size_t len);
/* h_vrun.c */
enum rsp_hresult rsp_h_vrun(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vkill(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_env_set(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_env_unset(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_env_reset(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_set_cwd(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_startup_shell(struct rsp_server *s, const char *arg, size_t len);
/* h_xfer.c */
enum rsp_hresult rsp_h_xfer_features(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_threads(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_exec_file(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_siginfo(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_libraries(struct rsp_server *s, const char *arg, size_t len);
/* h_library.c */
enum rsp_hresult rsp_h_vack(struct rsp_server *s, const char *arg, size_t len);
/* h_nonstop.c */
enum rsp_hresult rsp_h_qnonstop(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vstopped(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vctrlc(struct rsp_server *s, const char *arg, size_t len);
/* h_break.c */
enum rsp_hresult rsp_h_insert_bp(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_remove_bp(struct rsp_server *s, const char *arg, size_t len);

#endif
