/* SPDX-License-Identifier: MIT */
/* libzestub_xpti.so: the XPTI subscriber an application loads through
 * XPTI_SUBSCRIBERS so zestub can learn where its kernels were submitted and
 * where its device memory came from. It writes the XPTI table (xpti/README.md)
 * and nothing else: no output, no files, no effect on the notifications.
 * It calls only the public xpti* functions (and the C++ interface methods
 * they hand out) and is linked against no framework: the one the
 * application loaded provides them, ours or Intel's.
 *
 * Its state is process-global because a subscriber's entry points and
 * callbacks carry no context. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "xpti/subscriber.h"
#include "xpti/xpti_if.h"

XPTI_API void xptiTraceInit(unsigned maj, unsigned min, const char *version, const char *stream);
XPTI_API void xptiTraceFinish(const char *stream);

static struct xtab_w table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
/* Cleared in a forked child: it inherits the mapping, and writing the
 * parent's table from another process would mislead the reader. */
static atomic_bool table_ok;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool writing(void)
{
    return atomic_load_explicit(&table_ok, memory_order_acquire);
}

static void forked_child(void)
{
    atomic_store(&table_ok, false);
}

static void create_table(void)
{
    char err[256];
    if (xtab_w_create_memfd(&table, &XTAB_DEFAULT_CAPS, err, sizeof(err)) != 0) {
        /* Once, on stderr: tracing goes on without us. */
        fprintf(stderr, "libzestub_xpti: no XPTI table (%s); zestub will not see this process\n",
                err);
        return;
    }
    pthread_atfork(NULL, NULL, forked_child);
    atomic_store(&table_ok, true);
}

/* The queue a task was submitted to, when the runtime stashed it. */
static uint64_t current_queue(void)
{
    char *key = NULL;
    uint64_t value = 0;
    if (xptiGetStashedTuple(&key, &value) == XPTI_RESULT_SUCCESS && key &&
        strcmp(key, "queue_id") == 0)
        return value;
    return 0;
}

static void on_sycl(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                    uint64_t instance, const void *user_data)
{
    if (!ev || !writing())
        return;
    switch (type) {
    case XPTI_TP_NODE_CREATE:
        sub_site_of(&table, ev);
        break;
    case XPTI_TP_TASK_BEGIN:
        xtab_w_task_begin(&table, ev->unique_id, instance, sub_site_of(&table, ev), current_queue(),
                          now_ns());
        break;
    case XPTI_TP_TASK_END:
        xtab_w_task_end(&table, ev->unique_id, instance, now_ns());
        break;
    default:
        break;
    }
}

/* mem_alloc notifications may come without an event; the code location is
 * then the thread's current tracepoint scope (its event_ref()). */
static const struct xpti_event *alloc_event(const struct xpti_event *ev)
{
    return ev ? ev : xpti_if_tracepoint_event(xptiGetTracepointScopeData());
}

static void on_mem(uint16_t type, struct xpti_event *parent, struct xpti_event *event,
                   uint64_t instance, const void *user_data)
{
    const struct xpti_mem_alloc_data *d = user_data;
    if (!d || !writing())
        return;
    const struct xpti_event *ev = alloc_event(event);
    uint64_t uid = ev ? ev->unique_id : xptiGetUniversalId();
    uint32_t site = sub_site_of(&table, ev);
    /* The pointer is known only once the allocation is done; a release is
     * recorded when it starts, since the memory may be reused right after. */
    if (type == XPTI_TP_MEM_ALLOC_END)
        xtab_w_alloc(&table, d->alloc_pointer, d->alloc_size, d->guard_zone_size,
                     d->mem_object_handle, uid, site, now_ns());
    else if (type == XPTI_TP_MEM_RELEASE_BEGIN)
        xtab_w_release(&table, d->alloc_pointer, uid, site, now_ns());
}

/* The xpti* functions this library imports; all must resolve before the
 * first call (test_public_abi.py checks the list is public). */
static const char *const imports[] = {
    "xptiGetStashedTuple", "xptiGetTracepointScopeData", "xptiGetUniversalId", "xptiLookupEvent",
    "xptiLookupObject",    "xptiRegisterCallback",       "xptiRegisterStream",
};
static atomic_bool imports_ok;
static pthread_once_t imports_once = PTHREAD_ONCE_INIT;
/* An address in the code of whoever called xptiTraceInit: the framework. */
static _Atomic(const void *) init_caller;

/* Our xpti* imports are looked up in the process's global scope, but a
 * SYCL runtime's proxy dlopen()s the framework RTLD_LOCAL, and we carry no
 * DT_NEEDED that would bring it into our scope (it could load a second
 * framework). So the framework that calls xptiTraceInit (`caller` is in its
 * code) is promoted to the global scope (RTLD_NOLOAD | RTLD_GLOBAL changes
 * only the flags of the loaded object). If some import is still missing,
 * we stay off: a lazy lookup that fails would end the application. */
static void resolve_imports(void)
{
    const void *caller = atomic_load(&init_caller);
    Dl_info info;
    if (caller && dladdr(caller, &info) && info.dli_fname) {
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
        if (h)
            dlclose(h); /* the promotion stays; the framework's lifetime is unchanged */
    }
    for (size_t i = 0; i < sizeof(imports) / sizeof(*imports); i++) {
        if (!dlsym(RTLD_DEFAULT, imports[i])) {
            fprintf(stderr,
                    "libzestub_xpti: the XPTI framework's %s is not reachable; zestub will not "
                    "see this process\n",
                    imports[i]);
            return;
        }
    }
    atomic_store(&imports_ok, true);
}

void xptiTraceInit(unsigned maj, unsigned min, const char *version, const char *stream)
{
    static const uint16_t sycl_types[] = {XPTI_TP_NODE_CREATE, XPTI_TP_TASK_BEGIN,
                                          XPTI_TP_TASK_END};
    static const uint16_t mem_types[] = {XPTI_TP_MEM_ALLOC_END, XPTI_TP_MEM_RELEASE_BEGIN};
    bool sycl = stream && (strcmp(stream, "sycl") == 0 || strcmp(stream, "sycl.pi") == 0);
    bool mem = stream && strcmp(stream, "sycl.experimental.mem_alloc") == 0;
    if (!sycl && !mem)
        return;
    atomic_store(&init_caller, __builtin_return_address(0));
    pthread_once(&imports_once, resolve_imports);
    if (!atomic_load(&imports_ok))
        return;
    pthread_once(&table_once, create_table);
    if (!writing())
        return;
    xpti_stream_id_t id = xptiRegisterStream(stream);
    const uint16_t *types = sycl ? sycl_types : mem_types;
    size_t n =
        sycl ? sizeof(sycl_types) / sizeof(*sycl_types) : sizeof(mem_types) / sizeof(*mem_types);
    for (size_t i = 0; i < n; i++)
        xptiRegisterCallback(id, types[i], sycl ? on_sycl : on_mem);
}

/* The table outlives the stream: zestub may still read it. */
void xptiTraceFinish(const char *stream) {}

/* The framework unloads its subscribers when it is finalised; no callback
 * can come after that, so the table and the private state go with us. */
__attribute__((destructor)) static void unloaded(void)
{
    if (table.base) {
        atomic_store(&table_ok, false);
        xtab_w_destroy(&table);
    }
}
