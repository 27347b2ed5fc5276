/* SPDX-License-Identifier: MIT */
/* bench only: an LD_PRELOAD counter of a debugger's Level Zero debug calls.
 * Each zetDebug* call is passed on to the loader (dlsym RTLD_NEXT) and
 * counted in a file mapped shared (ZECOUNT_FILE), which the benchmark
 * reads while the debugger runs: per function the calls, the nanoseconds
 * spent inside them and the CLOCK_MONOTONIC time the last one began, so
 * one binary, built at 2abc8ab or now, is measured the same way. Built by
 * scale.py with the system compiler; never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <zet_api.h>

enum {
    F_READ_EVENT,
    F_READ_REGISTERS,
    F_WRITE_REGISTERS,
    F_INTERRUPT,
    F_RESUME,
    F_READ_MEMORY,
    F_WRITE_MEMORY,
    F_ACK,
    F_ATTACH,
    F_DETACH,
    F_COUNT
};

/* The file's layout, read by scale.py: F_COUNT x (calls, ns, last_begin). */
struct slot {
    _Atomic uint64_t calls, ns, last_begin;
};

static struct slot *slots;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct slot *slot(int f)
{
    static struct slot none[F_COUNT];
    if (!slots) {
        const char *path = getenv("ZECOUNT_FILE");
        int fd = path ? open(path, O_RDWR) : -1;
        void *p = fd >= 0 ? mmap(NULL, sizeof(struct slot) * F_COUNT, PROT_READ | PROT_WRITE,
                                 MAP_SHARED, fd, 0)
                          : MAP_FAILED;
        if (fd >= 0)
            close(fd);
        slots = p == MAP_FAILED ? none : p;
    }
    return &slots[f];
}

static void account(int f, uint64_t t0)
{
    struct slot *s = slot(f);
    atomic_fetch_add(&s->calls, 1);
    atomic_fetch_add(&s->ns, now_ns() - t0);
    atomic_store(&s->last_begin, t0);
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

#define WRAP(f, name, params, args)                                                                \
    ze_result_t ZE_APICALL name params                                                             \
    {                                                                                              \
        static __typeof__(&name) next;                                                             \
        uint64_t t0 = now_ns();                                                                    \
        ze_result_t r;                                                                             \
        if (!next)                                                                                 \
            next = NEXT(name);                                                                     \
        r = next args;                                                                             \
        account(f, t0);                                                                            \
        return r;                                                                                  \
    }

WRAP(F_READ_EVENT, zetDebugReadEvent,
     (zet_debug_session_handle_t s, uint64_t timeout, zet_debug_event_t *ev), (s, timeout, ev))
WRAP(F_READ_REGISTERS, zetDebugReadRegisters,
     (zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t type, uint32_t start,
      uint32_t count, void *v),
     (s, t, type, start, count, v))
WRAP(F_WRITE_REGISTERS, zetDebugWriteRegisters,
     (zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t type, uint32_t start,
      uint32_t count, void *v),
     (s, t, type, start, count, v))
WRAP(F_INTERRUPT, zetDebugInterrupt, (zet_debug_session_handle_t s, ze_device_thread_t t), (s, t))
WRAP(F_RESUME, zetDebugResume, (zet_debug_session_handle_t s, ze_device_thread_t t), (s, t))
WRAP(F_READ_MEMORY, zetDebugReadMemory,
     (zet_debug_session_handle_t s, ze_device_thread_t t, const zet_debug_memory_space_desc_t *d,
      size_t n, void *b),
     (s, t, d, n, b))
WRAP(F_WRITE_MEMORY, zetDebugWriteMemory,
     (zet_debug_session_handle_t s, ze_device_thread_t t, const zet_debug_memory_space_desc_t *d,
      size_t n, const void *b),
     (s, t, d, n, b))
WRAP(F_ACK, zetDebugAcknowledgeEvent, (zet_debug_session_handle_t s, const zet_debug_event_t *ev),
     (s, ev))
WRAP(F_ATTACH, zetDebugAttach,
     (zet_device_handle_t d, const zet_debug_config_t *c, zet_debug_session_handle_t *s), (d, c, s))
WRAP(F_DETACH, zetDebugDetach, (zet_debug_session_handle_t s), (s))
