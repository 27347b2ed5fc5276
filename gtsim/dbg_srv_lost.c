/* SPDX-License-Identifier: MIT */
/* The debuggee's side of a device lost on purpose (GTSIM_FAULTS): the
 * debuggers that see the device are told, then their connections are shut
 * down; each connection's thread then detaches as for a debugger that
 * died, so no thread stays stopped. */
#include <sys/socket.h>

#include "gtsim/dbg_server.h"
#include "gtsim/dbg_srv_int.h"

void gtsim_dbg_device_lost(struct gtsim_device *root)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    if (!srv)
        return;
    pthread_mutex_lock(&srv->lock);
    for (struct srv_session *s = srv->sessions; s; s = s->next) {
        if (!s->attached || s->root != root)
            continue;
        pthread_mutex_lock(&s->write_lock);
        (void)gtsim_dbg_send(s->event_fd, GTSIM_DBG_LOST, NULL, 0, NULL, 0);
        shutdown(s->event_fd, SHUT_RDWR);
        shutdown(s->fd, SHUT_RDWR);
        pthread_mutex_unlock(&s->write_lock);
    }
    pthread_mutex_unlock(&srv->lock);
}
