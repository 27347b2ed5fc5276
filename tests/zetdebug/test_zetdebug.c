/* SPDX-License-Identifier: MIT */
/* zetdebug against gtsim (or a real driver when GTSIM_LIB is unset):
 * discovery, the attach error sentences of intelgt-remote-protocol.md 1.4,
 * a session with its reader thread delivering MODULE_LOAD, thin wrappers'
 * error conversion, and the call counters. The debuggee is
 * tests/conformance/debuggee, built next to this program. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"
#include "zetdebug/zd.h"

extern char **environ;

/* Events the reader thread delivered; guarded by lock. */
struct seen {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct zd_session *s;
    unsigned count[16];
    unsigned acked, ack_failed;
    struct zd_event module;
    bool reader_was_other_thread;
    pthread_t main_thread;
};

static void on_event(void *ctx, const struct zd_event *ev)
{
    struct seen *w = ctx;
    struct zd_error err;
    /* The module load is acknowledged by the main thread once it has read
     * the ELF: the debuggee may unload the module as soon as it is acked. */
    bool hold = ev->type == ZD_EV_MODULE_LOAD;
    int ack = ev->need_ack && !hold ? zd_ack(w->s, ev, &err) : 0;
    pthread_mutex_lock(&w->lock);
    if ((unsigned)ev->type < 16)
        w->count[ev->type]++;
    if (ev->type == ZD_EV_MODULE_LOAD && w->count[ZD_EV_MODULE_LOAD] == 1)
        w->module = *ev;
    if (ev->need_ack && !hold) {
        w->acked += ack == 0;
        w->ack_failed += ack != 0;
    }
    w->reader_was_other_thread = !pthread_equal(pthread_self(), w->main_thread);
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Waits until the reader delivered an event of this type. */
static bool wait_seen(struct seen *w, enum zd_event_type type, int timeout_ms)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    bool ok;
    pthread_mutex_lock(&w->lock);
    while (w->count[type] == 0 && conf_now_ms() < end) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->cond, &w->lock, &ts);
    }
    ok = w->count[type] > 0;
    pthread_mutex_unlock(&w->lock);
    return ok;
}

static pid_t spawn_sleep(void)
{
    pid_t pid;
    char *argv[] = {(char *)"sleep", (char *)"5", NULL};
    if (posix_spawnp(&pid, "sleep", NULL, NULL, argv, environ) != 0)
        return -1;
    return pid;
}

/* A pid that existed a moment ago and is reaped now. */
static pid_t dead_pid(void)
{
    pid_t pid;
    char *argv[] = {(char *)"true", NULL};
    if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) != 0)
        return -1;
    waitpid(pid, NULL, 0);
    return pid;
}

static void test_devices(struct zd *zd, size_t *root, size_t *sub)
{
    size_t n = zd_device_count(zd);
    struct zd_regset rs[32];
    size_t nrs = 0;
    struct zd_error err;
    bool grf = false, sba = false;
    int rc;

    *root = *sub = SIZE_MAX;
    tap_ok(n == 3, "a 2-tile device lists as a root and two sub-devices (got %zu)", n);
    for (size_t i = 0; i < n; i++) {
        const struct zd_device *d = zd_device_at(zd, i);
        if (d->parent < 0 && *root == SIZE_MAX)
            *root = i;
        if (d->parent >= 0 && *sub == SIZE_MAX)
            *sub = i;
    }
    if (!tap_ok(*root == 0 && *sub == 1, "root first, then its sub-devices"))
        return;
    {
        const struct zd_device *r = zd_device_at(zd, 0), *s = zd_device_at(zd, 1);
        tap_ok(r->vendor_id == 0x8086 && r->nsub == 2 && r->index == 0,
               "root: Intel, 2 sub-devices");
        tap_ok(r->nthreads == r->slices * r->subslices * r->eus * r->threads &&
                   r->nthreads == 2 * s->nthreads,
               "root threads = product of topology = 2 x a tile (%u, %u)", r->nthreads,
               s->nthreads);
        tap_ok(s->parent == 0 && s->subdevice_id == 0 && zd_device_at(zd, 2)->subdevice_id == 1,
               "sub-devices 0 and 1 of device 0");
        tap_ok(strlen(r->pci_slot) == 12 && r->pci_slot[4] == ':' && r->pci_slot[10] == '.',
               "PCI slot formatted dddd:bb:dd.f (%s)", r->pci_slot);
        tap_ok(r->can_attach && s->can_attach, "root and tile attachable with tile attach on");
    }
    tap_ok(zd_device_at(zd, n) == NULL, "no device past the end");
    rc = zd_regsets(zd, 0, rs, 32, &nrs, &err);
    tap_ok(rc == 0 && nrs >= 5, "register sets: %zu", nrs);
    for (size_t i = 0; i < nrs; i++) {
        grf |= rs[i].type == 1 && rs[i].count >= 128 && rs[i].readable;
        sba |= rs[i].type == 11 && rs[i].count >= 5 && !rs[i].writable;
    }
    tap_ok(grf && sba, "GRF (>= 128, readable) and SBA (read-only) reported");
}

static void test_attach_errors(struct zd *zd, size_t root, size_t sub)
{
    struct zd_session *s = NULL;
    struct zd_error err;
    struct conf_app app;
    pid_t pid;
    int rc;

    /* A process that exists but never loaded Level Zero: not "too early"
     * (retrying would never end), but said as it is. */
    pid = spawn_sleep();
    if (tap_ok(pid > 0, "spawned sleep")) {
        rc = zd_attach(zd, root, (uint32_t)pid, &s, &err);
        tap_ok(rc == ZD_E_NO_LEVEL_ZERO && err.code == rc && err.raw == 0x1 &&
                   strstr(err.msg, "has not loaded Level Zero") != NULL &&
                   strstr(err.msg, "too early") == NULL,
               "no Level Zero: %s", err.msg);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }

    /* Level Zero loaded (linked), zeInit not called yet: too early. */
    if (conf_app_start(&app, 1, (const char *const[]){"sleep-before-init", NULL}) == 0) {
        char line[256];
        if (conf_app_expect(&app, "waiting ", 30000, line, sizeof(line))) {
            rc = zd_attach(zd, root, (uint32_t)app.pid, &s, &err);
            tap_ok(rc == ZD_E_TOO_EARLY && err.raw == 0x1 &&
                       strncmp(err.msg, "attempting to attach too early", 30) == 0,
                   "too early: %s", err.msg);
        } else {
            tap_ok(0, "the debuggee said it waits before zeInit");
        }
        conf_app_kill(&app);
    } else {
        tap_ok(0, "debuggee started (sleep-before-init)");
    }

    pid = dead_pid();
    rc = zd_attach(zd, root, (uint32_t)pid, &s, &err);
    tap_ok(rc == ZD_E_INVALID && strncmp(err.msg, "no such process", 15) == 0, "gone: %s", err.msg);

    /* Level Zero initialised without ZET_ENABLE_PROGRAM_DEBUGGING. */
    if (conf_app_start_ready(&app, 0, (const char *const[]){"vadd", NULL}) == 0) {
        rc = zd_attach(zd, root, (uint32_t)app.pid, &s, &err);
        tap_ok(rc == ZD_E_NOT_SUPPORTED &&
                   strncmp(err.msg, "attaching is not supported", 26) == 0 &&
                   strstr(err.msg, "ZET_ENABLE_PROGRAM_DEBUGGING=1") != NULL,
               "not debuggable: %s", err.msg);
        rc = zd_attach(zd, sub, (uint32_t)app.pid, &s, &err);
        tap_ok(rc == ZD_E_NOT_SUPPORTED && strstr(err.msg, "sub-device") != NULL,
               "sub-device hint: %s", err.msg);
        conf_app_kill(&app);
    } else {
        tap_ok(0, "debuggee without program debugging started");
    }
    tap_ok(zd_attach(zd, 99, 1, &s, &err) == ZD_E_INVALID && s == NULL, "bad device index: %s",
           err.msg);
}

/* A thread's sets right after attach, when nothing runs. Debian's 1.8.12
 * loader has no zetDebugGetThreadRegisterSetProperties: the device's sets,
 * marked as not per-thread. A loader that has it (API 1.5+, e.g. 1.32 in
 * test_new_loader.sh) reaches gtsim's per-thread query, which answers for
 * stopped threads only: NOT_AVAILABLE for this one, as Intel's runtime. */
static void test_thread_regsets_fallback(struct zd *zd, struct zd_session *s, size_t root)
{
    struct zd_regset dev[32], thr[32];
    size_t ndev = 0, nthr = 0;
    struct zd_error err;
    bool per = true;
    bool same = true;
    bool loader_has = dlsym(RTLD_DEFAULT, "zetDebugGetThreadRegisterSetProperties") != NULL;
    int rc;

    zd_regsets(zd, root, dev, 32, &ndev, &err);
    rc = zd_thread_regsets(s, (struct zd_thread){0, 0, 0, 0}, thr, 32, &nthr, &per, &err);
    if (loader_has) {
        tap_ok(rc == ZD_E_UNAVAILABLE && strstr(err.msg, "querying the thread's register sets"),
               "thread register sets per thread (the loader has the API 1.5 query): a thread "
               "that is not stopped is refused: %s",
               rc ? err.msg : "answered");
        return;
    }
    for (size_t i = 0; i < nthr && i < ndev; i++)
        same = same && dev[i].type == thr[i].type && dev[i].count == thr[i].count &&
               dev[i].byte_size == thr[i].byte_size;
    tap_ok(rc == 0 && !per && nthr == ndev && nthr > 0 && same,
           "thread register sets fall back to the device's %zu sets: %s", nthr,
           rc ? err.msg : (per ? "per-thread" : "device"));
}

static void test_session(struct zd *zd, size_t root, size_t sub)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_session *s = NULL, *s2 = NULL;
    struct zd_stats before, after;
    struct zd_error err;
    struct zd_event ev;
    struct conf_app app;
    uint8_t buf[64];
    int rc;

    w.main_thread = pthread_self();
    if (!tap_ok(conf_app_start_ready(&app, 1, (const char *const[]){"vadd", NULL}) == 0,
                "debuggee with program debugging ready"))
        return;
    zd_get_stats(zd, &before);
    rc = zd_attach(zd, root, (uint32_t)app.pid, &s, &err);
    if (!tap_ok(rc == 0 && s != NULL && err.code == 0, "attached to the root device: %s",
                rc ? err.msg : "ok")) {
        conf_app_kill(&app);
        return;
    }
    tap_ok(zd_session_device(s) == root, "session knows its device");
    test_thread_regsets_fallback(zd, s, root);
    w.s = s;

    rc = zd_attach(zd, sub, (uint32_t)app.pid, &s2, &err);
    tap_ok(rc == ZD_E_BUSY && strncmp(err.msg, "a debugger is already attached", 30) == 0,
           "tile while the root has a session: %s", err.msg);

    /* The queue exists: PROCESS_ENTRY is there to read directly. */
    rc = zd_read_event(s, CONF_DEADLINE_MS, &ev, &err);
    tap_ok(rc == 0 && ev.type == ZD_EV_PROCESS_ENTRY, "zd_read_event: %s",
           rc ? err.msg : zd_event_name(ev.type));
    rc = zd_read_event(s, 50, &ev, &err);
    tap_ok(rc == ZD_E_TIMEOUT, "nothing more within 50 ms: %s", zd_err_name(rc));

    rc = zd_read_registers(s, (struct zd_thread){0, 0, 0, 0}, 6, 0, 1, buf, &err);
    tap_ok(rc == ZD_E_UNAVAILABLE && strstr(err.msg, "thread 0.0.0.0") != NULL,
           "registers of a running thread: %s", err.msg);

    tap_ok(zd_start_reader(s, on_event, &w, &err) == 0, "reader thread started");
    tap_ok(zd_start_reader(s, on_event, &w, &err) == ZD_E_INVALID, "only one reader");
    tap_ok(zd_read_event(s, 10, &ev, &err) == ZD_E_INVALID,
           "zd_read_event refused while the reader owns the events");

    conf_app_send(&app, "go"); /* the debuggee creates its module now */
    if (tap_ok(wait_seen(&w, ZD_EV_MODULE_LOAD, CONF_DEADLINE_MS),
               "reader delivered MODULE_LOAD")) {
        pthread_mutex_lock(&w.lock);
        ev = w.module;
        pthread_mutex_unlock(&w.lock);
        tap_ok(ev.need_ack && ev.module_begin < ev.module_end && ev.module_load != 0,
               "module event: need_ack, ELF range, load address");
        rc = zd_read_memory(s, zd_thread_all(), ZD_SPACE_DEFAULT, ev.module_begin, 4, buf, &err);
        tap_ok(rc == 0 && memcmp(buf,
                                 "\x7f"
                                 "ELF",
                                 4) == 0,
               "module ELF readable: %s", rc ? err.msg : "ok");
        rc = zd_read_memory(s, zd_thread_all(), ZD_SPACE_DEFAULT, ev.module_end - 2, 4, buf, &err);
        tap_ok(rc == ZD_E_INVALID && strstr(err.msg, "reading 4 bytes") != NULL,
               "read crossing the ELF end: %s", err.msg);
        tap_ok(w.reader_was_other_thread, "callback runs on the reader thread");
        rc = ev.need_ack ? zd_ack(s, &ev, &err) : 0;
        tap_ok(rc == 0, "module load acknowledged from the main thread: %s", rc ? err.msg : "ok");
        pthread_mutex_lock(&w.lock);
        w.acked += ev.need_ack && rc == 0;
        pthread_mutex_unlock(&w.lock);
    }
    tap_ok(conf_app_expect(&app, "done ", CONF_DEADLINE_MS, NULL, 0),
           "debuggee finished its kernel (module load was acknowledged)");
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exited 0");
    tap_ok(wait_seen(&w, ZD_EV_DETACHED, CONF_DEADLINE_MS), "reader delivered DETACHED");
    pthread_mutex_lock(&w.lock);
    tap_ok(w.acked >= 1 && w.ack_failed == 0, "NEED_ACK events acknowledged (%u)", w.acked);
    pthread_mutex_unlock(&w.lock);

    rc = zd_detach(s, &err);
    tap_ok(rc == 0, "detach after the debuggee left: %s", rc ? err.msg : "ok");
    zd_get_stats(zd, &after);
    tap_ok(after.attach - before.attach == 2, "2 attach calls counted (%llu)",
           (unsigned long long)(after.attach - before.attach));
    tap_ok(after.detach - before.detach == 1, "1 detach counted");
    tap_ok(after.read_event - before.read_event >= 3, "read_event counted (%llu)",
           (unsigned long long)(after.read_event - before.read_event));
    tap_ok(after.ack - before.ack == w.acked, "acks counted (%llu)",
           (unsigned long long)(after.ack - before.ack));
    tap_ok(after.read_memory - before.read_memory == 2 &&
               after.read_registers - before.read_registers == 1,
           "memory and register reads counted");
    tap_ok(after.total > before.total + 8, "total counts every call (%llu)",
           (unsigned long long)after.total);
}

int main(int argc, char **argv)
{
    struct zd *zd = NULL;
    struct zd_error err = {0};
    struct zd_stats st;
    size_t root, sub;

    /* Small 2-tile hardware, whatever the caller's GTSIM_CONFIG: the checks
     * count devices (the debuggee inherits the same configuration). */
    setenv("GTSIM_CONFIG", "platform=xehpc,tiles=2,subslices=2,eus=2,threads=4", 1);
    conf_init(argc, argv, 60);
    if (!getenv("GTSIM_LIB")) {
        printf("1..0 # SKIP GTSIM_LIB is not set\n");
        return 0;
    }
    tap_plan(47);
    if (!tap_ok(zd_open(&zd, &err) == 0 && zd_device_count(zd) > 0, "zd_open finds gtsim: %s",
                err.msg))
        tap_bail(err.msg);
    zd_get_stats(zd, &st);
    tap_ok(st.total >= 5 && st.regset_props >= 2 && st.attach == 0,
           "discovery calls counted (%llu)", (unsigned long long)st.total);
    test_devices(zd, &root, &sub);
    if (root != SIZE_MAX && sub != SIZE_MAX) {
        test_attach_errors(zd, root, sub);
        test_session(zd, root, sub);
    }
    zd_close(zd);
    return tap_done();
}
