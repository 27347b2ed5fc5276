/* SPDX-License-Identifier: MIT */
/* An application-side program that drives the dispatcher as a SYCL runtime
 * does (tests/xpti/sycl_flow.c). Run it with XPTI_SUBSCRIBERS to feed a
 * subscriber; as a test it reports in TAP. Usage: sycl_app [submissions] */
#include <inttypes.h>
#include <stdlib.h>

#include "tests/lib/tap.h"
#include "tests/xpti/sycl_flow.h"

int main(int argc, char **argv)
{
    struct sycl_flow flow = {.submissions = argc > 1 ? atoi(argv[1]) : 3};
    tap_plan(2);
    xptiFrameworkInitialize();
    tap_ok(sycl_flow_run(&flow) == 0, "the sycl flow ran (%d dispatcher surprises)",
           flow.api_failures);
    tap_ok(flow.graph_uid && flow.node_uid && flow.edge_uid, "graph, node and edge have ids");
    tap_diag("graph %" PRIx64 " node %" PRIx64 " edge %" PRIx64 " tracing %s", flow.graph_uid,
             flow.node_uid, flow.edge_uid, xptiTraceEnabled() ? "on" : "off");
    xptiFrameworkFinalize();
    return tap_done();
}
