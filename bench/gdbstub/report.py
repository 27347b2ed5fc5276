# SPDX-License-Identifier: MIT
"""Medians, minima and the printed table. Figures are never judged here:
bench/README.md explains why a benchmark only reports."""

import statistics


def med_min(samples):
    return statistics.median(samples), min(samples)


def fmt_time(s):
    if s < 1e-3:
        return "%.1f us" % (s * 1e6)
    if s < 1:
        return "%.2f ms" % (s * 1e3)
    return "%.2f s" % s


def fmt_ratio(r):
    return ("%.1f x" if r < 10 else "%.0f x") % r


def fmt_rate(bytes_, s):
    return "%.1f MB/s" % (bytes_ / s / 1e6)


class Table:
    HEAD = ("measurement", "reps", "median", "best", "vs baseline", "notes")

    def __init__(self, title):
        self.title = title
        self.rows = []

    def time_row(self, name, samples, rtt, notes=""):
        """A latency: median and minimum, the median as loopback RTTs."""
        med, low = med_min(samples)
        self.rows.append((name, str(len(samples)), fmt_time(med), fmt_time(low),
                          fmt_ratio(med / rtt) + " RTT" if rtt else "-", notes))
        return med

    def rate_row(self, name, samples, nbytes, ceiling, notes=""):
        """A throughput: from the median and the minimum time of a pass,
        the median as a share of the loopback bulk ceiling (bytes/s)."""
        med, low = med_min(samples)
        self.rows.append((name, str(len(samples)), fmt_rate(nbytes, med), fmt_rate(nbytes, low),
                          "%.0f%% of loopback" % (100.0 * nbytes / med / ceiling), notes))

    def note_row(self, name, text):
        """Something zestub did wrong that does not void the figures."""
        self.rows.append((name, "-", "-", "-", "-", text))

    def error_row(self, name, why):
        self.rows.append((name, "-", "-", "-", "-", "ERROR: " + why))

    def render(self):
        rows = [self.HEAD] + self.rows
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        out = [self.title]
        for r in rows:
            cells = [r[0].ljust(widths[0])] + [r[i].rjust(widths[i]) for i in range(1, 5)]
            out.append("  " + "  ".join(cells) + ("  " + r[5] if r[5] else ""))
        return "\n".join(out)
