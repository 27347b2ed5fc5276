/* SPDX-License-Identifier: MIT */
/* The events of a run with one module, in order, with their flags and
 * payloads; MODULE_LOAD's NEED_ACK really holding zeModuleCreate; modules
 * loaded before the attach; the module ELF and ISA readable through the
 * session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static ze_result_t attach(ze_device_handle_t dev, pid_t pid, zet_debug_session_handle_t *s)
{
    zet_debug_config_t cfg = {.pid = (uint32_t)pid};
    return zetDebugAttach(dev, &cfg, s);
}

/* Instruction lengths of the fixture as listed in its .insns file, so the
 * ISA read at `load` can be compared with what the module holds. */
static int fixture_lengths(const char *plat, unsigned *len, int max)
{
    char path[4096], line[256];
    int n = 0;
    snprintf(path, sizeof(path), "%s/vadd-%s.insns", ZESTUB_KERNEL_DIR, plat);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (n < max && fgets(line, sizeof(line), f)) {
        unsigned off, l;
        if (line[0] != '#' && sscanf(line, "%x %u", &off, &l) == 2)
            len[n++] = l;
    }
    fclose(f);
    return n;
}

static void check_module_memory(zet_debug_session_handle_t s, const zet_debug_event_t *ev,
                                const char *plat)
{
    const zet_debug_event_info_module_t *m = &ev->info.module;
    uint8_t head[16], insn[16];
    size_t size = (size_t)(m->moduleEnd - m->moduleBegin);
    ze_result_t r;

    r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, m->moduleBegin, 4,
                      head);
    tap_ok(r == ZE_RESULT_SUCCESS && memcmp(head,
                                            "\x7f"
                                            "ELF",
                                            4) == 0,
           "module ELF readable at moduleBegin and starts with \\x7fELF (%s)", conf_result(r));
    uint8_t *all = malloc(size);
    r = all ? conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT,
                            m->moduleBegin, size, all)
            : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    tap_ok(r == ZE_RESULT_SUCCESS, "the whole module ELF (%zu bytes) reads in one go: %s", size,
           conf_result(r));
    free(all);
    r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, m->moduleEnd - 8,
                      16, head);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "a read crossing moduleEnd: INVALID_ARGUMENT (got %s)", conf_result(r));

    r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, m->load,
                      sizeof(insn), insn);
    tap_ok(r == ZE_RESULT_SUCCESS, "module ISA readable at load: %s", conf_result(r));
    unsigned want[4];
    int nwant = plat ? fixture_lengths(plat, want, 4) : 0;
    if (nwant == 4) {
        int same = 1;
        uint64_t off = 0;
        for (unsigned i = 0; i < 4; i++) {
            unsigned l = 0;
            if (conf_nth_insn(s, m->load, i, &off, &l) || l != want[i])
                same = 0;
        }
        tap_ok(same, "the ISA at load has the fixture's instruction lengths");
    } else {
        tap_skip("no .insns listing for this device");
    }
}

/* The events after the debuggee's run ends, in order, up to DETACHED. */
static int read_tail(zet_debug_session_handle_t s, uint32_t *types, int max,
                     zet_debug_event_t *unload)
{
    int n = 0;
    zet_debug_event_t ev;
    uint64_t end = conf_now_ms() + CONF_DEADLINE_MS;
    while (n < max && conf_now_ms() < end) {
        ze_result_t r = conf_read_event(s, (int)(end - conf_now_ms()), &ev);
        if (r == ZE_RESULT_NOT_READY)
            continue;
        if (r != ZE_RESULT_SUCCESS)
            break;
        tap_diag("event %s flags %#x", conf_event_name(ev.type), ev.flags);
        types[n++] = ev.type;
        if (ev.type == ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD && unload)
            *unload = ev;
        if (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
            zetDebugAcknowledgeEvent(s, &ev);
        if (ev.type == ZET_DEBUG_EVENT_TYPE_DETACHED) {
            if (ev.info.detached.reason != ZET_DEBUG_DETACH_REASON_HOST_EXIT)
                tap_diag("DETACHED reason %u", ev.info.detached.reason);
            break;
        }
    }
    return n;
}

static void check_after_detached(zet_debug_session_handle_t s)
{
    zet_debug_event_t ev;
    uint64_t t0 = conf_now_ms();
    ze_result_t r = conf_read_event(s, 200, &ev);
    uint64_t took = conf_now_ms() - t0;
    tap_ok(r != ZE_RESULT_SUCCESS && took < 5000,
           "after DETACHED, zetDebugReadEvent fails or times out without hanging (%s, %llu ms)",
           conf_result(r), (unsigned long long)took);
    tap_ok(zetDebugDetach(s) == ZE_RESULT_SUCCESS, "zetDebugDetach after DETACHED succeeds");
}

static void run_one_module(ze_device_handle_t dev, const char *plat)
{
    struct conf_app app;
    const char *const args[] = {"vadd", "--groups", "2", NULL};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev, load, unload = {0};
    uint32_t types[16];
    ze_result_t r;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    r = attach(dev, app.pid, &s);
    if (!tap_ok(r == ZE_RESULT_SUCCESS, "attach: %s", conf_result(r))) {
        conf_app_kill(&app);
        return;
    }
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY,
           "first event after attach to a process with a queue: PROCESS_ENTRY (got %s, %s)",
           conf_result(r), conf_event_name(ev.type));
    r = conf_read_event(s, 200, &ev);
    tap_ok(r == ZE_RESULT_NOT_READY,
           "zetDebugReadEvent times out with NOT_READY while nothing happens (got %s)",
           conf_result(r));

    conf_app_send(&app, "go");
    r = conf_read_event(s, CONF_DEADLINE_MS, &load);
    tap_ok(r == ZE_RESULT_SUCCESS && load.type == ZET_DEBUG_EVENT_TYPE_MODULE_LOAD,
           "zeModuleCreate while attached: MODULE_LOAD (got %s, %s)", conf_result(r),
           conf_event_name(load.type));
    if (r != ZE_RESULT_SUCCESS || load.type != ZET_DEBUG_EVENT_TYPE_MODULE_LOAD) {
        zetDebugDetach(s);
        conf_app_kill(&app);
        return;
    }
    tap_ok(load.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK, "MODULE_LOAD carries NEED_ACK");
    tap_ok(load.info.module.format == ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF,
           "MODULE_LOAD format ELF_DWARF");
    tap_ok(load.info.module.moduleBegin < load.info.module.moduleEnd && load.info.module.load,
           "MODULE_LOAD moduleBegin 0x%llx < moduleEnd 0x%llx, load 0x%llx",
           (unsigned long long)load.info.module.moduleBegin,
           (unsigned long long)load.info.module.moduleEnd,
           (unsigned long long)load.info.module.load);
    /* NEED_ACK: the application must still be inside zeModuleCreate. */
    tap_ok(!conf_app_expect(&app, "module-created", 500, NULL, 0),
           "zeModuleCreate has not returned 500 ms into an unacknowledged MODULE_LOAD");
    check_module_memory(s, &load, plat);
    tap_ok(!conf_app_expect(&app, "module-created", 0, NULL, 0),
           "zeModuleCreate still blocked before the acknowledgement");
    tap_ok(zetDebugAcknowledgeEvent(s, &load) == ZE_RESULT_SUCCESS, "acknowledge MODULE_LOAD");
    tap_ok(conf_app_expect(&app, "module-created", CONF_DEADLINE_MS, NULL, 0),
           "zeModuleCreate returns after the acknowledgement");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0),
           "the launch completes");

    int n = read_tail(s, types, 16, &unload);
    tap_ok(n == 3 && types[0] == ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD &&
               types[1] == ZET_DEBUG_EVENT_TYPE_PROCESS_EXIT &&
               types[2] == ZET_DEBUG_EVENT_TYPE_DETACHED,
           "then exactly MODULE_UNLOAD, PROCESS_EXIT, DETACHED (%d events)", n);
    tap_ok(unload.type == ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD &&
               !(unload.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK) &&
               unload.info.module.moduleBegin == load.info.module.moduleBegin &&
               unload.info.module.moduleEnd == load.info.module.moduleEnd &&
               unload.info.module.load == load.info.module.load,
           "MODULE_UNLOAD: same begin/end/load as the load, no NEED_ACK");
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exits 0");
    check_after_detached(s);
}

static void run_module_first(ze_device_handle_t dev)
{
    struct conf_app app;
    const char *const args[] = {"vadd", "--groups", "2", "--module-first", NULL};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev, load;
    uint32_t types[16];
    uint8_t head[4];
    ze_result_t r;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    r = attach(dev, app.pid, &s);
    if (!tap_ok(r == ZE_RESULT_SUCCESS, "attach after the module exists: %s", conf_result(r))) {
        conf_app_kill(&app);
        return;
    }
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY,
           "module loaded before attach: PROCESS_ENTRY first (got %s)", conf_event_name(ev.type));
    r = conf_read_event(s, CONF_DEADLINE_MS, &load);
    tap_ok(r == ZE_RESULT_SUCCESS && load.type == ZET_DEBUG_EVENT_TYPE_MODULE_LOAD &&
               !(load.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK),
           "then MODULE_LOAD without NEED_ACK (got %s, flags %#x)", conf_event_name(load.type),
           load.flags);
    if (load.type == ZET_DEBUG_EVENT_TYPE_MODULE_LOAD) {
        r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT,
                          load.info.module.moduleBegin, 4, head);
        tap_ok(r == ZE_RESULT_SUCCESS &&
                   memcmp(head,
                          "\x7f"
                          "ELF",
                          4) == 0 &&
                   load.info.module.moduleBegin < load.info.module.moduleEnd,
               "its ELF is readable too (%s)", conf_result(r));
    }
    conf_app_send(&app, "go");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0),
           "the launch completes");
    int n = read_tail(s, types, 16, NULL);
    tap_ok(n == 3 && types[0] == ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD &&
               types[1] == ZET_DEBUG_EVENT_TYPE_PROCESS_EXIT &&
               types[2] == ZET_DEBUG_EVENT_TYPE_DETACHED,
           "then MODULE_UNLOAD, PROCESS_EXIT, DETACHED (%d events)", n);
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exits 0");
    check_after_detached(s);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;

    conf_init(argc, argv, 120);
    tap_plan(31);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    run_one_module(devs[0], conf_platform(devs[0]));
    run_module_first(devs[0]);
    return tap_done();
}
