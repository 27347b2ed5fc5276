/* SPDX-License-Identifier: MIT */
#include "tests/conformance/conf_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/tap.h"

extern char **environ;

const ze_device_thread_t conf_all_threads = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};

/* Every child we started, so the watchdog and exit paths can kill them:
 * a test must never leave a debuggee behind, whatever went wrong. */
#define MAX_CHILDREN 32
static struct conf_app *children[MAX_CHILDREN];
static char self_path[4096];

static void track(struct conf_app *app)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (!children[i] || children[i] == app) {
            children[i] = app;
            return;
        }
}

static void untrack(struct conf_app *app)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == app)
            children[i] = NULL;
}

static void kill_children(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] && !children[i]->exited && children[i]->pid > 0)
            kill(children[i]->pid, SIGKILL);
}

static void on_watchdog(int sig)
{
    static const char msg[] = "Bail out! conformance test watchdog expired\n";
    (void)sig;
    kill_children();
    if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0) {
        /* nothing more we can do from a signal handler */
    }
    _exit(1);
}

static void at_exit_kill(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i])
            conf_app_kill(children[i]);
}

uint64_t conf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int helper_main(int argc, char **argv);

void conf_init(int argc, char **argv, unsigned watchdog_s)
{
    const char *lib = getenv("GTSIM_LIB");
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

    self_path[n > 0 ? n : 0] = '\0';
    /* The loader reads its environment in zeInit, so this must come first;
     * the debuggee inherits the same GTSIM_CONFIG and so sees the same
     * simulated hardware. Without GTSIM_LIB we run on whatever driver the
     * loader finds (a real Intel GPU). */
    if (lib && *lib)
        setenv("ZE_ENABLE_ALT_DRIVERS", lib, 1);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_watchdog);
    alarm(watchdog_s);
    atexit(at_exit_kill);
    if (argc > 1 && strcmp(argv[1], "--helper") == 0)
        exit(helper_main(argc - 2, argv + 2));
}

const char *conf_result(ze_result_t r)
{
    switch (r) {
    case ZE_RESULT_SUCCESS:
        return "SUCCESS";
    case ZE_RESULT_NOT_READY:
        return "NOT_READY";
    case ZE_RESULT_ERROR_DEVICE_LOST:
        return "ERROR_DEVICE_LOST";
    case ZE_RESULT_ERROR_UNINITIALIZED:
        return "ERROR_UNINITIALIZED";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
        return "ERROR_UNSUPPORTED_FEATURE";
    case ZE_RESULT_ERROR_INVALID_ARGUMENT:
        return "ERROR_INVALID_ARGUMENT";
    case ZE_RESULT_ERROR_NOT_AVAILABLE:
        return "ERROR_NOT_AVAILABLE";
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
        return "ERROR_INSUFFICIENT_PERMISSIONS";
    case ZE_RESULT_ERROR_INVALID_NULL_HANDLE:
        return "ERROR_INVALID_NULL_HANDLE";
    case ZE_RESULT_ERROR_INVALID_NULL_POINTER:
        return "ERROR_INVALID_NULL_POINTER";
    case ZE_RESULT_ERROR_INVALID_ENUMERATION:
        return "ERROR_INVALID_ENUMERATION";
    case ZE_RESULT_ERROR_UNKNOWN:
        return "ERROR_UNKNOWN";
    default:
        return "(other)";
    }
}

const char *conf_event_name(uint32_t type)
{
    static const char *names[] = {"INVALID",        "DETACHED",           "PROCESS_ENTRY",
                                  "PROCESS_EXIT",   "MODULE_LOAD",        "MODULE_UNLOAD",
                                  "THREAD_STOPPED", "THREAD_UNAVAILABLE", "PAGE_FAULT"};
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "(unknown)";
}

int conf_open(ze_driver_handle_t *driver, ze_device_handle_t *devices, uint32_t *count)
{
    uint32_t n = 1;
    ze_result_t r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        tap_diag("zeInit: %s (0x%x)", conf_result(r), (unsigned)r);
        return 1;
    }
    if (zeDriverGet(&n, driver) != ZE_RESULT_SUCCESS || n == 0)
        return 1;
    if (zeDeviceGet(*driver, count, devices) != ZE_RESULT_SUCCESS || *count == 0)
        return 1;
    return 0;
}

const char *conf_platform(ze_device_handle_t device)
{
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    uint32_t id;
    if (zeDeviceGetProperties(device, &p) != ZE_RESULT_SUCCESS)
        return NULL;
    /* PCI device-id families, as examples/l0_common.c picks binaries. */
    id = p.deviceId;
    if (id >= 0x0bd0 && id <= 0x0bdb)
        return "xehpc";
    if ((id >= 0x5690 && id <= 0x56ff) || (id >= 0x4f80 && id <= 0x4f88))
        return "xehpg";
    if ((id >= 0x9a40 && id <= 0x9a7f) || (id >= 0x4c80 && id <= 0x4c9f))
        return "gen12lp";
    return NULL;
}

/* ---- child processes ---------------------------------------------------- */

static int spawn(struct conf_app *app, const char *path, char *const argv[], char *const envp[])
{
    int in[2], out[2];
    posix_spawn_file_actions_t fa;
    int rc;

    memset(app, 0, sizeof(*app));
    app->pid = -1;
    app->in_fd = app->out_fd = -1;
    if (pipe2(in, O_CLOEXEC) != 0)
        return 1;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return 1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    rc = posix_spawn(&app->pid, path, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        tap_diag("posix_spawn %s: %s", path, strerror(rc));
        close(in[1]);
        close(out[0]);
        app->pid = -1;
        app->exited = 1;
        return 1;
    }
    app->in_fd = in[1];
    app->out_fd = out[0];
    track(app);
    return 0;
}

/* environ with NAME=value added or replaced (value NULL: removed). */
static char **env_with(const char *name, const char *value)
{
    size_t n = 0, k = 0, nl = strlen(name);
    char **env;
    while (environ[n])
        n++;
    env = calloc(n + 2, sizeof(*env));
    if (!env)
        abort();
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], name, nl) != 0 || environ[i][nl] != '=')
            env[k++] = environ[i];
    if (value) {
        size_t sz = nl + strlen(value) + 2;
        env[k] = malloc(sz);
        if (!env[k])
            abort();
        snprintf(env[k], sz, "%s=%s", name, value);
        k++;
    }
    env[k] = NULL;
    return env;
}

static void env_free(char **env, int added)
{
    if (added) {
        size_t n = 0;
        while (env[n])
            n++;
        free(env[n - 1]);
    }
    free(env);
}

static char *sibling(const char *name)
{
    static char path[4096 + 64];
    const char *slash = strrchr(self_path, '/');
    int dir = slash ? (int)(slash - self_path) : 0;
    /* The debuggee is built next to the test programs. */
    snprintf(path, sizeof(path), "%.*s/%s", dir, self_path, name);
    return path;
}

int conf_app_start(struct conf_app *app, int debug, const char *const *args)
{
    char *argv[32];
    size_t n = 0;
    char **env = env_with("ZET_ENABLE_PROGRAM_DEBUGGING", debug ? "1" : NULL);
    int rc;

    argv[n++] = sibling("debuggee");
    while (args && args[n - 1] && n < 31) {
        argv[n] = (char *)args[n - 1];
        n++;
    }
    argv[n] = NULL;
    rc = spawn(app, argv[0], argv, env);
    env_free(env, debug);
    return rc;
}

int conf_app_start_ready(struct conf_app *app, int debug, const char *const *args)
{
    if (conf_app_start(app, debug, args))
        return 1;
    if (!conf_app_expect(app, "ready ", CONF_DEADLINE_MS, NULL, 0)) {
        tap_diag("the debuggee did not get ready");
        conf_app_kill(app);
        return 1;
    }
    return 0;
}

int conf_app_start_launched(struct conf_app *app, int debug, const char *const *args)
{
    return conf_app_start_ready(app, debug, args) || conf_app_send(app, "go") ||
           !conf_app_expect(app, "armed", 20000, NULL, 0) || conf_app_send(app, "go") ||
           !conf_app_expect(app, "launched", 20000, NULL, 0);
}

void conf_set_pace(unsigned pace)
{
    const char *cfg = getenv("GTSIM_CONFIG");
    char buf[1024];
    /* An executing device (exec=1) runs the loop kernel until the test
     * writes its flag: it needs no slow pace to be caught running. */
    if (!getenv("GTSIM_LIB") || (cfg && (strstr(cfg, "pace=") || strstr(cfg, "exec=1"))))
        return;
    snprintf(buf, sizeof(buf), "%s%space=%u", cfg ? cfg : "", cfg && *cfg ? "," : "", pace);
    setenv("GTSIM_CONFIG", buf, 1);
}

int conf_helper_start(struct conf_app *helper, const char *const *args)
{
    char *argv[32];
    size_t n = 0;
    argv[n++] = self_path;
    argv[n++] = (char *)"--helper";
    for (size_t i = 0; args && args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return spawn(helper, self_path, argv, environ);
}

int conf_app_expect(struct conf_app *app, const char *prefix, int timeout_ms, char *out,
                    size_t size)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    size_t pl = strlen(prefix);

    for (;;) {
        char *nl;
        while ((nl = memchr(app->buf, '\n', app->len)) != NULL) {
            size_t ll = (size_t)(nl - app->buf);
            int match = ll >= pl && memcmp(app->buf, prefix, pl) == 0;
            *nl = '\0';
            if (match && out && size) {
                snprintf(out, size, "%s", app->buf);
            } else if (!match) {
                tap_diag("debuggee %d: %s", (int)app->pid, app->buf);
            }
            app->len -= ll + 1;
            memmove(app->buf, nl + 1, app->len);
            if (match)
                return 1;
        }
        uint64_t now = conf_now_ms();
        if (now >= end || app->out_fd < 0)
            return 0;
        struct pollfd pfd = {.fd = app->out_fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)(end - now));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            return 0;
        if (app->len == sizeof(app->buf) - 1)
            app->len = 0; /* an absurdly long line: drop it */
        ssize_t got = read(app->out_fd, app->buf + app->len, sizeof(app->buf) - 1 - app->len);
        if (got <= 0) {
            close(app->out_fd);
            app->out_fd = -1; /* EOF: nothing more will come */
            return 0;
        }
        app->len += (size_t)got;
    }
}

int conf_app_send(struct conf_app *app, const char *line)
{
    size_t n = strlen(line);
    if (app->in_fd < 0)
        return 1;
    if (write(app->in_fd, line, n) != (ssize_t)n || write(app->in_fd, "\n", 1) != 1)
        return 1;
    return 0;
}

static int reap(struct conf_app *app, int timeout_ms)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    if (app->exited)
        return 1;
    for (;;) {
        pid_t p = waitpid(app->pid, &app->status, WNOHANG);
        if (p == app->pid || (p < 0 && errno == ECHILD)) {
            app->exited = 1;
            return 1;
        }
        if (conf_now_ms() >= end)
            return 0;
        sleep_ms(10); /* a child exit is rare: a 10 ms nap costs nothing */
    }
}

static void close_fds(struct conf_app *app)
{
    if (app->in_fd >= 0)
        close(app->in_fd);
    if (app->out_fd >= 0)
        close(app->out_fd);
    app->in_fd = app->out_fd = -1;
}

int conf_app_finish(struct conf_app *app, int timeout_ms)
{
    int ok;
    if (app->pid <= 0)
        return 0;
    if (!reap(app, timeout_ms)) {
        tap_diag("process %d did not exit within %d ms: killing it", (int)app->pid, timeout_ms);
        conf_app_kill(app);
        return 0;
    }
    /* Show whatever it still printed, for the log. */
    conf_app_expect(app, "\x01never", 200, NULL, 0); /* EOF ends it early */
    close_fds(app);
    untrack(app);
    ok = WIFEXITED(app->status) && WEXITSTATUS(app->status) == 0;
    if (!ok)
        tap_diag("process %d: %s %d", (int)app->pid,
                 WIFEXITED(app->status) ? "exit status" : "killed by signal",
                 WIFEXITED(app->status) ? WEXITSTATUS(app->status) : WTERMSIG(app->status));
    return ok;
}

void conf_app_kill(struct conf_app *app)
{
    if (app->pid > 0 && !app->exited) {
        kill(app->pid, SIGKILL);
        waitpid(app->pid, &app->status, 0);
        app->exited = 1;
    }
    close_fds(app);
    untrack(app);
}

/* ---- events ---------------------------------------------------------- */

ze_result_t conf_read_event(zet_debug_session_handle_t s, int timeout_ms, zet_debug_event_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    return zetDebugReadEvent(s, (uint64_t)timeout_ms, ev);
}

int conf_wait_event(zet_debug_session_handle_t s, uint32_t type, int timeout_ms,
                    zet_debug_event_t *ev)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        uint64_t now = conf_now_ms();
        if (now >= end)
            return 0;
        ze_result_t r = conf_read_event(s, (int)(end - now), ev);
        if (r == ZE_RESULT_NOT_READY)
            continue;
        if (r != ZE_RESULT_SUCCESS) {
            tap_diag("zetDebugReadEvent: %s", conf_result(r));
            return 0;
        }
        if (ev->type == type)
            return 1;
        tap_diag("(skipping event %s)", conf_event_name(ev->type));
        if (ev->flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
            zetDebugAcknowledgeEvent(s, ev);
    }
}

unsigned conf_collect(zet_debug_session_handle_t s, uint32_t type, unsigned want, int timeout_ms,
                      zet_debug_event_t *out, unsigned max)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    unsigned got = 0;
    zet_debug_event_t ev;
    while (got < want) {
        uint64_t now = conf_now_ms();
        if (now >= end)
            break;
        ze_result_t r = conf_read_event(s, (int)(end - now), &ev);
        if (r == ZE_RESULT_NOT_READY)
            continue;
        if (r != ZE_RESULT_SUCCESS) {
            tap_diag("zetDebugReadEvent: %s", conf_result(r));
            break;
        }
        if (ev.type == type) {
            if (got < max)
                out[got] = ev;
            got++;
            continue;
        }
        tap_diag("(event %s while collecting %s)", conf_event_name(ev.type), conf_event_name(type));
        if (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
            zetDebugAcknowledgeEvent(s, &ev);
    }
    return got;
}

int conf_thread_eq(ze_device_thread_t a, ze_device_thread_t b)
{
    return a.slice == b.slice && a.subslice == b.subslice && a.eu == b.eu && a.thread == b.thread;
}

int conf_thread_is_all(ze_device_thread_t t)
{
    return conf_thread_eq(t, conf_all_threads);
}

/* ---- memory, instructions, registers ------------------------------- */

ze_result_t conf_read_mem(zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t space,
                          uint64_t addr, size_t size, void *buf)
{
    zet_debug_memory_space_desc_t d = {.stype = ZET_STRUCTURE_TYPE_DEBUG_MEMORY_SPACE_DESC,
                                       .type = (zet_debug_memory_space_type_t)space,
                                       .address = addr};
    return zetDebugReadMemory(s, t, &d, size, buf);
}

ze_result_t conf_write_mem(zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t space,
                           uint64_t addr, size_t size, const void *buf)
{
    zet_debug_memory_space_desc_t d = {.stype = ZET_STRUCTURE_TYPE_DEBUG_MEMORY_SPACE_DESC,
                                       .type = (zet_debug_memory_space_type_t)space,
                                       .address = addr};
    return zetDebugWriteMemory(s, t, &d, size, buf);
}

uint64_t conf_app_loop_flag(struct conf_app *app)
{
    char line[256];
    uint64_t flag = 0;
    if (conf_app_expect(app, "flag ", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "flag %" SCNx64, &flag);
    return flag;
}

ze_result_t conf_end_loop(zet_debug_session_handle_t s, uint64_t flag)
{
    const int32_t zero = 0;
    return conf_write_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, flag,
                          sizeof(zero), &zero);
}

static uint32_t dword0(const uint8_t *insn)
{
    return (uint32_t)insn[0] | (uint32_t)insn[1] << 8 | (uint32_t)insn[2] << 16 |
           (uint32_t)insn[3] << 24;
}

unsigned conf_insn_len(const uint8_t *insn)
{
    return (dword0(insn) & (1u << 29)) ? 8 : 16;
}

void conf_insn_set_bp(uint8_t *insn)
{
    /* Compacted instructions keep the debug control at bit 7 of byte 0,
     * native ones at bit 30 of dword 0. */
    if (conf_insn_len(insn) == 8)
        insn[0] |= 0x80;
    else
        insn[3] |= 0x40;
}

int conf_nth_insn(zet_debug_session_handle_t s, uint64_t load, unsigned n, uint64_t *offset,
                  unsigned *len)
{
    uint64_t off = 0;
    uint8_t insn[16];
    for (unsigned i = 0;; i++) {
        ze_result_t r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT,
                                      load + off, sizeof(insn), insn);
        if (r != ZE_RESULT_SUCCESS) {
            tap_diag("reading ISA at 0x%llx: %s", (unsigned long long)(load + off), conf_result(r));
            return 1;
        }
        if (i == n) {
            *offset = off;
            if (len)
                *len = conf_insn_len(insn);
            return 0;
        }
        off += conf_insn_len(insn);
    }
}

int conf_plant_bp(zet_debug_session_handle_t s, uint64_t addr)
{
    uint8_t insn[16], back[16];
    ze_result_t r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, addr,
                                  sizeof(insn), insn);
    if (r != ZE_RESULT_SUCCESS)
        return 1;
    conf_insn_set_bp(insn);
    /* Only the instruction itself: 8 bytes when compacted. */
    r = conf_write_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, addr,
                       conf_insn_len(insn), insn);
    if (r != ZE_RESULT_SUCCESS) {
        tap_diag("writing the breakpoint: %s", conf_result(r));
        return 1;
    }
    r = conf_read_mem(s, conf_all_threads, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, addr, sizeof(back),
                      back);
    return r != ZE_RESULT_SUCCESS || memcmp(back, insn, conf_insn_len(insn)) != 0;
}

ze_result_t conf_read_cr0(zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t cr[4])
{
    return zetDebugReadRegisters(s, t, CONF_REG_CR, 0, 1, cr);
}

ze_result_t conf_write_cr0(zet_debug_session_handle_t s, ze_device_thread_t t, const uint32_t cr[4])
{
    return zetDebugWriteRegisters(s, t, CONF_REG_CR, 0, 1, (void *)cr);
}

ze_result_t conf_isabase(zet_debug_session_handle_t s, ze_device_thread_t t, uint64_t *base)
{
    uint64_t sba[9] = {0};
    ze_result_t r = zetDebugReadRegisters(s, t, CONF_REG_SBA, 0, 9, sba);
    *base = sba[CONF_SBA_INSTRUCTION_BASE];
    return r;
}

ze_result_t conf_continue_past_bp(zet_debug_session_handle_t s, ze_device_thread_t t)
{
    uint32_t cr[4];
    ze_result_t r = conf_read_cr0(s, t, cr);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    cr[1] &= ~CONF_CR0_1_BREAKPOINT;
    cr[0] |= CONF_CR0_0_BP_SUPPRESS;
    r = conf_write_cr0(s, t, cr);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    return zetDebugResume(s, t);
}

/* ---- the helper debugger process -------------------------------------- */

/* A second debugger process, for the rules that involve two of them:
 *   attach PID  prints "attach <result>" and detaches again on success;
 *   hold PID    attaches, plants a breakpoint at the module's third
 *               instruction, acknowledges the load, prints "stopped" at
 *               the first THREAD_STOPPED and then waits to be killed. */
static int helper_main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t dev[8];
    uint32_t nd = 8;
    zet_debug_session_handle_t s = NULL;
    zet_debug_config_t cfg = {0};
    ze_result_t r;

    if (argc < 2 || conf_open(&drv, dev, &nd))
        return 2;
    cfg.pid = (uint32_t)atoi(argv[1]);
    r = zetDebugAttach(dev[0], &cfg, &s);
    if (strcmp(argv[0], "attach") == 0) {
        printf("attach %s\n", conf_result(r));
        fflush(stdout);
        if (r == ZE_RESULT_SUCCESS)
            zetDebugDetach(s);
        return 0;
    }
    if (strcmp(argv[0], "hold") != 0 || r != ZE_RESULT_SUCCESS) {
        printf("attach %s\n", conf_result(r));
        return 2;
    }
    printf("attached\n");
    fflush(stdout);
    for (;;) {
        zet_debug_event_t ev;
        r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
        if (r != ZE_RESULT_SUCCESS)
            return 3;
        if (ev.type == ZET_DEBUG_EVENT_TYPE_MODULE_LOAD) {
            uint64_t off;
            if (conf_nth_insn(s, ev.info.module.load, 2, &off, NULL) ||
                conf_plant_bp(s, ev.info.module.load + off))
                return 4;
        }
        if (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK)
            zetDebugAcknowledgeEvent(s, &ev);
        if (ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED) {
            printf("stopped\n");
            fflush(stdout);
            for (;;)
                pause(); /* until the test kills us (or the watchdog does) */
        }
        if (ev.type == ZET_DEBUG_EVENT_TYPE_DETACHED)
            return 5;
    }
}
