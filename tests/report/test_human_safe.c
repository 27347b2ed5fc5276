/* SPDX-License-Identifier: MIT */
/* The human dump on a terminal (issue 31, item 10): every string that came
 * from the debuggee or the environment (kernel, function and file names
 * from DWARF or the XPTI table, the program's path, the host, a damaged
 * table's note) reaches the page with its control characters escaped, in
 * both layouts (grouped classes and --all-threads), and plain names pass
 * unchanged. The emitter is driven directly with hostile records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/emitter.h"
#include "report/safe_text.h"
#include "tests/lib/tap.h"

/* An ESC starting a colour sequence, a C1 CSI (UTF-8 C2 9B), a lone 0x9B
 * byte, a newline that would start a forged line, and BEL. */
#define HOSTILE                                                                                    \
    "evil\x1b[31mred\xc2\x9b"                                                                      \
    "2J\x9b"                                                                                       \
    "x\nforged line\a"

/* 0 when text holds no control character but newline, no C1 pair and no
 * byte outside UTF-8's lead/continuation shapes that a terminal takes. */
static int terminal_safe(const char *text, char *why, size_t whylen)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; s[i]; i++) {
        if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f || s[i] == 0x9b ||
            (s[i] == 0xc2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)) {
            snprintf(why, whylen, "byte 0x%02x at offset %zu", s[i], i);
            return -1;
        }
    }
    return 0;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static struct dump_thread hostile_thread(uint32_t index)
{
    struct dump_thread t;
    memset(&t, 0, sizeof(t));
    t.thread = index;
    t.id.thread = index % 8;
    t.reason = ISA_STOP_BREAKPOINT;
    t.has_pc = true;
    t.pc = 0x1000;
    t.has_location = true;
    t.loc.kernel = HOSTILE;
    t.loc.function = HOSTILE;
    t.loc.file = HOSTILE ".cl";
    t.loc.has_line = true;
    t.loc.line = 7;
    return t;
}

/* Drives one emitter through a whole document of hostile strings. */
static char *document(bool grouped)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    struct report_emitter em;
    struct report_hang hang;
    struct report_end end;
    if (!mem)
        return NULL;
    em = report_human_new(mem, grouped);
    if (!em.ctx) {
        fclose(mem);
        free(text);
        return NULL;
    }
    em.ops->header(em.ctx, 42, "hang=" HOSTILE);
    em.ops->launch(em.ctx, 3, "host-" HOSTILE);
    memset(&hang, 0, sizeof(hang));
    hang.rule = REPORT_HANG_XPTI;
    hang.has_site = true;
    hang.in_flight = 1;
    snprintf(hang.site.kernel, sizeof(hang.site.kernel), "%s", HOSTILE);
    snprintf(hang.site.function, sizeof(hang.site.function), "%s", HOSTILE);
    snprintf(hang.site.file, sizeof(hang.site.file), "%s", HOSTILE);
    em.ops->hang(em.ctx, &hang);
    em.ops->xpti(em.ctx, NULL, "XPTI table unusable: " HOSTILE);
    em.ops->threads_begin(em.ctx, NULL, NULL, 0, DUMP_REGS_NONE);
    for (uint32_t i = 0; i < 4; i++) {
        struct dump_thread t = hostile_thread(i);
        em.ops->wants(em.ctx, &t);
        em.ops->thread(em.ctx, &t);
    }
    em.ops->threads_end(em.ctx, NULL);
    memset(&end, 0, sizeof(end));
    end.nthreads = 4;
    end.complete = false;
    end.failure = "cut short by " HOSTILE;
    end.launched = true;
    end.has_program = true;
    end.program_path = "/tmp/" HOSTILE;
    em.ops->end(em.ctx, &end);
    em.ops->free(em.ctx);
    fclose(mem);
    return text;
}

static void check_layout(bool grouped)
{
    const char *name = grouped ? "grouped classes" : "--all-threads";
    char why[64] = "";
    char *text = document(grouped);
    tap_ok(text != NULL, "%s: the human emitter wrote a document", name);
    if (!text) {
        for (int i = 0; i < 4; i++)
            tap_skip("no document");
        return;
    }
    tap_ok(terminal_safe(text, why, sizeof(why)) == 0, "%s: no raw control byte on the page (%s)",
           name, why[0] ? why : "none");
    /* Each hostile name is written escaped: the ESC as \x1b, the C1 CSI as
     * \u009b, the lone byte as \x9b, the newline as \x0a. Header, host,
     * hang kernel/file/function, note, the thread's function and file
     * (grouped: the class title and its representative; otherwise each of
     * the four threads), failure, program path. */
    int want = grouped ? 12 : 16;
    tap_ok(count(text, "evil\\x1b[31mred\\u009b2J\\x9bx\\x0aforged line\\x07") == want,
           "%s: every hostile string is there, escaped (%d of %d)", name,
           count(text, "evil\\x1b[31mred\\u009b2J\\x9bx\\x0aforged line\\x07"), want);
    tap_ok(count(text, "\nforged line") == 0, "%s: no name starts a line of its own", name);
    tap_ok(strstr(text, "zestub dump of process 42 (trigger: hang=") != NULL &&
               strstr(text, "rank 3 on host-") != NULL,
           "%s: the page around the names is unchanged", name);
    if (getenv("TEST_VERBOSE"))
        fputs(text, stderr);
    free(text);
}

static void check_plain(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    const char *plain = "vadd_kernel \xc3\xa9t\xc3\xa9 \\path\\ <\xe2\x9c\x93> \xf0\x9f\x94\xa5";
    if (!mem) {
        tap_ok(0, "open_memstream");
        return;
    }
    report_put_safe(mem, plain);
    fclose(mem);
    tap_ok(strcmp(text, plain) == 0, "plain names, UTF-8 and backslashes pass unchanged: '%s'",
           text);
    free(text);
}

int main(void)
{
    tap_plan(11);
    check_layout(true);
    check_layout(false);
    check_plain();
    return tap_done();
}
