/* SPDX-License-Identifier: MIT */
/* The core writer's output: a buffered writer at explicit file offsets,
 * with holes for bytes it skips (a core's unreadable memory costs no disk
 * space), and the little-endian/ELF-note helpers the core's parts share. */
#ifndef ZESTUB_REPORT_CORE_IO_H
#define ZESTUB_REPORT_CORE_IO_H

#include <stddef.h>
#include <stdint.h>

struct core_io {
    int fd;
    uint64_t off; /* file offset of buf[0] */
    uint8_t buf[1 << 16];
    size_t len;
    int err; /* errno of the first failure */
};

void core_io_flush(struct core_io *o);
void core_io_put(struct core_io *o, const void *p, size_t n);
void core_io_zeros(struct core_io *o, size_t n);
/* Leaves n bytes unwritten (a hole once the file is extended past them). */
void core_io_skip(struct core_io *o, uint64_t n);
uint64_t core_io_pos(const struct core_io *o);

void core_put_u32(uint8_t *p, uint32_t v);
void core_put_u64(uint8_t *p, uint64_t v);

size_t core_note_size(const char *name, size_t desc);
/* The note header and name; the caller writes desc bytes, then
 * core_note_end. */
void core_note_begin(struct core_io *o, const char *name, uint32_t type, size_t desc);
void core_note_end(struct core_io *o, size_t desc);

#endif
