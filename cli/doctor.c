/* SPDX-License-Identifier: MIT */
/* zestub doctor [--json] [PID]: checks a user's setup, one line per check,
 * "ok" or what is wrong and the exact fix. Without PID: the driver and the
 * devices; with PID: also the process (exists, uses Level Zero, was
 * started with program debugging, may be debugged by us, runs on the same
 * gtsim) and a trial attach, detached at once, which is the one check that
 * cannot be wrong. Exit: 0 when every check passed (attach would work), 1
 * when one failed, 2 usage. */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/json.h"
#include "zetdebug/zd.h"

#define MAX_CHECKS 16

enum verdict { V_OK, V_FAIL, V_NOTE };

struct check {
    const char *name;
    enum verdict v;
    char detail[512];
    char fix[512];
};

struct doctor {
    struct check c[MAX_CHECKS];
    int n;
};

__attribute__((format(printf, 4, 5))) static struct check *add(struct doctor *d, const char *name,
                                                               enum verdict v, const char *fmt, ...)
{
    static struct check spare; /* never printed: only when the table is full */
    struct check *c = d->n < MAX_CHECKS ? &d->c[d->n++] : &spare;
    va_list ap;
    c->name = name;
    c->v = v;
    c->fix[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
    va_end(ap);
    return c;
}

__attribute__((format(printf, 2, 3))) static void set_fix(struct check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->fix, sizeof(c->fix), fmt, ap);
    va_end(ap);
}

/* The whole of a small /proc or /sys file; its length, or -errno. */
static long slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n;
    if (!f)
        return -errno;
    n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

static bool on_gtsim(void)
{
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    return alt && strstr(alt, "gtsim");
}

/* Real hardware: the kernel switch that enables GPU debugging, per card
 * (i915 with Intel's patches: prelim_enable_eu_debug; xe: enable_eudebug). */
static void kernel_switches(struct doctor *d, bool *any_off)
{
    static const char *const pats[] = {"/sys/class/drm/card*/device/enable_eudebug",
                                       "/sys/class/drm/card*/device/prelim_enable_eu_debug"};
    for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
        glob_t g;
        if (glob(pats[p], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char v[16] = "";
            bool on = slurp(g.gl_pathv[i], v, sizeof(v)) > 0 && v[0] == '1';
            struct check *c = add(d, "kernel-debug-switch", on ? V_OK : V_FAIL, "%s reads %s",
                                  g.gl_pathv[i], on ? "1" : "0 (GPU debugging is off)");
            if (!on) {
                set_fix(c, "echo 1 | sudo tee %s", g.gl_pathv[i]);
                *any_off = true;
            }
        }
        globfree(&g);
    }
}

/* The driver and its devices; false when nothing can be attached. */
static bool check_driver(struct doctor *d, struct zd **zd)
{
    struct zd_error err;
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    unsigned attachable = 0;
    const struct zd_device *first = NULL;
    bool off = false;

    if (zd_open(zd, &err) != 0) {
        struct check *c =
            add(d, "driver", V_FAIL, "no Level Zero driver could be loaded: %s", err.msg);
        if (!alt)
            set_fix(c, "install Intel's GPU compute runtime (Debian: intel-level-zero-gpu), or "
                       "run on the simulator: export "
                       "ZE_ENABLE_ALT_DRIVERS=/abs/path/libze_gtsim.so");
        else if (on_gtsim() && getenv("GTSIM_CONFIG") && strstr(err.msg, "failed to initialise"))
            set_fix(c, "correct GTSIM_CONFIG (gtsim printed what is wrong with it above; "
                       "gtsim/README.md lists its keys), or unset it for the default device");
        else
            set_fix(c, "point ZE_ENABLE_ALT_DRIVERS at the driver by absolute path "
                       "(e.g. $PWD/_build/.libs/libze_gtsim.so for the simulator)");
        return false;
    }
    if (alt)
        add(d, "driver", V_OK, "ZE_ENABLE_ALT_DRIVERS=%s: %zu device(s)", alt,
            zd_device_count(*zd));
    else
        add(d, "driver", V_OK, "the installed Level Zero driver: %zu device(s)",
            zd_device_count(*zd));
    for (size_t i = 0; i < zd_device_count(*zd); i++) {
        const struct zd_device *dev = zd_device_at(*zd, i);
        first = first ? first : dev;
        attachable += dev->can_attach;
    }
    if (!on_gtsim())
        kernel_switches(d, &off);
    if (!first) {
        set_fix(add(d, "device", V_FAIL, "the driver has no GPU device"),
                "check that the GPU is visible (ls /dev/dri) and that you are in the render "
                "group (sudo usermod -aG render $USER, then log in again)");
        return false;
    }
    if (attachable) {
        add(d, "device", V_OK, "%u device(s) support debugging, e.g. %s [%s]", attachable,
            first->name, first->pci_slot);
        return true;
    }
    set_fix(add(d, "device", V_FAIL, "no device supports debugging: %s", first->why_not),
            off ? "turn the kernel switch on (above)"
                : "enable GPU debugging in the kernel: xe's enable_eudebug or i915's "
                  "prelim_enable_eu_debug sysfs attribute must read 1 (doc/user-guide.md)");
    return false;
}

/* /proc/PID: exists, uses Level Zero (zetdebug's probe, which the attach
 * sentences use too). */
static bool check_process(struct doctor *d, unsigned pid)
{
    struct zd_proc p;
    zd_proc_probe(pid, &p);
    if (!p.exists) {
        set_fix(add(d, "process", V_FAIL, "no process %u", pid),
                "check the PID (pgrep -a NAME), and that the application is still running");
        return false;
    }
    if (p.maps_errno) {
        set_fix(
            add(d, "process", V_FAIL, "cannot read /proc/%u/maps: %s", pid, strerror(p.maps_errno)),
            "run zestub as the user that runs the application, or as root");
        return false;
    }
    add(d, "process", V_OK, "process %u exists and we may read it", pid);
    if (!p.level_zero) {
        set_fix(add(d, "level-zero", V_FAIL,
                    "process %u has not loaded Level Zero (no libze_loader in /proc/%u/maps)", pid,
                    pid),
                "zestub debugs programs that use Level Zero; if this one does, attach once it "
                "has started its GPU work (after zeInit)");
        return false;
    }
    add(d, "level-zero", V_OK, "process %u has loaded Level Zero", pid);
    return true;
}

/* The ptrace scope and owner: informative on gtsim, which needs neither. */
static bool check_permission(struct doctor *d, unsigned pid)
{
    char path[64], status[4096], scope[16] = "";
    const char *uid_line;
    unsigned uid = 0;

    snprintf(path, sizeof(path), "/proc/%u/status", pid);
    if (slurp(path, status, sizeof(status)) > 0 && (uid_line = strstr(status, "\nUid:")) &&
        sscanf(uid_line + 5, "%u", &uid) == 1 && uid != (unsigned)getuid() && getuid() != 0) {
        set_fix(add(d, "permission", V_FAIL, "process %u runs as uid %u, zestub as uid %u", pid,
                    uid, (unsigned)getuid()),
                "run zestub as uid %u or as root", uid);
        return false;
    }
    if (slurp("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope)) > 0 && scope[0] != '0' &&
        getuid() != 0 && !on_gtsim()) {
        set_fix(add(d, "permission", V_FAIL,
                    "kernel.yama.ptrace_scope is %c: the driver may "
                    "refuse to debug a process that is not our child",
                    scope[0]),
                "sudo sysctl kernel.yama.ptrace_scope=0 (or run zestub as root)");
        return false;
    }
    add(d, "permission", V_OK, "same user%s",
        on_gtsim() ? " (gtsim needs no ptrace permission)" : ", ptrace allowed");
    return true;
}

/* The application's environment: program debugging, and the same gtsim. */
static bool check_environment(struct doctor *d, unsigned pid)
{
    char v[16], app[4096];
    const char *mine = getenv("GTSIM_CONFIG");
    int has = zd_proc_getenv(pid, "ZET_ENABLE_PROGRAM_DEBUGGING", v, sizeof(v));
    bool ok = true;

    if (has < 0) {
        add(d, "environment", V_NOTE, "cannot read /proc/%u/environ (%s): not checked", pid,
            strerror(-has));
        return true;
    }
    if (has == 0 || strcmp(v, "1") != 0) {
        set_fix(add(d, "program-debugging", V_FAIL,
                    "process %u was started without ZET_ENABLE_PROGRAM_DEBUGGING=1%s", pid,
                    has ? " (it has another value)" : ""),
                "restart the application with ZET_ENABLE_PROGRAM_DEBUGGING=1 in its "
                "environment: the driver reads it when the application starts");
        ok = false;
    } else {
        add(d, "program-debugging", V_OK, "ZET_ENABLE_PROGRAM_DEBUGGING=1 in its environment");
    }
    if (on_gtsim()) {
        bool set = zd_proc_getenv(pid, "GTSIM_CONFIG", app, sizeof(app)) == 1;
        bool same = (!set && !mine) || (set && mine && strcmp(app, mine) == 0);
        if (!same) {
            set_fix(add(d, "gtsim-config", V_FAIL,
                        "the application runs with GTSIM_CONFIG=%s, "
                        "zestub with GTSIM_CONFIG=%s",
                        set ? app : "(unset)", mine ? mine : "(unset)"),
                    set ? "export GTSIM_CONFIG='%s' before starting zestub"
                        : "unset GTSIM_CONFIG before starting zestub%s",
                    set ? app : "");
            ok = false;
        } else {
            add(d, "gtsim-config", V_OK, "the application and zestub share GTSIM_CONFIG");
        }
    }
    return ok;
}

/* The trial: attach every attachable root device, detach at once. */
static void check_attach(struct doctor *d, struct zd *zd, unsigned pid)
{
    for (size_t i = 0; i < zd_device_count(zd); i++) {
        const struct zd_device *dev = zd_device_at(zd, i);
        struct zd_session *s;
        struct zd_error err;
        if (!dev->can_attach || dev->parent >= 0)
            continue;
        if (zd_attach(zd, i, pid, &s, &err) == 0) {
            zd_detach(s, &err);
            add(d, "attach", V_OK, "device %u [%s] attaches (and was detached at once)", dev->index,
                dev->pci_slot);
            continue;
        }
        struct check *c =
            add(d, "attach", V_FAIL, "device %u [%s]: %s", dev->index, dev->pci_slot, err.msg);
        if (err.code == ZD_E_BUSY)
            set_fix(c, "another debugger (a zestub, gdbserver-ze or Intel's GDB) is attached: "
                       "detach or end it first");
        else
            set_fix(c, "see the reason above; 'zestub --log-level debug' shows the driver's calls");
    }
}

static void print_human(const struct doctor *d)
{
    static const char *const tag[] = {"ok  ", "FAIL", "note"};
    for (int i = 0; i < d->n; i++) {
        printf("%s  %s: %s\n", tag[d->c[i].v], d->c[i].name, d->c[i].detail);
        if (d->c[i].fix[0])
            printf("      fix: %s\n", d->c[i].fix);
    }
}

int cli_doctor_explain(FILE *f, unsigned pid)
{
    struct doctor *d = calloc(1, sizeof(*d));
    int failed = 0;
    if (!d)
        return 0;
    if (check_process(d, pid)) {
        check_permission(d, pid);
        check_environment(d, pid);
    }
    for (int i = 0; i < d->n; i++) {
        /* The attach sentences already say these (zetdebug reads the same
         * /proc files): what is left is what the driver cannot tell. */
        static const char *const said[] = {"process", "level-zero", "program-debugging"};
        bool repeat = false;
        for (size_t k = 0; k < sizeof(said) / sizeof(said[0]); k++)
            repeat |= !strcmp(d->c[i].name, said[k]);
        if (d->c[i].v != V_FAIL || repeat)
            continue;
        fprintf(f, "zestub doctor: %s\n", d->c[i].detail);
        if (d->c[i].fix[0])
            fprintf(f, "      fix: %s\n", d->c[i].fix);
        failed++;
    }
    free(d);
    return failed;
}

static void print_json(const struct doctor *d, bool ok)
{
    static const char *const word[] = {"ok", "fail", "note"};
    printf("{\"ok\":%s,\"checks\":[", ok ? "true" : "false");
    for (int i = 0; i < d->n; i++) {
        printf("%s{\"check\":\"%s\",\"result\":\"%s\",\"detail\":", i ? "," : "", d->c[i].name,
               word[d->c[i].v]);
        report_json_str(stdout, d->c[i].detail);
        fputs(",\"fix\":", stdout);
        if (d->c[i].fix[0])
            report_json_str(stdout, d->c[i].fix);
        else
            fputs("null", stdout);
        putchar('}');
    }
    puts("]}");
}

static int usage(FILE *f, int status)
{
    fprintf(f, "usage: zestub doctor [--json] [PID]\n"
               "Checks what zestub needs, one line per check: \"ok\", or what is wrong and the\n"
               "fix. Without PID: the Level Zero driver and the devices; with PID: also the\n"
               "process and a trial attach (detached at once).\n"
               "Exit: 0 every check passed, 1 one failed, 2 usage.\n");
    return status;
}

int cli_doctor(int argc, char **argv)
{
    struct doctor *d = calloc(1, sizeof(*d));
    struct zd *zd = NULL;
    bool json = false, ok;
    long pid = -1;

    for (int i = 1; i < argc; i++) {
        char *end;
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            free(d);
            return usage(stdout, 0);
        } else if (pid < 0 && isdigit((unsigned char)argv[i][0]) &&
                   (pid = strtol(argv[i], &end, 10)) > 0 && *end == '\0') {
            continue;
        } else {
            fprintf(stderr, "zestub doctor: unexpected argument '%s'\n", argv[i]);
            free(d);
            return usage(stderr, 2);
        }
    }
    if (!d)
        return 1;
    ok = check_driver(d, &zd);
    if (pid > 0) {
        bool proc = check_process(d, (unsigned)pid);
        ok &= proc;
        if (proc) {
            ok &= check_permission(d, (unsigned)pid);
            ok &= check_environment(d, (unsigned)pid);
        }
        if (ok)
            check_attach(d, zd, (unsigned)pid);
    }
    for (int i = 0; i < d->n; i++)
        ok &= d->c[i].v != V_FAIL;
    if (json)
        print_json(d, ok);
    else
        print_human(d);
    if (zd)
        zd_close(zd);
    free(d);
    return ok ? 0 : 1;
}
