/* SPDX-License-Identifier: MIT */
/* Who may attach, and when: debug properties, wrong pid, too early, not
 * enabled, a second debugger, root/sub-device exclusion, and the register
 * sets a device reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static const char *const vadd_args[] = {"vadd", NULL};

static ze_result_t attach(ze_device_handle_t dev, pid_t pid, zet_debug_session_handle_t *s)
{
    zet_debug_config_t cfg = {.pid = (uint32_t)pid};
    *s = NULL;
    return zetDebugAttach(dev, &cfg, s);
}

static int has_attach_flag(ze_device_handle_t dev)
{
    zet_device_debug_properties_t p = {.stype = ZET_STRUCTURE_TYPE_DEVICE_DEBUG_PROPERTIES};
    if (zetDeviceGetDebugProperties(dev, &p) != ZE_RESULT_SUCCESS)
        return -1;
    return (p.flags & ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH) ? 1 : 0;
}

/* A pid that existed a moment ago and has been reaped: nothing has it now. */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

static int helper_attach(pid_t pid, const char *expect)
{
    struct conf_app h;
    char pidbuf[32], line[256] = "";
    const char *args[] = {"attach", pidbuf, NULL};
    int ok;
    snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
    if (conf_helper_start(&h, args))
        return 0;
    ok = conf_app_expect(&h, "attach ", CONF_DEADLINE_MS, line, sizeof(line));
    conf_app_finish(&h, CONF_DEADLINE_MS);
    if (!ok)
        return 0;
    tap_diag("helper: %s", line);
    return strcmp(line + 7, expect) == 0;
}

struct regset {
    uint32_t type, count, bits, writeable;
};

/* level-zero-facts.md section 8 (IGC's SIP headers, GRF forced to 128 in
 * the device-level query). A real driver ships its own SIP: see README. */
static const struct regset gen12lp_sets[] = {{CONF_REG_GRF, 128, 256, 1},
                                             {CONF_REG_ADDR, 1, 256, 1},
                                             {CONF_REG_FLAG, 2, 32, 1},
                                             {CONF_REG_CE, 1, 32, 0},
                                             {CONF_REG_SR, 1, 128, 1},
                                             {CONF_REG_CR, 1, 128, 1},
                                             {CONF_REG_TDR, 1, 128, 0},
                                             {CONF_REG_ACC, 10, 256, 1},
                                             {CONF_REG_SP, 1, 128, 1},
                                             {CONF_REG_SBA, 9, 64, 0},
                                             {0, 0, 0, 0}};
static const struct regset xehpg_sets[] = {{CONF_REG_GRF, 128, 256, 1},
                                           {CONF_REG_ADDR, 1, 256, 1},
                                           {CONF_REG_FLAG, 2, 32, 1},
                                           {CONF_REG_CE, 1, 32, 0},
                                           {CONF_REG_SR, 1, 128, 1},
                                           {CONF_REG_CR, 1, 128, 1},
                                           {CONF_REG_ACC, 4, 256, 1},
                                           {CONF_REG_MME, 8, 256, 1},
                                           {CONF_REG_SBA, 9, 64, 0},
                                           {CONF_REG_DBG, 1, 64, 1},
                                           {0, 0, 0, 0}};
static const struct regset xehpc_sets[] = {{CONF_REG_GRF, 128, 512, 1},
                                           {CONF_REG_ADDR, 1, 256, 1},
                                           {CONF_REG_FLAG, 4, 32, 1},
                                           {CONF_REG_CE, 1, 32, 0},
                                           {CONF_REG_SR, 1, 128, 1},
                                           {CONF_REG_CR, 1, 128, 1},
                                           {CONF_REG_TDR, 1, 128, 0},
                                           {CONF_REG_ACC, 4, 512, 1},
                                           {CONF_REG_MME, 8, 512, 1},
                                           {CONF_REG_SP, 1, 128, 1},
                                           {CONF_REG_SBA, 9, 64, 0},
                                           {CONF_REG_DBG, 1, 64, 1},
                                           {0, 0, 0, 0}};

static void check_regsets(ze_device_handle_t dev)
{
    const char *plat = conf_platform(dev);
    const struct regset *want = NULL;
    zet_debug_regset_properties_t props[32];
    uint32_t n = 0, nwant = 0;
    int same = 1;

    ze_result_t r = zetDebugGetRegisterSetProperties(dev, &n, NULL);
    if (!tap_ok(r == ZE_RESULT_SUCCESS && n > 0 && n <= 32, "regsets: count query returns %u sets",
                n))
        return;
    for (uint32_t i = 0; i < n; i++)
        props[i] =
            (zet_debug_regset_properties_t){.stype = ZET_STRUCTURE_TYPE_DEBUG_REGSET_PROPERTIES};
    tap_ok(zetDebugGetRegisterSetProperties(dev, &n, props) == ZE_RESULT_SUCCESS,
           "regsets: properties query");
    tap_ok(props[0].type == CONF_REG_GRF && props[0].count == 128,
           "regsets: GRF first, count 128 in the device-level query (got type %u count %u)",
           props[0].type, props[0].count);
    if (plat && strcmp(plat, "gen12lp") == 0)
        want = gen12lp_sets;
    else if (plat && strcmp(plat, "xehpg") == 0)
        want = xehpg_sets;
    else if (plat && strcmp(plat, "xehpc") == 0)
        want = xehpc_sets;
    if (!want) {
        tap_skip("regsets: no table for this device");
        return;
    }
    while (want[nwant].type)
        nwant++;
    same = n == nwant;
    for (uint32_t i = 0; i < n && i < nwant; i++) {
        uint32_t rw = ZET_DEBUG_REGSET_FLAG_READABLE |
                      (want[i].writeable ? ZET_DEBUG_REGSET_FLAG_WRITEABLE : 0);
        if (props[i].type != want[i].type || props[i].count != want[i].count ||
            props[i].bitSize != want[i].bits || props[i].byteSize != want[i].bits / 8 ||
            props[i].generalFlags != rw || props[i].version != 0 || props[i].deviceFlags != 0) {
            tap_diag("regset %u: type %u count %u bits %u bytes %u flags %#x; want type %u "
                     "count %u bits %u flags %#x",
                     i, props[i].type, props[i].count, props[i].bitSize, props[i].byteSize,
                     props[i].generalFlags, want[i].type, want[i].count, want[i].bits, rw);
            same = 0;
        }
    }
    tap_ok(same, "regsets: %u sets, exactly the %s table (types, counts, sizes, flags)", n, plat);
}

/* How many checks check_subdevices makes on this device: a skip without
 * sub-devices; else the flag check, the configured flag's, and one attach
 * without tile attach or eight with it. */
static int subdevice_checks(ze_device_handle_t root)
{
    ze_device_handle_t subs[8];
    uint32_t ns = 8;
    const char *want_env = getenv("CONF_TILE_ATTACH");
    int flag;

    if (zeDeviceGetSubDevices(root, &ns, subs) != ZE_RESULT_SUCCESS || ns < 2)
        return 1;
    flag = want_env ? atoi(want_env) : has_attach_flag(subs[0]);
    return 1 + (want_env != NULL) + (flag != 1 ? 1 : 8);
}

static void check_subdevices(ze_device_handle_t root, pid_t pid)
{
    ze_device_handle_t subs[8];
    uint32_t ns = 8;
    zet_debug_session_handle_t s_root, s0, s1;
    const char *want_env = getenv("CONF_TILE_ATTACH");
    int flag;

    if (zeDeviceGetSubDevices(root, &ns, subs) != ZE_RESULT_SUCCESS || ns < 2) {
        tap_skip("sub-device attach rules: the device has no sub-devices");
        return;
    }
    flag = has_attach_flag(subs[0]);
    tap_ok(flag >= 0 && flag == has_attach_flag(subs[1]),
           "sub-devices: both report the same ATTACH flag (%d)", flag);
    if (want_env)
        tap_ok(flag == atoi(want_env), "sub-devices: ATTACH flag is %s as configured", want_env);
    if (flag != 1) {
        ze_result_t r = attach(subs[0], pid, &s0);
        tap_ok(r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
               "sub-device attach without tile attach: UNSUPPORTED_FEATURE (got %s)",
               conf_result(r));
        if (r == ZE_RESULT_SUCCESS)
            zetDebugDetach(s0);
        return;
    }
    ze_result_t r = attach(root, pid, &s_root);
    tap_ok(r == ZE_RESULT_SUCCESS, "root attach: %s", conf_result(r));
    if (r != ZE_RESULT_SUCCESS)
        return;
    r = attach(subs[0], pid, &s0);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "sub-device attach while the root has a session: NOT_AVAILABLE (got %s)",
           conf_result(r));
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s0);
    tap_ok(zetDebugDetach(s_root) == ZE_RESULT_SUCCESS, "root detach");
    r = attach(subs[0], pid, &s0);
    tap_ok(r == ZE_RESULT_SUCCESS, "sub-device 0 attach once the root is detached: %s",
           conf_result(r));
    if (r != ZE_RESULT_SUCCESS)
        return;
    r = attach(root, pid, &s_root);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "root attach while a sub-device has a session: NOT_AVAILABLE (got %s)", conf_result(r));
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s_root);
    r = attach(subs[1], pid, &s1);
    tap_ok(r == ZE_RESULT_SUCCESS, "sub-device 1 attach next to sub-device 0: %s", conf_result(r));
    ze_result_t r2 = attach(subs[0], pid, &s_root);
    tap_ok(r2 == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "second attach to the same sub-device: NOT_AVAILABLE (got %s)", conf_result(r2));
    if (r2 == ZE_RESULT_SUCCESS)
        zetDebugDetach(s_root);
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s1);
    tap_ok(zetDebugDetach(s0) == ZE_RESULT_SUCCESS, "sub-device 0 detach");
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;
    zet_debug_session_handle_t s = NULL, s2 = NULL;
    struct conf_app early, other, plain;
    const char *const early_args[] = {"sleep-before-init", NULL};
    char line[256];
    ze_result_t r;

    conf_init(argc, argv, 120);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    ze_device_handle_t dev = devs[0];

    /* 10 checks here, 4 in check_regsets, 3 at the end. */
    tap_plan(10 + subdevice_checks(dev) + 4 + 3);
    tap_ok(has_attach_flag(dev) == 1, "root device reports ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH");

    r = attach(dev, dead_pid(), &s);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "attach to a pid that does not exist: INVALID_ARGUMENT (got %s)", conf_result(r));

    /* Too early: the process exists but has not called zeInit yet. */
    if (conf_app_start(&early, 1, early_args) ||
        !conf_app_expect(&early, "waiting ", CONF_DEADLINE_MS, line, sizeof(line)))
        tap_bail("debuggee did not start");
    r = attach(dev, early.pid, &s);
    tap_ok(r == ZE_RESULT_NOT_READY, "attach before the process called zeInit: NOT_READY (got %s)",
           conf_result(r));
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s);
    conf_app_send(&early, "go");
    if (!conf_app_expect(&early, "ready ", CONF_DEADLINE_MS, line, sizeof(line)))
        tap_bail("debuggee did not get ready");
    r = attach(dev, early.pid, &s);
    tap_ok(r == ZE_RESULT_SUCCESS, "attach once the process initialized Level Zero: %s",
           conf_result(r));
    if (r != ZE_RESULT_SUCCESS)
        tap_bail("cannot attach at all");

    r = attach(dev, early.pid, &s2);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "second attach to the same device from the same process: NOT_AVAILABLE (got %s)",
           conf_result(r));
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s2);
    tap_ok(helper_attach(early.pid, "ERROR_NOT_AVAILABLE"),
           "attach from a second debugger process: NOT_AVAILABLE");

    /* One debugger process, one device, two debuggees. */
    if (conf_app_start_ready(&other, 1, vadd_args))
        tap_bail("second debuggee did not start");
    r = attach(dev, other.pid, &s2);
    tap_ok(r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
           "attach to another pid on a device this process already debugs: UNSUPPORTED_FEATURE "
           "(got %s)",
           conf_result(r));
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s2);

    tap_ok(zetDebugDetach(s) == ZE_RESULT_SUCCESS, "detach");
    tap_ok(helper_attach(early.pid, "SUCCESS"), "after detach another debugger process can attach");
    /* The debugger after ours must be gone as well: its attach+detach ran. */

    if (conf_app_start_ready(&plain, 0, vadd_args))
        tap_bail("third debuggee did not start");
    r = attach(dev, plain.pid, &s2);
    tap_ok(r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
           "attach to a process without ZET_ENABLE_PROGRAM_DEBUGGING=1: UNSUPPORTED_FEATURE "
           "(got %s)",
           conf_result(r));
    if (r == ZE_RESULT_SUCCESS)
        zetDebugDetach(s2);

    check_subdevices(dev, early.pid);
    check_regsets(dev);

    /* Nobody is attached any more: every debuggee runs to its end. */
    conf_app_send(&early, "go");
    conf_app_send(&other, "go");
    conf_app_send(&plain, "go");
    tap_ok(conf_app_expect(&early, "done", CONF_DEADLINE_MS, NULL, 0) &&
               conf_app_finish(&early, CONF_DEADLINE_MS),
           "debuggee runs to completion after its debuggers detached");
    tap_ok(conf_app_finish(&other, CONF_DEADLINE_MS), "second debuggee exits 0");
    tap_ok(conf_app_finish(&plain, CONF_DEADLINE_MS), "debuggee without debugging exits 0");
    return tap_done();
}
