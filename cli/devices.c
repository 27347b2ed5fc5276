/* SPDX-License-Identifier: MIT */
/* zestub devices [--json]: every Level Zero GPU device and sub-device, its
 * topology and whether a debugger can attach to it (and why not).
 * Exit: 0 listed (even when nothing is attachable), 1 no driver, 2 usage. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/json.h"
#include "zetdebug/zd.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: zestub devices [--json]\n"
               "Lists every Level Zero GPU device and sub-device: ids, PCI slot, UUID,\n"
               "topology and whether a debugger can attach to it (and why not).\n"
               "  --json   one JSON array of objects (fields: man zestub-devices)\n");
}

/* 8-4-4-4-12 hex, bytes in the order the driver gives them. */
static void uuid_str(const uint8_t *u, char *buf)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[k++] = '-';
        buf[k++] = hex[u[i] >> 4];
        buf[k++] = hex[u[i] & 15];
    }
    buf[k] = '\0';
}

static void print_json(FILE *f, const struct zd *zd)
{
    size_t n = zd_device_count(zd);
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        const struct zd_device *d = zd_device_at(zd, i);
        char uuid[40];
        uuid_str(d->uuid, uuid);
        fprintf(f, "%s\n  {\"index\": %u, ", i ? "," : "", d->index);
        if (d->parent < 0)
            fprintf(f, "\"parent\": null, \"subdevice_id\": null, ");
        else
            fprintf(f, "\"parent\": %d, \"subdevice_id\": %u, ", d->parent,
                    (unsigned)d->subdevice_id);
        fputs("\"name\": ", f);
        report_json_str(f, d->name);
        fprintf(f,
                ", \"vendor_id\": \"0x%04x\", \"device_id\": \"0x%04x\", \"pci_slot\": \"%s\", "
                "\"uuid\": \"%s\", \"slices\": %u, \"subslices_per_slice\": %u, "
                "\"eus_per_subslice\": %u, \"threads_per_eu\": %u, \"threads\": %u, "
                "\"sub_devices\": %u, \"can_attach\": %s, \"why_not\": ",
                (unsigned)d->vendor_id, (unsigned)d->device_id, d->pci_slot, uuid,
                (unsigned)d->slices, (unsigned)d->subslices, (unsigned)d->eus, (unsigned)d->threads,
                (unsigned)d->nthreads, d->nsub, d->can_attach ? "true" : "false");
        if (d->can_attach)
            fputs("null", f);
        else
            report_json_str(f, d->why_not);
        fputc('}', f);
    }
    fputs(n ? "\n]\n" : "]\n", f);
}

static void print_human(FILE *f, const struct zd *zd)
{
    size_t n = zd_device_count(zd);
    unsigned roots = 0, attachable = 0;
    for (size_t i = 0; i < n; i++) {
        const struct zd_device *d = zd_device_at(zd, i);
        roots += d->parent < 0;
        attachable += d->can_attach;
    }
    if (n == 0) {
        fprintf(f, "no Level Zero GPU device found\n");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const struct zd_device *d = zd_device_at(zd, i);
        char uuid[40];
        uuid_str(d->uuid, uuid);
        if (d->parent < 0)
            fprintf(f, "[%u] device: %s\n", d->index, d->name);
        else
            fprintf(f, "[%u] sub-device %u of [%d]: %s\n", d->index, (unsigned)d->subdevice_id,
                    d->parent, d->name);
        fprintf(f, "    id %04x:%04x  pci %s  uuid %s\n", (unsigned)d->vendor_id,
                (unsigned)d->device_id, d->pci_slot, uuid);
        fprintf(f, "    topology: %u slices x %u subslices x %u EUs x %u threads = %u threads\n",
                (unsigned)d->slices, (unsigned)d->subslices, (unsigned)d->eus, (unsigned)d->threads,
                (unsigned)d->nthreads);
        if (d->parent < 0 && d->nsub)
            fprintf(f, "    sub-devices: %u\n", d->nsub);
        if (d->can_attach)
            fprintf(f, "    attachable: yes\n");
        else
            fprintf(f, "    attachable: no: %s\n", d->why_not);
    }
    fprintf(f, "%zu device%s (%u root, %zu sub-device%s), %u attachable\n", n, n == 1 ? "" : "s",
            roots, n - roots, n - roots == 1 ? "" : "s", attachable);
}

int cli_devices(int argc, char **argv)
{
    bool json = false;
    struct zd *zd;
    struct zd_error err;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "zestub devices: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (zd_open(&zd, &err) != 0) {
        fprintf(stderr, "zestub: %s\n", err.msg);
        return 1;
    }
    if (json)
        print_json(stdout, zd);
    else
        print_human(stdout, zd);
    zd_close(zd);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("zestub devices: writing the list");
        return 1;
    }
    return 0;
}
