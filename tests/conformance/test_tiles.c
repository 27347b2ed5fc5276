/* SPDX-License-Identifier: MIT */
/* Sub-device (tile) sessions on a multi-tile device: a tile session sees
 * only its tile's threads, numbered within the tile, and a breakpoint
 * written through one tile's session does not stop the other tile's
 * threads. A root session sees every thread, slices numbered across tiles.
 * Skipped on devices without sub-devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define MAXT 1024

struct sess {
    zet_debug_session_handle_t s;
    int plant; /* plant the breakpoint when this session sees the module */
    unsigned nstop;
    ze_device_thread_t stops[MAXT];
};

/* Reads the sessions in turn, each with a short timeout, so no session's
 * NEED_ACK waits behind another's silence. Returns when `want` threads
 * stopped in the first session, or nothing happened for quiet_ms, or at the deadline. */
static void pump(struct sess *ss, int n, unsigned want, int quiet_ms)
{
    uint64_t end = conf_now_ms() + CONF_DEADLINE_MS, last = conf_now_ms();
    for (;;) {
        if (ss[0].nstop >= want || conf_now_ms() >= end ||
            conf_now_ms() - last >= (uint64_t)quiet_ms)
            return;
        for (int i = 0; i < n; i++) {
            zet_debug_event_t ev;
            if (conf_read_event(ss[i].s, 50, &ev) != ZE_RESULT_SUCCESS)
                continue;
            last = conf_now_ms();
            if (ev.type == ZET_DEBUG_EVENT_TYPE_MODULE_LOAD && ss[i].plant) {
                uint64_t off;
                if (conf_nth_insn(ss[i].s, ev.info.module.load, 2, &off, NULL) ||
                    conf_plant_bp(ss[i].s, ev.info.module.load + off))
                    tap_diag("could not plant the breakpoint");
            }
            if (ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED && ss[i].nstop < MAXT)
                ss[i].stops[ss[i].nstop++] = ev.info.thread.thread;
            if (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
                zetDebugAcknowledgeEvent(ss[i].s, &ev);
        }
    }
}

static int attach(ze_device_handle_t dev, pid_t pid, zet_debug_session_handle_t *s,
                  const char *what)
{
    zet_debug_config_t cfg = {.pid = (uint32_t)pid};
    ze_result_t r = zetDebugAttach(dev, &cfg, s);
    return tap_ok(r == ZE_RESULT_SUCCESS, "attach %s: %s", what, conf_result(r));
}

static void finish(struct conf_app *app, struct sess *ss, int n, const char *what)
{
    uint64_t end = conf_now_ms() + CONF_DEADLINE_MS;
    int ok = 1, done = 0;
    for (int i = 0; i < n; i++)
        for (unsigned k = 0; k < ss[i].nstop; k++)
            if (conf_continue_past_bp(ss[i].s, ss[i].stops[k]) != ZE_RESULT_SUCCESS)
                ok = 0;
    tap_ok(ok, "%s: continue the stopped threads", what);
    /* Threads that stop after the counting ended (a failing implementation
     * may stop more than it should) are continued too, so that a failed
     * check costs one check and not the rest of the run. */
    while (!done && conf_now_ms() < end) {
        done = conf_app_expect(app, "done ZE_RESULT_SUCCESS", 100, NULL, 0);
        for (int i = 0; i < n; i++) {
            zet_debug_event_t ev;
            while (conf_read_event(ss[i].s, 0, &ev) == ZE_RESULT_SUCCESS) {
                if (ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED) {
                    tap_diag("late THREAD_STOPPED in session %d", i);
                    conf_continue_past_bp(ss[i].s, ev.info.thread.thread);
                }
                if (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
                    zetDebugAcknowledgeEvent(ss[i].s, &ev);
            }
        }
    }
    tap_ok(done && conf_app_finish(app, CONF_DEADLINE_MS), "%s: the launch completes", what);
    for (int i = 0; i < n; i++)
        zetDebugDetach(ss[i].s);
}

static int max_slice_below(const struct sess *s, uint32_t limit)
{
    for (unsigned k = 0; k < s->nstop; k++)
        if (s->stops[k].slice >= limit)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8], subs[8];
    uint32_t nd = 8, ns = 8;
    ze_device_properties_t sp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zet_device_debug_properties_t dp = {.stype = ZET_STRUCTURE_TYPE_DEVICE_DEBUG_PROPERTIES};
    static struct sess ss[2];
    struct conf_app app;
    char gbuf[16];
    const char *const args[] = {"vadd", "--groups", gbuf, NULL};

    conf_init(argc, argv, 150);
    /* Tile 0's threads must still be running when the launch's last groups
     * are dispatched, so that some of them land on tile 1. */
    conf_set_pace(20);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    if (zeDeviceGetSubDevices(devs[0], &ns, subs) != ZE_RESULT_SUCCESS || ns < 2) {
        tap_plan(1);
        tap_skip("the device has no sub-devices");
        return tap_done();
    }
    if (zetDeviceGetDebugProperties(subs[0], &dp) != ZE_RESULT_SUCCESS ||
        !(dp.flags & ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH)) {
        tap_plan(1);
        tap_skip("tile attach is not supported");
        return tap_done();
    }
    /* Three sessions: 2 + 3 + 2 (finish) checks, then 1 + 2 + 2, then 1 + 2 + 2. */
    tap_plan(17);
    zeDeviceGetProperties(subs[0], &sp);
    uint32_t per_tile =
        sp.numSlices * sp.numSubslicesPerSlice * sp.numEUsPerSubslice * sp.numThreadsPerEU;
    /* One thread per work-group, more groups than one tile holds. */
    unsigned groups = per_tile + 4;
    if (groups > MAXT / 2)
        tap_bail("configure fewer threads per tile for this test");
    snprintf(gbuf, sizeof(gbuf), "%u", groups);
    tap_diag("%u slices per tile, %u threads per tile, %u groups", sp.numSlices, per_tile, groups);

    /* 1. Sessions on both tiles; the breakpoint goes in through tile 0. */
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    memset(ss, 0, sizeof(ss));
    if (!attach(subs[0], app.pid, &ss[0].s, "tile 0") ||
        !attach(subs[1], app.pid, &ss[1].s, "tile 1")) {
        conf_app_kill(&app);
        return tap_done();
    }
    ss[0].plant = 1;
    conf_app_send(&app, "go");
    pump(ss, 2, per_tile, 3000);
    tap_ok(ss[0].nstop > 0 && ss[0].nstop <= per_tile,
           "breakpoint via tile 0: %u threads stop in the tile-0 session (at most %u)", ss[0].nstop,
           per_tile);
    tap_ok(max_slice_below(&ss[0], sp.numSlices),
           "tile-0 session: every thread's slice is numbered within the tile (< %u)", sp.numSlices);
    tap_ok(ss[1].nstop == 0, "no thread stops in the tile-1 session (%u)", ss[1].nstop);
    finish(&app, ss, 2, "tile sessions");

    /* 2. Only tile 1, breakpoint through it. */
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    memset(ss, 0, sizeof(ss));
    if (!attach(subs[1], app.pid, &ss[0].s, "tile 1 alone")) {
        conf_app_kill(&app);
        return tap_done();
    }
    ss[0].plant = 1;
    conf_app_send(&app, "go");
    pump(ss, 1, per_tile, 3000);
    tap_ok(ss[0].nstop > 0 && ss[0].nstop < groups,
           "tile-1 session: %u of the launch's %u threads stop (those on tile 1)", ss[0].nstop,
           groups);
    tap_ok(max_slice_below(&ss[0], sp.numSlices),
           "tile-1 session: slices numbered within the tile (< %u)", sp.numSlices);
    finish(&app, ss, 1, "tile-1 session");

    /* 3. The root device sees every thread, slices numbered across tiles. */
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    memset(ss, 0, sizeof(ss));
    if (!attach(devs[0], app.pid, &ss[0].s, "root")) {
        conf_app_kill(&app);
        return tap_done();
    }
    ss[0].plant = 1;
    conf_app_send(&app, "go");
    pump(ss, 1, groups, CONF_DEADLINE_MS);
    tap_ok(ss[0].nstop == groups, "root session: all %u threads stop (%u)", groups, ss[0].nstop);
    tap_ok(!max_slice_below(&ss[0], sp.numSlices),
           "root session: threads on tile 1 have slice >= %u", sp.numSlices);
    finish(&app, ss, 1, "root session");
    return tap_done();
}
