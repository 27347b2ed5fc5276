/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the conformance tests: the test process is the
 * debugger, the application under test is tests/conformance/debuggee, run as
 * a separate process. Only the public Level Zero API is used, so the suite
 * can run unchanged against a real Intel driver. */
#ifndef ZESTUB_TESTS_CONFORMANCE_CONF_UTIL_H
#define ZESTUB_TESTS_CONFORMANCE_CONF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ze_api.h>
#include <zet_api.h>

#include "tests/lib/tap.h"

/* zet_intel_gpu_debug.h is not installed with the Debian headers; these are
 * its register-set type values (level-zero-facts.md section 7). */
enum {
    CONF_REG_GRF = 1,
    CONF_REG_ADDR = 2,
    CONF_REG_FLAG = 3,
    CONF_REG_CE = 4,
    CONF_REG_SR = 5,
    CONF_REG_CR = 6,
    CONF_REG_TDR = 7,
    CONF_REG_ACC = 8,
    CONF_REG_MME = 9,
    CONF_REG_SP = 10,
    CONF_REG_SBA = 11,
    CONF_REG_DBG = 12,
};
#define CONF_SBA_INSTRUCTION_BASE 4

/* cr0 bits the tests rely on (intelgt-remote-protocol.md section 5). */
#define CONF_CR0_0_BP_SUPPRESS (1u << 15)
#define CONF_CR0_1_BREAKPOINT (1u << 31)
#define CONF_CR0_1_EXT_HALT (1u << 30)
#define CONF_CR0_1_PAGE_FAULT (1u << 16)

/* SLM addresses carry this tag bit (IGC's convention, facts section 8). */
#define CONF_SLM_TAG (1ull << 28)

/* Default deadline of every wait: long enough for a loaded CI machine, short
 * enough that a broken implementation fails instead of hanging. */
#define CONF_DEADLINE_MS 20000

extern const ze_device_thread_t conf_all_threads;

/* One debuggee process with a pipe to its stdin and one from its stdout. */
struct conf_app {
    pid_t pid;
    int in_fd;  /* we write commands here */
    int out_fd; /* we read its protocol lines here */
    int exited; /* reaped */
    int status; /* waitpid status once reaped */
    size_t len;
    char buf[8192];
};

/* Call first in main: arms the global watchdog, points the loader at gtsim
 * when GTSIM_LIB is set (leave it unset to test a real driver), runs the
 * --helper sub-command when argv asks for it (never returns then). */
void conf_init(int argc, char **argv, unsigned watchdog_s);

/* zeInit, first driver, root devices. Returns 0 on success. */
int conf_open(ze_driver_handle_t *driver, ze_device_handle_t *devices, uint32_t *count);
/* "gen12lp", "xehpg", "xehpc" or NULL from a device's PCI id. */
const char *conf_platform(ze_device_handle_t device);
const char *conf_result(ze_result_t r);
uint64_t conf_now_ms(void);

/* Starts the debuggee with the given arguments (NULL-terminated, without
 * argv[0]); debug != 0 sets ZET_ENABLE_PROGRAM_DEBUGGING=1, else removes it.
 * Returns 0 on success. */
int conf_app_start(struct conf_app *app, int debug, const char *const *args);
/* Waits up to timeout_ms for a line starting with prefix; earlier lines are
 * shown as TAP comments. Copies the line to out. 1 = found, 0 = not. */
int conf_app_expect(struct conf_app *app, const char *prefix, int timeout_ms, char *out,
                    size_t size);
int conf_app_send(struct conf_app *app, const char *line);
/* Reaps with a deadline: 1 = exited with status 0, 0 otherwise (killed on
 * timeout). */
int conf_app_finish(struct conf_app *app, int timeout_ms);
/* SIGKILL and reap; safe to call twice. */
void conf_app_kill(struct conf_app *app);

/* conf_app_start, then waits for "ready <pid>": 0 on success. */
int conf_app_start_ready(struct conf_app *app, int debug, const char *const *args);
/* conf_app_start_ready for a debuggee started with --wait-launch, then
 * lets it arm and launch its kernel ("armed", "launched"): 0 once the
 * kernel is submitted. */
int conf_app_start_launched(struct conf_app *app, int debug, const char *const *args);

/* On gtsim, slows threads down to `pace` instructions per second (added to
 * GTSIM_CONFIG unless it has a pace already) so kernels run long enough to
 * be interrupted; before conf_open, inherited by the debuggees. A real GPU
 * ignores it: see README.md for what that means for those tests. */
void conf_set_pace(unsigned pace);

/* Starts this test program again as a helper debugger process running
 * conf_helper commands (see conf_util.c); its stdout is a pipe to us. */
int conf_helper_start(struct conf_app *helper, const char *const *args);

/* zetDebugReadEvent until an event arrives or the deadline passes. */
ze_result_t conf_read_event(zet_debug_session_handle_t s, int timeout_ms, zet_debug_event_t *ev);
const char *conf_event_name(uint32_t type);
/* Waits for an event of this type, acknowledging NEED_ACK events on the way
 * (so a debuggee never blocks on us) and failing on none within timeout. */
int conf_wait_event(zet_debug_session_handle_t s, uint32_t type, int timeout_ms,
                    zet_debug_event_t *ev);

/* Collects events of one type until `want` arrived or timeout_ms passed,
 * acknowledging NEED_ACK events of other types. Returns how many. */
unsigned conf_collect(zet_debug_session_handle_t s, uint32_t type, unsigned want, int timeout_ms,
                      zet_debug_event_t *out, unsigned max);

int conf_thread_eq(ze_device_thread_t a, ze_device_thread_t b);
int conf_thread_is_all(ze_device_thread_t t);

/* Memory and registers through the session. */
ze_result_t conf_read_mem(zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t space,
                          uint64_t addr, size_t size, void *buf);
ze_result_t conf_write_mem(zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t space,
                           uint64_t addr, size_t size, const void *buf);
/* The debuggee's `loop` mode: the address of the flag its kernel loops on,
 * from its "flag 0x..." line (0 if it did not say within the deadline). */
uint64_t conf_app_loop_flag(struct conf_app *app);
/* Ends that loop: writes 0 to the flag as a debugger writes a variable, in
 * the default memory space of "all" threads. */
ze_result_t conf_end_loop(zet_debug_session_handle_t s, uint64_t flag);
/* Length of the instruction starting with these bytes (8 when compacted). */
unsigned conf_insn_len(const uint8_t *insn);
/* Sets the breakpoint control bit in an instruction's bytes. */
void conf_insn_set_bp(uint8_t *insn);
/* Offset from `load` of the n-th (0-based) instruction, decoded from the
 * ISA read through the session; also returns that instruction's length. */
int conf_nth_insn(zet_debug_session_handle_t s, uint64_t load, unsigned n, uint64_t *offset,
                  unsigned *len);
/* Plants a breakpoint at load+offset by writing the bit through memory. */
int conf_plant_bp(zet_debug_session_handle_t s, uint64_t addr);

ze_result_t conf_read_cr0(zet_debug_session_handle_t s, ze_device_thread_t t, uint32_t cr[4]);
ze_result_t conf_write_cr0(zet_debug_session_handle_t s, ze_device_thread_t t,
                           const uint32_t cr[4]);
ze_result_t conf_isabase(zet_debug_session_handle_t s, ze_device_thread_t t, uint64_t *base);
/* Clears the breakpoint status, sets suppress and resumes one thread. */
ze_result_t conf_continue_past_bp(zet_debug_session_handle_t s, ze_device_thread_t t);

/* Attaches to the debuggee's pid as one checked step; on failure the
 * debuggee is killed and 1 returned. Inline on purpose: tests/lib/tap.h keeps
 * its counters per translation unit, so the check must be counted in the
 * test's own unit (run.sh compares planned and run checks). */
static inline int conf_attach(ze_device_handle_t dev, struct conf_app *app,
                              zet_debug_session_handle_t *s)
{
    zet_debug_config_t cfg = {.pid = (uint32_t)app->pid};
    ze_result_t r = zetDebugAttach(dev, &cfg, s);
    if (!tap_ok(r == ZE_RESULT_SUCCESS, "attach: %s", conf_result(r))) {
        conf_app_kill(app);
        return 1;
    }
    return 0;
}

#endif
