/* SPDX-License-Identifier: MIT */
/* The one duration parser of the command line (duration.h): --timeout
 * once took only plain seconds while --on hang= took units, and users
 * wrote 5s in both. */
#include "cli/duration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_duration(const char *text, double max_s, bool zero_ok, double *seconds)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1}, {"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
    char *end;
    double v;
    /* strtod would skip spaces and take a sign, "inf", "nan" or hex. */
    if (!text || !(text[0] == '.' || (text[0] >= '0' && text[0] <= '9')))
        return -1;
    v = strtod(text, &end);
    if (end == text || !isfinite(v) || strpbrk(text, "xXpP"))
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) != 0)
            continue;
        v *= units[i].scale;
        if (v < 0 || (v == 0 && !zero_ok) || v > max_s)
            return -1;
        *seconds = v;
        return 0;
    }
    return -1;
}
