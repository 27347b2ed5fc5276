/* SPDX-License-Identifier: MIT */
/* The loading protocol and the "sycl" stream end to end: the recorder
 * subscriber is loaded through XPTI_SUBSCRIBERS and must receive the SYCL
 * runtime's notifications with the seed's metadata. Protocol corner cases
 * (bad paths, duplicates, XPTI_TRACE_ENABLE) run in child processes because
 * the framework reads the environment once per process. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/tap.h"
#include "tests/xpti/recorder.h"
#include "tests/xpti/sycl_flow.h"

static char recorder_path[4096];

static const struct recorder_log *recorder(void)
{
    void *h = dlopen(recorder_path, RTLD_LAZY | RTLD_NOLOAD);
    void *sym = h ? dlsym(h, RECORDER_LOG_SYMBOL) : NULL;
    recorder_log_fn fn;
    if (!sym)
        return NULL;
    memcpy(&fn, &sym, sizeof(fn));
    return fn();
}

/* Child mode: report what the framework made of the environment. */
static int report_state(void)
{
    xptiInitialize("sycl", 1, 0, "sycl 1.0");
    const struct recorder_log *log = recorder();
    printf("enabled=%d sycl_inits=%d\n", xptiTraceEnabled(), log ? log->sycl_inits : -1);
    return 0;
}

static void child_sees(const char *subscribers, const char *trace_enable, const char *want,
                       const char *what)
{
    char cmd[12288], out[1024] = "";
    snprintf(cmd, sizeof(cmd), "env XPTI_SUBSCRIBERS='%s' %s%s /proc/%d/exe --report", subscribers,
             trace_enable ? "XPTI_TRACE_ENABLE=" : "", trace_enable ? trace_enable : "",
             (int)getpid());
    FILE *f = popen(cmd, "r");
    size_t n = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
    out[n] = 0;
    if (f)
        pclose(f);
    if (!tap_ok(strstr(out, want) != NULL, "%s", what))
        tap_diag("child printed: %s", out);
}

static void test_protocol(void)
{
    char list[9000];
    snprintf(list, sizeof(list), "/nonexistent/libnope.so,%s,%s", recorder_path, recorder_path);
    child_sees(list, NULL, "Failed to load /nonexistent/libnope.so successfully",
               "a bad path is reported on stdout");
    child_sees(list, NULL, "enabled=1 sycl_inits=1", "a path listed twice is loaded once");
    child_sees(recorder_path, "0", "enabled=0", "XPTI_TRACE_ENABLE=0 disables tracing");
    child_sees(recorder_path, "false", "enabled=0", "XPTI_TRACE_ENABLE=false disables tracing");
    child_sees(recorder_path, "bogus", "enabled=0", "any other value disables tracing");
    child_sees(recorder_path, "true", "enabled=1", "XPTI_TRACE_ENABLE=true enables tracing");
    child_sees("/nonexistent/libnope.so", NULL, "enabled=0", "no valid subscriber, no tracing");
}

static const struct recorded_note *find(const struct recorder_log *log, uint16_t type, size_t nth)
{
    for (size_t i = 0; i < log->n; i++)
        if (log->notes[i].type == type && nth-- == 0)
            return &log->notes[i];
    return NULL;
}

static size_t count(const struct recorder_log *log, uint16_t type)
{
    size_t n = 0;
    for (size_t i = 0; i < log->n; i++)
        n += log->notes[i].type == type;
    return n;
}

static void test_sycl_stream(void)
{
    struct sycl_flow flow = {.submissions = 3};
    tap_ok(sycl_flow_run(&flow) == 0, "the sycl flow ran without dispatcher surprises (%d)",
           flow.api_failures);
    const struct recorder_log *log = recorder();
    if (!tap_ok(log != NULL, "recorder loaded through XPTI_SUBSCRIBERS"))
        return;
    tap_ok(log->sycl_inits == 1 && log->default_inits == 1 && log->sycl_finishes == 1,
           "xptiTraceInit for xpti.framework and sycl, xptiTraceFinish for sycl");
    tap_ok(log->major == 1 && log->minor == 0 && strcmp(log->version, "sycl 1.0") == 0,
           "stream version passed through");
    tap_ok(xptiGetEffectiveStreamDetailLevel(xptiRegisterStream("sycl")) == XPTI_DETAIL_VERBOSE,
           "the subscriber's detail level is the stream's");

    const struct recorded_note *g = find(log, XPTI_TP_GRAPH_CREATE, 0);
    tap_ok(g && g->uid == flow.graph_uid && count(log, XPTI_TP_GRAPH_CREATE) == 1,
           "one graph_create with the graph's id");
    const struct recorded_note *copy = find(log, XPTI_TP_NODE_CREATE, 0);
    const struct recorded_note *node = find(log, XPTI_TP_NODE_CREATE, 1);
    tap_ok(count(log, XPTI_TP_NODE_CREATE) == 2 && copy && node,
           "node_create once per site: the copy node and the kernel node");
    if (node) {
        tap_ok(node->uid == flow.node_uid && node->parent_uid == flow.graph_uid &&
                   node->instance == 1 && strcmp(node->user_data, "command_group_node") == 0,
               "kernel node_create: id, graph parent, instance 1, user data");
        tap_ok(strcmp(node->kernel_name, SYCL_FLOW_KERNEL) == 0, "metadata kernel_name");
        tap_ok(strcmp(node->source_file, SYCL_FLOW_FILE) == 0, "metadata sym_source_file_name");
        tap_ok(strcmp(node->function, SYCL_FLOW_FUNCTION) == 0, "metadata sym_function_name");
        tap_ok(node->line == SYCL_FLOW_LINE && node->column == SYCL_FLOW_COLUMN,
               "metadata sym_line_no and sym_column_no");
        tap_ok(strcmp(node->device, SYCL_FLOW_DEVICE) == 0 && node->from_source == 1,
               "metadata sycl_device and from_source");
    }
    const struct recorded_note *e = find(log, XPTI_TP_EDGE_CREATE, 0);
    const struct xpti_event *edge = e ? xptiFindEvent(e->uid) : NULL;
    tap_ok(edge && edge->source_id == flow.copy_uid && edge->target_id == flow.node_uid,
           "edge_create links the copy node to the kernel node");

    bool tasks_paired = count(log, XPTI_TP_TASK_BEGIN) == 3 && count(log, XPTI_TP_TASK_END) == 3 &&
                        count(log, XPTI_TP_SIGNAL) == 3;
    for (size_t i = 0; tasks_paired && i < 3; i++) {
        const struct recorded_note *b = find(log, XPTI_TP_TASK_BEGIN, i);
        const struct recorded_note *end = find(log, XPTI_TP_TASK_END, i);
        tasks_paired = b->instance == i + 1 && end->instance == b->instance && end->uid == b->uid &&
                       strcmp(b->kernel_name, SYCL_FLOW_KERNEL) == 0 && b->line == SYCL_FLOW_LINE;
    }
    tap_ok(tasks_paired, "three task_begin/signal/task_end, instances 1..3, each with metadata");
    const struct recorded_note *w0 = find(log, XPTI_TP_WAIT_BEGIN, 2);
    const struct recorded_note *w1 = find(log, XPTI_TP_WAIT_END, 2);
    tap_ok(w0 && w1 && w0->instance == flow.last_wait_instance && w1->instance == w0->instance &&
               strcmp(w0->user_data, "queue.wait") == 0,
           "wait_begin/wait_end share an xptiGetUniqueId instance");
}

#define PLAN 24 /* checks in test_protocol, test_sycl_stream and main */

int main(int argc, char **argv)
{
    const char *build = getenv("top_builddir");
    snprintf(recorder_path, sizeof(recorder_path), "%s/.libs/xpti_recorder.so",
             build ? build : ".");
    if (argc == 2 && strcmp(argv[1], "--report") == 0)
        return report_state();
    tap_plan(PLAN);
    if (access(recorder_path, R_OK) != 0) {
        for (int i = 0; i < PLAN; i++)
            tap_skip("recorder subscriber not built (set top_builddir)");
        return tap_done();
    }
    test_protocol();
    setenv("XPTI_SUBSCRIBERS", recorder_path, 1);
    unsetenv("XPTI_TRACE_ENABLE");
    tap_ok(xptiTraceEnabled(), "tracing is on with a valid subscriber");
    test_sycl_stream();
    return tap_done();
}
