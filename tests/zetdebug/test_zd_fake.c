/* SPDX-License-Identifier: MIT */
/* zetdebug over a scripted driver (zd_fake_driver.c, linked instead of
 * the loader), so that each Level Zero call can answer what a real driver
 * may and gtsim never does: a device that is not a GPU or not Intel's,
 * debug properties or register sets that cannot be read or miss a set, a
 * failing PCI query, drivers without devices, more drivers than zetdebug
 * keeps, an event type newer than the API, event reads that fail and
 * recover or lose the device, and every result of the run-control, memory
 * and register calls. The expected sentences are zetdebug/README.md's,
 * written out here. Detaches handed to the reader: test_zd_handoff.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "tests/zetdebug/zd_fake_driver.h"
#include "tests/zetdebug/zd_seen.h"
#include "zetdebug/zd.h"

/* ---- discovery ---- */

static void test_no_devices(void)
{
    struct zd *zd = NULL;
    struct zd_error e = {0};
    int rc;

    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    F.ndrivers = 0;
    rc = zd_open(&zd, &e);
    tap_ok(rc == ZD_E_NO_DRIVER && zd == NULL && e.raw == ZE_RESULT_ERROR_UNINITIALIZED &&
               strstr(e.msg, "no Level Zero GPU driver found (zeInit: 0x78000001)"),
           "zeInit works but no driver: %s", e.msg);
    F.ndrivers = 1;
    F.drv_r2 = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_open(&zd, &e);
    tap_ok(rc == ZD_E_NO_DRIVER && e.raw == ZE_RESULT_ERROR_UNKNOWN,
           "listing the drivers fails: %s", e.msg);
    F.drv_r2 = ZE_RESULT_SUCCESS;

    /* 20 drivers, of which zetdebug keeps 16: the first has no devices,
     * the second cannot list its own, the rest have none either. */
    F.ndrivers = 20;
    F.empty_first = true;
    F.ndev = 0;
    F.devget_r = ZE_RESULT_ERROR_UNKNOWN;
    F.devget_calls = 0;
    rc = zd_open(&zd, &e);
    tap_ok(rc == 0 && zd && zd_device_count(zd) == 0 && F.devget_calls == 16,
           "20 drivers without devices: none listed, 16 drivers asked (%u)", F.devget_calls);
    zd_close(zd);
    F.devget_r = ZE_RESULT_SUCCESS;
    F.empty_first = false;
    F.ndrivers = 1;
}

static void test_filter(void)
{
    struct fdev subs[2], devs[7];
    struct zd *zd = NULL;
    struct zd_error e = {0};
    struct zd_regset rs[8];
    size_t n = 0;
    int rc;

    subs[0] = fake_gpu();
    subs[1] = fake_gpu();
    subs[0].is_sub = subs[1].is_sub = true;
    subs[0].subs = subs[1].subs = subs;
    subs[1].pci_r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    subs[1].attach_flag = false;
    for (int i = 0; i < 7; i++)
        devs[i] = fake_gpu();
    devs[0].type = ZE_DEVICE_TYPE_CPU;
    devs[1].vendor = 0x1002;
    devs[2].dbg_r = ZE_RESULT_ERROR_UNKNOWN;
    devs[3].attach_flag = false;
    devs[4].regs_r1 = ZE_RESULT_ERROR_DEVICE_LOST;
    devs[5].regsets = 1;
    devs[5].pci_r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    devs[6].nsub = 2;
    devs[6].subs = subs;
    F.devs = devs;
    F.ndev = 7;
    rc = zd_open(&zd, &e);
    if (!tap_ok(rc == 0 && zd_device_count(zd) == 8,
                "7 devices: the CPU left out, 6 GPUs and 2 sub-devices listed (%zu) %s",
                zd_device_count(zd), e.msg)) {
        zd_close(zd);
        return;
    }
    tap_ok(!zd_device_at(zd, 0)->can_attach &&
               strcmp(zd_device_at(zd, 0)->why_not, "not an Intel GPU (vendor 0x1002)") == 0,
           "another vendor: %s", zd_device_at(zd, 0)->why_not);
    tap_ok(!zd_device_at(zd, 1)->can_attach &&
               strcmp(zd_device_at(zd, 1)->why_not,
                      "the driver does not report debug properties (ERROR_UNKNOWN)") == 0,
           "debug properties fail: %s", zd_device_at(zd, 1)->why_not);
    tap_ok(!zd_device_at(zd, 2)->can_attach &&
               strstr(zd_device_at(zd, 2)->why_not, "does not offer program debug on this device"),
           "no ATTACH flag on a root: %s", zd_device_at(zd, 2)->why_not);
    tap_ok(!zd_device_at(zd, 3)->can_attach &&
               strstr(zd_device_at(zd, 3)->why_not, "cannot read its register sets: querying "
                                                    "register sets: ") &&
               strstr(zd_device_at(zd, 3)->why_not, "ERROR_DEVICE_LOST"),
           "register sets fail: %s", zd_device_at(zd, 3)->why_not);
    tap_ok(!zd_device_at(zd, 4)->can_attach &&
               strcmp(zd_device_at(zd, 4)->why_not,
                      "unsupported register layout: missing CE CR SR SBA(version 0, isabase)") == 0,
           "register sets missing or unreadable: %s", zd_device_at(zd, 4)->why_not);
    rc = zd_regsets(zd, 4, rs, 8, &n, &e);
    tap_ok(rc == 0 && n == 8 && rs[0].type == 1 && rs[0].readable && !rs[1].readable &&
               rs[2].version == 1,
           "70 sets reported: zd_regsets gives the 8 asked for");
    tap_ok(zd_device_at(zd, 5)->can_attach && zd_device_at(zd, 5)->nsub == 2 &&
               strcmp(zd_device_at(zd, 4)->pci_slot, "0000:00:00.0") == 0 &&
               strcmp(zd_device_at(zd, 5)->pci_slot, "0000:3a:01.2") == 0 &&
               strcmp(zd_device_at(zd, 6)->pci_slot, "0000:4b:01.2") == 0 &&
               strcmp(zd_device_at(zd, 7)->pci_slot, "0000:3a:01.2") == 0,
           "PCI: a root without it 0000:00:00.0; a tile without it its root's (%s)",
           zd_device_at(zd, 7)->pci_slot);
    tap_ok(zd_device_at(zd, 6)->can_attach && zd_device_at(zd, 7)->parent == 5 &&
               !zd_device_at(zd, 7)->can_attach &&
               strstr(zd_device_at(zd, 7)->why_not, "tile attach is off"),
           "a tile without the ATTACH flag: %s", zd_device_at(zd, 7)->why_not);
    devs[5].regs_r1 = ZE_RESULT_SUCCESS;
    devs[5].regs_r2 = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_regsets(zd, 4, rs, 8, &n, &e);
    tap_ok(rc == ZD_E_OTHER && n == 0 && strncmp(e.msg, "querying register sets: ", 24) == 0,
           "the second register set query fails: %s", e.msg);
    zd_close(zd);

    devs[3].props_r = ZE_RESULT_ERROR_DEVICE_LOST;
    zd = (struct zd *)1;
    rc = zd_open(&zd, &e);
    tap_ok(rc == ZD_E_LOST && zd == NULL && strncmp(e.msg, "reading device properties: ", 27) == 0,
           "a device whose properties fail ends zd_open: %s", e.msg);
}
/* ---- sessions ---- */

static void test_calls(struct zd *zd)
{
    struct zd_thread one = {1, 2, 3, 4};
    struct zd_session *s = NULL;
    struct zd_error e;
    struct zd_event ev;
    uint8_t buf[8] = {0};
    int rc;

    if (!tap_ok(zd_attach(zd, 0, 42, &s, &e) == 0 && s, "attached to the fake device"))
        return;
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.acks = 0;
    fake_script(0, ZE_RESULT_SUCCESS, (zet_debug_event_type_t)0x99, true);
    fake_script(1, ZE_RESULT_ERROR_UNKNOWN, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    pthread_mutex_unlock(&F.lock);
    rc = zd_read_event(s, 10, &ev, &e);
    tap_ok(rc == ZD_E_OTHER && e.raw == 0 && F.acks == 1 &&
               strcmp(e.msg, "ignored a debug event of unknown type 153") == 0,
           "an event type newer than the API: acknowledged, not delivered: %s", e.msg);
    rc = zd_read_event(s, 10, &ev, &e);
    tap_ok(rc == ZD_E_OTHER &&
               strncmp(e.msg, "reading a debug event: unknown driver error", 43) == 0,
           "an event read that fails: %s", e.msg);

    F.run_r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    rc = zd_interrupt(s, one, &e);
    tap_ok(rc == ZD_E_UNAVAILABLE &&
               strcmp(e.msg, "interrupting thread 1.2.3.4: already stopped or unavailable") == 0,
           "interrupt, not available: %s", e.msg);
    rc = zd_resume(s, zd_thread_all(), &e);
    tap_ok(rc == ZD_E_UNAVAILABLE && strcmp(e.msg, "resuming all threads: nothing is stopped") == 0,
           "resume, not available: %s", e.msg);
    F.run_r = ZE_RESULT_NOT_READY;
    rc = zd_interrupt(s, zd_thread_all(), &e);
    tap_ok(rc == ZD_E_PENDING && e.raw == 0x1 &&
               strcmp(e.msg, "interrupting all threads: the same interrupt is pending, its answer "
                             "will come") == 0,
           "interrupt, the same one pending: %s", e.msg);
    F.run_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = zd_interrupt(s, zd_thread_all(), &e);
    tap_ok(rc == ZD_E_LOST &&
               strncmp(e.msg, "interrupting all threads: the device was lost", 45) == 0,
           "interrupt, lost: %s", e.msg);
    rc = zd_resume(s, one, &e);
    tap_ok(rc == ZD_E_LOST &&
               strncmp(e.msg, "resuming thread 1.2.3.4: the device was lost", 44) == 0,
           "resume, lost: %s", e.msg);
    F.run_r = ZE_RESULT_SUCCESS;

    F.mem_r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    rc = zd_read_memory(s, one, ZD_SPACE_DEFAULT, 0x1000, 8, buf, &e);
    tap_ok(rc == ZD_E_UNAVAILABLE &&
               strcmp(e.msg, "reading 8 bytes at 0x1000 (thread 1.2.3.4): the thread is running "
                             "or cannot reach that memory") == 0,
           "read memory, not available: %s", e.msg);
    F.mem_r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rc = zd_write_memory(s, one, ZD_SPACE_SLM, 0x10, 4, buf, &e);
    tap_ok(rc == ZD_E_INVALID &&
               strcmp(e.msg, "writing 4 bytes to 0x10 in SLM (thread 1.2.3.4): the address is not "
                             "mapped or the range is not accessible") == 0,
           "write SLM, invalid: %s", e.msg);
    F.mem_r = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_write_memory(s, zd_thread_all(), ZD_SPACE_DEFAULT, 0x20, 2, buf, &e);
    tap_ok(rc == ZD_E_OTHER &&
               strncmp(e.msg, "writing 2 bytes to 0x20 (all threads): unknown", 46) == 0,
           "write memory, unknown: %s", e.msg);
    F.mem_r = ZE_RESULT_SUCCESS;
    tap_ok(zd_write_memory(s, one, ZD_SPACE_DEFAULT, 0x20, 2, buf, &e) == 0 && e.code == 0,
           "write memory succeeds");

    F.reg_r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    rc = zd_write_registers(s, one, 6, 2, 3, buf, &e);
    tap_ok(rc == ZD_E_UNAVAILABLE &&
               strcmp(e.msg, "writing registers 2..4 of set 6 (thread 1.2.3.4): the thread is "
                             "running or unavailable") == 0,
           "write registers, not available: %s", e.msg);
    F.reg_r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rc = zd_write_registers(s, one, 11, 0, 1, buf, &e);
    tap_ok(rc == ZD_E_INVALID && strstr(e.msg, ": no such registers or the set is read-only"),
           "write registers, invalid: %s", e.msg);
    rc = zd_read_registers(s, one, 1, 200, 1, buf, &e);
    tap_ok(rc == ZD_E_INVALID && strstr(e.msg, "reading registers 200..200 of set 1") &&
               strstr(e.msg, ": no such registers") && !strstr(e.msg, "read-only"),
           "read registers, invalid: %s", e.msg);
    F.reg_r = ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET;
    rc = zd_read_registers(s, one, 1, 0, 1, buf, &e);
    tap_ok(rc == ZD_E_LOST && strstr(e.msg, "the device needs a reset"),
           "read registers, needs a reset: %s", e.msg);
    F.reg_r = ZE_RESULT_SUCCESS;
    tap_ok(zd_write_registers(s, one, 1, 0, 1, buf, &e) == 0, "write registers succeeds");

    F.detach_r = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_detach(s, &e);
    tap_ok(rc == ZD_E_OTHER && strncmp(e.msg, "detaching: unknown driver error", 31) == 0,
           "a detach that fails says so (the session is gone either way): %s", e.msg);
    F.detach_r = ZE_RESULT_SUCCESS;
}

static void test_reader(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_stats before, after;
    struct zd_error e;
    bool got;
    int rc;

    /* An unknown event (acknowledged, skipped), three failed reads (kept
     * trying), a module load, then the device lost: a DETACHED with
     * reason 0 that the driver never sent. */
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.acks = 0;
    fake_script(0, ZE_RESULT_SUCCESS, (zet_debug_event_type_t)0x77, true);
    fake_script(1, ZE_RESULT_ERROR_UNKNOWN, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    fake_script(2, ZE_RESULT_ERROR_UNKNOWN, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    fake_script(3, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    fake_script(4, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, false);
    fake_script(5, ZE_RESULT_ERROR_DEVICE_LOST, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    pthread_mutex_unlock(&F.lock);
    if (!tap_ok(zd_attach(zd, 0, 42, &w.s, &e) == 0, "attached for the reader"))
        return;
    zd_get_stats(zd, &before);
    tap_ok(zd_start_reader(w.s, NULL, &w, &e) == ZD_E_INVALID, "a reader needs a callback");
    tap_ok(zd_start_reader(w.s, seen_event, &w, &e) == 0, "reader started");
    got = seen_wait(&w, 2);
    tap_ok(got && w.n == 2 && w.types[0] == ZD_EV_MODULE_LOAD && w.types[1] == ZD_EV_DETACHED &&
               w.reasons[1] == 0,
           "failed reads retried; the lost device ends with a DETACHED of reason 0 (%u events)",
           w.n);
    tap_ok(w.detach_rc == ZD_E_INVALID, "zd_detach from the session's own callback is refused");
    F.detach_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = zd_detach(w.s, &e);
    zd_get_stats(zd, &after);
    tap_ok(rc == 0 && after.read_event - before.read_event >= 6 && F.acks == 1,
           "detach of a lost session succeeds; 6 reads, 1 acknowledgement (%llu reads)",
           (unsigned long long)(after.read_event - before.read_event));
    F.detach_r = ZE_RESULT_SUCCESS;

    /* A DETACHED from the driver ends the reader too. */
    memset(&w.n, 0, sizeof(w.n));
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    fake_script(0, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_DETACHED, false);
    pthread_mutex_unlock(&F.lock);
    if (zd_attach(zd, 0, 42, &w.s, &e) != 0 || zd_start_reader(w.s, seen_event, &w, &e) != 0) {
        tap_ok(0, "second reader started: %s", e.msg);
        return;
    }
    got = seen_wait(&w, 1);
    tap_ok(got && w.types[0] == ZD_EV_DETACHED && w.reasons[0] == 1 && w.detach_rc == ZD_E_INVALID,
           "the driver's DETACHED (host exit), the first event, is delivered; zd_detach from "
           "its callback is refused even then; the reader ends");
    tap_ok(zd_detach(w.s, &e) == 0, "detached");
}

/* zd_thread_regsets: the per-thread answer when the loader and driver
 * have it, the device's sets (count 8) when the driver's slot is empty,
 * and a real failure passed on, not hidden behind the fallback. */
static void test_thread_regsets(struct zd *zd)
{
    struct zd_thread small = {0, 0, 2, 1}, large = {0, 0, 3, 1};
    struct zd_regset rs[8];
    struct zd_session *s = NULL;
    struct zd_error e;
    bool per = false;
    size_t n = 0;
    int rc;

    if (!tap_ok(zd_attach(zd, 0, 42, &s, &e) == 0 && s, "attached for thread register sets"))
        return;
    thread_r = ZE_RESULT_SUCCESS;
    rc = zd_thread_regsets(s, small, rs, 8, &n, &per, &e);
    tap_ok(rc == 0 && per && n == 5 && rs[0].type == 1 && rs[0].count == 128,
           "per-thread sets: GRF x%u for a normal thread", n ? rs[0].count : 0);
    rc = zd_thread_regsets(s, large, rs, 8, &n, &per, &e);
    tap_ok(rc == 0 && per && n == 5 && rs[0].count == 256,
           "per-thread sets: GRF x%u for a large-GRF thread", n ? rs[0].count : 0);
    thread_r = ZE_RESULT_ERROR_UNINITIALIZED;
    thread_calls = 0;
    rc = zd_thread_regsets(s, large, rs, 8, &n, &per, &e);
    tap_ok(rc == 0 && !per && n == 5 && rs[0].count == 8 && thread_calls == 1,
           "a driver without the slot: the device's sets (GRF x%u), one try", n ? rs[0].count : 0);
    thread_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = zd_thread_regsets(s, large, rs, 8, &n, &per, &e);
    tap_ok(rc != 0 && !per && n == 0 && strstr(e.msg, "thread's register sets"),
           "a failing per-thread query is reported: %s", e.msg);
    thread_r = ZE_RESULT_SUCCESS;
    zd_detach(s, &e);
}

int main(void)
{
    struct fdev dev[1];
    struct zd *zd = NULL;
    struct zd_error e = {0};

    tap_plan(3 + 11 + 18 + 8 + 5);
    F.ndrivers = 1;
    test_no_devices();
    test_filter();
    dev[0] = fake_gpu();
    F.devs = dev;
    F.ndev = 1;
    if (zd_open(&zd, &e) != 0)
        tap_bail(e.msg);
    test_calls(zd);
    test_reader(zd);
    test_thread_regsets(zd);
    zd_close(zd);
    return tap_done();
}
