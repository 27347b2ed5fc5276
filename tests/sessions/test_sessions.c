/* SPDX-License-Identifier: MIT */
/* sessions/ against a real debuggee on gtsim: the held module load lets a
 * breakpoint be planted first; stops arrive as notes (and wake the notify
 * fd); a stepped thread advances one instruction; resuming a thread that
 * sits on its breakpoint goes past it (suppress is automatic); memory
 * falls back to the "all" thread for running threads; the register cache
 * reads each set once per stop; a note says when it was queued. */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define DEADLINE_MS 20000

/* CLOCK_MONOTONIC, the note queue's clock. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The next note of a type, releasing module loads on the way. */
static int next_note(struct sess_manager *m, enum sess_note_type type, struct sess_note *out)
{
    uint64_t end = conf_now_ms() + DEADLINE_MS;
    struct zd_error err;
    while (conf_now_ms() < end) {
        if (sess_wait(m, 200, out) != 0)
            continue;
        if (out->type == type)
            return 1;
        if (out->type == SESS_NOTE_MODULE_LOAD && out->need_ack)
            sess_module_release(m, out->session, out->module_begin, out->module_end, &err);
    }
    return 0;
}

/* The next stop of one thread; other threads' stops are left stopped. */
static int stop_of(struct sess_manager *m, uint32_t thread, struct sess_note *out)
{
    uint64_t end = conf_now_ms() + DEADLINE_MS;
    while (conf_now_ms() < end)
        if (sess_wait(m, 200, out) == 0 && out->type == SESS_NOTE_STOPPED && out->thread == thread)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    struct conf_app app;
    struct zd *zd = NULL;
    struct sess_manager *m = NULL;
    struct sess_options opt = {true, true};
    struct zd_error err;
    struct sess_note note, load;
    struct sess_stats st0, st1;
    uint8_t insn[16], back[16];
    uint64_t bp, pc = 0, pc2 = 0, go_ns;
    const uint8_t *cr;
    size_t crsz;
    uint32_t t;

    conf_init(argc, argv, 90);
    tap_plan(29);
    conf_set_pace(200);
    if (!tap_ok(zd_open(&zd, &err) == 0, "zd_open: %s", err.msg))
        return tap_done();
    if (!tap_ok(conf_app_start_ready(&app, 1, (const char *const[]){"vadd", NULL}) == 0,
                "debuggee ready"))
        return tap_done();
    if (!tap_ok(sess_attach(zd, (uint32_t)app.pid, &opt, &m, &err) == 0, "attach: %s", err.msg))
        goto out;
    {
        /* Nothing runs yet: every thread ends up unavailable. A later
         * stop-all must still interrupt the device, since work may have
         * been dispatched onto those threads meanwhile. */
        struct zd_stats a, b;
        sess_stop_all(m, &err);
        zd_get_stats(zd, &a);
        sess_stop_all(m, &err);
        zd_get_stats(zd, &b);
        tap_ok(b.interrupt == a.interrupt + 1,
               "stop-all interrupts a device whose threads are only unavailable");
    }
    go_ns = mono_ns();
    conf_app_send(&app, "go");

    /* The load is held: plant a breakpoint on the third instruction. */
    if (!tap_ok(next_note(m, SESS_NOTE_MODULE_LOAD, &load) && load.need_ack,
                "module load note, held for us"))
        goto out;
    tap_ok(load.queued_ns >= go_ns && load.queued_ns <= mono_ns(),
           "the note says when it was queued: after the application was let go, before it was "
           "read (%.3f s after)",
           (double)(load.queued_ns - go_ns) / 1e9);
    bp = load.module_load;
    for (int i = 0; i < 2; i++) {
        sess_read_memory(m, load.session, UINT32_MAX, ZD_SPACE_DEFAULT, bp, 16, insn, &err);
        bp += isa_insn_length(insn);
    }
    tap_ok(sess_read_memory(m, load.session, 0, ZD_SPACE_DEFAULT, bp, 16, insn, &err) == 0,
           "a running thread reads code through the all thread");
    isa_insn_set_breakpoint(insn, true);
    tap_ok(sess_write_memory(m, load.session, UINT32_MAX, ZD_SPACE_DEFAULT, bp, 16, insn, &err) ==
               0,
           "breakpoint written");
    sess_read_memory(m, load.session, UINT32_MAX, ZD_SPACE_DEFAULT, bp, 16, back, &err);
    tap_ok(isa_insn_breakpoint(back), "the breakpoint bit reads back");
    tap_ok(sess_read_memory(m, load.session, UINT32_MAX, ZD_SPACE_SLM, 1u << 28, 4, back, &err) ==
               ZD_E_UNAVAILABLE,
           "SLM without a stopped thread is refused");
    sess_module_release(m, load.session, load.module_begin, load.module_end, &err);

    /* The first stop: a note, and the notify fd was readable. */
    {
        struct pollfd p = {sess_notify_fd(m), POLLIN, 0};
        tap_ok(poll(&p, 1, DEADLINE_MS) == 1, "the notify fd wakes an event loop");
    }
    if (!tap_ok(next_note(m, SESS_NOTE_STOPPED, &note), "a thread stopped"))
        goto out;
    t = note.thread;
    tap_ok(sess_thread_state(m, note.session, t) == SESS_T_STOPPED, "thread state is stopped");
    tap_ok(sess_thread_reason(m, note.session, t) == ISA_STOP_BREAKPOINT, "reason: breakpoint");
    tap_ok(sess_thread_pc(m, note.session, t, &pc, &err) == 0 && pc == bp,
           "PC is the breakpoint address");
    sess_get_stats(m, &st0);
    sess_thread_pc(m, note.session, t, &pc, &err);
    sess_read_regset(m, note.session, t, REGS_CR, &cr, &crsz, &err);
    sess_get_stats(m, &st1);
    tap_ok(st1.register_reads == st0.register_reads, "cached registers are not read again");
    /* The core writer drops what it read: the set is read again, the same. */
    sess_forget_regset(m, note.session, t, REGS_CR);
    tap_ok(!sess_regset_cached(m, note.session, t, REGS_CR), "a forgotten set is not cached");
    tap_ok(sess_thread_pc(m, note.session, t, &pc2, &err) == 0 && pc2 == bp &&
               (sess_get_stats(m, &st0), st0.register_reads == st1.register_reads + 1),
           "read again from the device after sess_forget_regset (one read), same PC");

    /* Step: one instruction further, stopped again. */
    tap_ok(sess_resume_thread(m, note.session, t, true, &err) == 0, "step: %s", err.msg);
    tap_ok(sess_thread_state(m, note.session, t) == SESS_T_RUNNING, "running after resume");
    if (tap_ok(stop_of(m, t, &note), "the step stops")) {
        sess_thread_pc(m, note.session, t, &pc2, &err);
        tap_ok(pc2 == bp + isa_insn_length(insn), "the step advanced past the breakpoint");
    }
    tap_ok(sess_read_regset(m, note.session, t, REGS_CR, &cr, &crsz, &err) == 0 &&
               isa_cr0_breakpoint(cr),
           "fresh registers after the stop (cache dropped on resume)");

    /* Every other kernel thread reaches the breakpoint, or is stopped
     * short of it by the stop-all if it has not got there yet (a loaded
     * machine). Resuming them all must step the ones on the breakpoint
     * past it (suppress), not stop them there again. */
    /* The kernel's threads, as the debuggee counts them (work-groups of one
     * thread each): none has finished, so once every thread's state is
     * read after the stop-all, exactly that many are stopped (stop-all
     * alone counts the threads an answer of all may have stopped). */
    uint8_t *on_bp = calloc(sess_thread_count(m, note.session) + 1, 1);
    {
        char line[128];
        unsigned simd = 0, threads = 0, stopped = 0;
        if (conf_app_expect(&app, "kernel simd", DEADLINE_MS, line, sizeof(line)))
            sscanf(line, "kernel simd %u threads %u", &simd, &threads);
        sess_stop_all(m, &err);
        for (uint32_t k = 0; on_bp && k < sess_thread_count(m, note.session); k++) {
            uint64_t pk = 0;
            if (sess_thread_state(m, note.session, k) != SESS_T_STOPPED)
                continue;
            stopped++;
            on_bp[k] = sess_thread_pc(m, note.session, k, &pk, &err) == 0 && pk == bp;
        }
        tap_ok(threads > 0 && stopped == threads, "stop all: %u threads stopped, %u run the kernel",
               stopped, threads);
    }
    tap_ok(sess_resume_all(m, &err) == 0, "resume all: %s", err.msg);
    bool detached = false;
    {
        unsigned again = 0;
        struct sess_note n2;
        uint64_t end = conf_now_ms() + 1500;
        while (conf_now_ms() < end) {
            uint64_t p2 = 0;
            if (sess_wait(m, 100, &n2) != 0)
                continue;
            if (n2.type == SESS_NOTE_DETACHED)
                detached = true;
            if (n2.type != SESS_NOTE_STOPPED ||
                sess_thread_reason(m, n2.session, n2.thread) != ISA_STOP_BREAKPOINT)
                continue;
            sess_thread_pc(m, n2.session, n2.thread, &p2, &err);
            /* Only a thread that was on the breakpoint at the resume
             * would stop on it twice. */
            again += p2 == bp && on_bp && n2.session == note.session && on_bp[n2.thread];
            sess_resume_thread(m, n2.session, n2.thread, false, &err);
        }
        tap_ok(again == 0, "no thread stops twice on the same breakpoint (%u did)", again);
    }
    free(on_bp);
    tap_ok(sess_resume_thread(m, note.session, t, false, &err) == ZD_E_UNAVAILABLE,
           "resuming a running thread is refused");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", DEADLINE_MS, NULL, 0),
           "the application finishes");
    tap_ok(detached || next_note(m, SESS_NOTE_DETACHED, &note), "DETACHED when it exits");
out:
    sess_detach_all(m);
    conf_app_finish(&app, 5000);
    conf_app_kill(&app);
    zd_close(zd);
    return tap_done();
}
