/* SPDX-License-Identifier: MIT */
#include "tests/sessions/sess_launch.h"

#include <time.h>

int sess_test_launch(struct conf_app *app, struct sess_manager *m, uint64_t deadline_ms)
{
    uint64_t end = conf_now_ms() + deadline_ms;
    struct sess_note n;
    struct zd_error err;
    conf_app_send(app, "go");
    while (conf_now_ms() < end) {
        if (sess_wait(m, 100, &n) == 0 && n.type == SESS_NOTE_MODULE_LOAD && n.need_ack) {
            sess_module_release(m, n.session, n.module_begin, n.module_end, &err);
            break;
        }
    }
    if (!conf_app_expect(app, "armed", (int)deadline_ms, NULL, 0))
        return -1;
    conf_app_send(app, "launch");
    if (!conf_app_expect(app, "launched", (int)deadline_ms, NULL, 0))
        return -1;
    nanosleep(&(struct timespec){0, 300 * 1000000L}, NULL);
    return 0;
}

uint64_t sess_test_reads(struct zd *zd)
{
    struct zd_stats st;
    zd_get_stats(zd, &st);
    return st.read_registers;
}
