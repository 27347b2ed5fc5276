/* SPDX-License-Identifier: MIT */
/* Page faults (PAGE_FAULT plus stopped threads with the fault bit, resumable)
 * and shared local memory through the SLM space of a stopped thread, with
 * the address-space rules around it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static void page_fault(ze_device_handle_t dev)
{
    struct conf_app app;
    const char *const args[] = {"pagefault", "--groups", "2", NULL};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;
    ze_device_thread_t stopped[64];
    char line[256];
    unsigned threads = 0, simd = 0, nstop = 0, nfault = 0, fault_bits = 0, good_fault = 1;
    uint64_t freed = 0;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_app_send(&app, "go");
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    zetDebugAcknowledgeEvent(s, &ev);
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    if (conf_app_expect(&app, "freed ", CONF_DEADLINE_MS, line, sizeof(line)))
        freed = strtoull(line + 6, NULL, 16);
    if (!threads || threads > 64 || !freed)
        tap_bail("the pagefault debuggee did not get to its launch");

    /* Both kinds of events, in whatever order the driver sends them. */
    uint64_t end = conf_now_ms() + CONF_DEADLINE_MS;
    while ((nstop < threads || nfault == 0) && conf_now_ms() < end) {
        ze_result_t r = conf_read_event(s, (int)(end - conf_now_ms()), &ev);
        if (r == ZE_RESULT_NOT_READY)
            continue;
        if (r != ZE_RESULT_SUCCESS)
            break;
        if (ev.type == ZET_DEBUG_EVENT_TYPE_PAGE_FAULT) {
            nfault++;
            tap_diag("PAGE_FAULT address 0x%" PRIx64 " mask 0x%" PRIx64 " reason %u",
                     ev.info.page_fault.address, ev.info.page_fault.mask,
                     ev.info.page_fault.reason);
            /* The freed allocation's page: hardware may report the page or
             * the exact address, gtsim reports the pointer itself. */
            if (ev.info.page_fault.address < (freed & ~(uint64_t)0xfff) ||
                ev.info.page_fault.address >= freed + 4096 ||
                ev.info.page_fault.reason != ZET_DEBUG_PAGE_FAULT_REASON_MAPPING_ERROR)
                good_fault = 0;
        } else if (ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED && nstop < 64) {
            uint32_t cr[4];
            stopped[nstop++] = ev.info.thread.thread;
            if (conf_read_cr0(s, ev.info.thread.thread, cr) == ZE_RESULT_SUCCESS &&
                (cr[1] & CONF_CR0_1_PAGE_FAULT))
                fault_bits++;
        } else {
            tap_diag("(event %s)", conf_event_name(ev.type));
            if (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
                zetDebugAcknowledgeEvent(s, &ev);
        }
    }
    tap_ok(nfault > 0, "PAGE_FAULT event (%u)", nfault);
    tap_ok(nfault > 0 && good_fault,
           "PAGE_FAULT address = the freed pointer 0x%" PRIx64 ", reason MAPPING_ERROR", freed);
    tap_ok(nstop == threads, "THREAD_STOPPED for each faulting thread: %u of %u", nstop, threads);
    tap_ok(nstop > 0 && fault_bits == nstop, "cr0.1 bit 16 (page fault) set in each (%u)",
           fault_bits);
    int resumed = 1;
    for (unsigned i = 0; i < nstop; i++)
        if (zetDebugResume(s, stopped[i]) != ZE_RESULT_SUCCESS)
            resumed = 0;
    tap_ok(resumed, "resume the faulting threads");
    /* SUCCESS or DEVICE_LOST are both fine here; the debuggee exits 0 on either. */
    tap_ok(conf_app_expect(&app, "done", CONF_DEADLINE_MS, line, sizeof(line)) &&
               conf_app_finish(&app, CONF_DEADLINE_MS),
           "the launch ends and the application exits 0 (%s)", line);
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev);
    zetDebugDetach(s);
}

static void slm(ze_device_handle_t dev)
{
    struct conf_app app;
    /* Two threads per work-group at SIMD32, or more at narrower SIMD:
     * threads of one group share one SLM. */
    const char *const args[] = {"slm", "--groups", "2", "--group-size", "64", NULL};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev, stops[64];
    char line[256];
    unsigned threads = 0, simd = 0;
    uint64_t off;
    uint8_t pattern[64], back[64];
    ze_result_t r;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_app_send(&app, "go");
    if (!conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev)) {
        tap_ok(0, "MODULE_LOAD");
        conf_app_kill(&app);
        return;
    }
    tap_ok(conf_nth_insn(s, ev.info.module.load, 2, &off, NULL) == 0 &&
               conf_plant_bp(s, ev.info.module.load + off) == 0,
           "breakpoint planted at the slm kernel's third instruction");
    zetDebugAcknowledgeEvent(s, &ev);
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    unsigned n =
        conf_collect(s, ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED, threads, CONF_DEADLINE_MS, stops, 64);
    tap_ok(threads > 0 && n == threads, "all %u threads stopped (%u)", threads, n);
    if (n == 0) {
        conf_app_kill(&app);
        return;
    }
    ze_device_thread_t t0 = stops[0].info.thread.thread;
    for (unsigned i = 0; i < sizeof(pattern); i++)
        pattern[i] = (uint8_t)(0x3c + 7 * i);
    r = conf_write_mem(s, t0, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM, CONF_SLM_TAG | 0x40, sizeof(pattern),
                       pattern);
    tap_ok(r == ZE_RESULT_SUCCESS, "write SLM at (1<<28)|0x40 of a stopped thread: %s",
           conf_result(r));
    memset(back, 0, sizeof(back));
    r = conf_read_mem(s, t0, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM, CONF_SLM_TAG | 0x40, sizeof(back),
                      back);
    tap_ok(r == ZE_RESULT_SUCCESS && memcmp(back, pattern, sizeof(back)) == 0,
           "read it back: same bytes (%s)", conf_result(r));

    /* Which threads share t0's work-group: r0.dword1 holds the group id. */
    uint32_t r0[16], r0b[16];
    int same_group = -1, other_group = -1;
    if (zetDebugReadRegisters(s, t0, CONF_REG_GRF, 0, 1, r0) == ZE_RESULT_SUCCESS) {
        for (unsigned i = 1; i < n; i++) {
            if (zetDebugReadRegisters(s, stops[i].info.thread.thread, CONF_REG_GRF, 0, 1, r0b) !=
                ZE_RESULT_SUCCESS)
                continue;
            if (r0b[1] == r0[1] && same_group < 0)
                same_group = (int)i;
            if (r0b[1] != r0[1] && other_group < 0)
                other_group = (int)i;
        }
    }
    if (same_group > 0) {
        r = conf_read_mem(s, stops[same_group].info.thread.thread, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM,
                          CONF_SLM_TAG | 0x40, sizeof(back), back);
        tap_ok(r == ZE_RESULT_SUCCESS && memcmp(back, pattern, sizeof(back)) == 0,
               "another thread of the same work-group sees the same SLM");
    } else {
        tap_skip("no second stopped thread in the same work-group");
    }
    if (other_group > 0) {
        r = conf_read_mem(s, stops[other_group].info.thread.thread, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM,
                          CONF_SLM_TAG | 0x40, sizeof(back), back);
        tap_ok(r == ZE_RESULT_SUCCESS && memcmp(back, pattern, sizeof(back)) != 0,
               "a thread of another work-group has its own SLM (%s)", conf_result(r));
    } else {
        tap_skip("no stopped thread of another work-group");
    }

    r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM, CONF_SLM_TAG, 16, back);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "SLM read with thread \"all\": INVALID_ARGUMENT (got %s)", conf_result(r));
    r = conf_read_mem(s, t0, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, 0x10, 16, back);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "default-space read of unmapped address 0x10: INVALID_ARGUMENT (got %s)",
           conf_result(r));
    r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, 0x10, 16, back);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "the same with thread \"all\": INVALID_ARGUMENT (got %s)", conf_result(r));

    int ok = 1;
    for (unsigned i = 0; i < n; i++) {
        ze_device_thread_t th = stops[i].info.thread.thread;
        ze_result_t rc = conf_continue_past_bp(s, th);
        if (rc != ZE_RESULT_SUCCESS) {
            tap_diag("thread %u.%u.%u.%u (stop %u of %u): %s", th.slice, th.subslice, th.eu,
                     th.thread, i, n, conf_result(rc));
            ok = 0;
        }
    }
    tap_ok(ok, "continue every thread past the breakpoint");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0) &&
               conf_app_finish(&app, CONF_DEADLINE_MS),
           "the slm launch completes");
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev);
    zetDebugDetach(s);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;

    conf_init(argc, argv, 120);
    tap_plan(19);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    page_fault(devs[0]);
    slm(devs[0]);
    return tap_done();
}
