/* SPDX-License-Identifier: MIT */
/* The primitives every part of the debug endpoint uses. */
#include <string.h>

#include "gtsim/dbg_srv_int.h"

/* Set once by gtsim_dbg_server_start under the driver's init lock. */
struct gtsim_dbg_server *gtsim_srv_the_server;

struct gtsim_device *gtsim_srv_root_of(struct gtsim_device *d)
{
    return d->root ? d->root : d;
}

void gtsim_srv_send_event(struct srv_session *s, const zet_debug_event_t *ev)
{
    pthread_mutex_lock(&s->write_lock);
    /* A failed send means the debugger is gone; its connection thread
     * notices the end of stream and cleans up. */
    (void)gtsim_dbg_send(s->event_fd, GTSIM_DBG_EVENT, ev, sizeof(*ev), NULL, 0);
    pthread_mutex_unlock(&s->write_lock);
}

void gtsim_srv_send_note(struct srv_session *s, uint32_t type, const void *a, size_t alen,
                         const void *b, size_t blen)
{
    pthread_mutex_lock(&s->write_lock);
    (void)gtsim_dbg_send(s->event_fd, type, a, alen, b, blen);
    pthread_mutex_unlock(&s->write_lock);
}

void gtsim_srv_reply_to(struct srv_session *s, int fd, ze_result_t r, const void *data, size_t len)
{
    struct gtsim_dbg_reply rep = {(int32_t)r, 0};
    pthread_mutex_lock(&s->write_lock);
    (void)gtsim_dbg_send(fd, GTSIM_DBG_REPLY, &rep, sizeof(rep), data, len);
    pthread_mutex_unlock(&s->write_lock);
}

void gtsim_srv_reply_fd(struct srv_session *s, ze_result_t r, const void *data, size_t len,
                        int pass_fd)
{
    struct gtsim_dbg_reply rep = {(int32_t)r, 0};
    uint8_t buf[sizeof(rep) + 256];
    if (pass_fd < 0 || len > sizeof(buf) - sizeof(rep)) {
        gtsim_srv_reply(s, r, data, len);
        return;
    }
    memcpy(buf, &rep, sizeof(rep));
    memcpy(buf + sizeof(rep), data, len);
    pthread_mutex_lock(&s->write_lock);
    (void)gtsim_dbg_send_fd(s->fd, GTSIM_DBG_REPLY, buf, sizeof(rep) + len, pass_fd);
    pthread_mutex_unlock(&s->write_lock);
}

void gtsim_srv_reply(struct srv_session *s, ze_result_t r, const void *data, size_t len)
{
    gtsim_srv_reply_to(s, s->fd, r, data, len);
}

bool gtsim_srv_covers(const struct srv_session *s, const struct gtsim_device *d)
{
    return s->attached && s->root == gtsim_srv_root_of((struct gtsim_device *)d) &&
           (s->device == d || !s->device->root || !d->root);
}

void gtsim_srv_module_event(struct gtsim_module *m, zet_debug_event_type_t type,
                            zet_debug_event_flags_t flags, zet_debug_event_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->type = type;
    ev->flags = flags;
    ev->info.module.format = ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF;
    ev->info.module.moduleBegin = (uint64_t)(uintptr_t)m->debug_image;
    ev->info.module.moduleEnd = (uint64_t)(uintptr_t)m->debug_image + m->debug_size;
    ev->info.module.load = m->load;
}
