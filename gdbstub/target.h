/* SPDX-License-Identifier: MIT */
/* The one interface through which the RSP server sees the debug model: a
 * table of functions plus an opaque context. The server calls them from its
 * single event-loop thread only; nothing here is called concurrently.
 *
 * Model (intelgt-remote-protocol.md 1): every attached device is a
 * "process" with pid = device ordinal from 1; its hardware threads are lwps
 * 1..nthreads, all existing from attach to detach. A thread's registers are
 * described by a target description (tdesc) with a small global id >= 1.
 *
 * Return values: 0 on success, RSP_TARGET_UNAVAILABLE where documented, a
 * negative errno-style code on failure with a sentence in err (errlen bytes,
 * may be left empty). */
#ifndef ZESTUB_GDBSTUB_TARGET_H
#define ZESTUB_GDBSTUB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/monitor.h"

struct regs_catalog; /* regsets/regs.h: the register layout of a tdesc */
struct rsp_buf;      /* gdbstub/packet.h */

/* Registers of an unavailable thread (idle or running other work). */
#define RSP_TARGET_UNAVAILABLE 1
/* attach: at least one device said "not ready yet"; Intel's GDB retries. */
#define RSP_TARGET_TOO_EARLY (-11) /* -EAGAIN */

enum rsp_thread_state {
    RSP_THREAD_RUNNING = 0,
    RSP_THREAD_STOPPED,
    RSP_THREAD_UNAVAILABLE,
};

struct rsp_process_info {
    uint32_t pid;      /* device ordinal, from 1 */
    uint32_t nthreads; /* lwps are 1..nthreads */
};

struct rsp_thread_info {
    enum rsp_thread_state state;
    uint32_t tdesc; /* id of its current target description, >= 1 */
    /* The hardware position, shown as id_str "ZE s.ss.eu.t". */
    uint32_t slice, subslice, eu, thread;
};

/* The <device> element of a target description (protocol 3.1). */
struct rsp_device_info {
    uint16_t vendor_id, device_id;
    char name[128];
    char pci_slot[16]; /* "dddd:bb:dd.f" */
    uint8_t uuid[16];  /* in driver order; written last byte first */
    bool has_uuid;
    uint32_t total_cores, total_threads;
    int32_t subdevice_id; /* -1: a root device (no attribute) */
};

struct rsp_tdesc {
    const struct regs_catalog *regs; /* owned by the target, valid until detach */
    uint32_t pid;                    /* whose <device> element it carries */
};

/* Memory access: the thread context and address space, after the server
 * has decoded "@space" and tagged addresses (protocol 8). */
struct rsp_mem_ref {
    uint32_t pid;
    uint32_t tid;   /* 0: the device's "all" thread (default space only) */
    uint32_t space; /* 0 default, 1 SLM */
    uint64_t addr;
};

enum rsp_resume_kind {
    RSP_RESUME_CONTINUE = 0,
    RSP_RESUME_STEP,
    RSP_RESUME_STOP,  /* vCont;t */
    RSP_RESUME_RANGE, /* vCont;rSTART,END: step while the PC is in [start, end) */
};

/* One vCont action. pid/tid -1 is a wildcard; (P, -1) means every thread of
 * device P, (-1, -1) every thread of every device. */
struct rsp_resume {
    enum rsp_resume_kind kind;
    int64_t pid, tid;
    uint64_t start, end; /* RANGE */
};

enum rsp_event_kind {
    RSP_EVENT_STOP = 1,    /* T: a thread stopped (signal, swbreak) */
    RSP_EVENT_UNAVAILABLE, /* U pP.T: a requested thread could not be stopped */
    RSP_EVENT_LIBRARY,     /* U pP.0;library: the library list changed */
    RSP_EVENT_EXITED,      /* W code;process:P: the device is gone */
    RSP_EVENT_KILLED,      /* X sig;process:P: process-level fault */
};

struct rsp_event {
    enum rsp_event_kind kind;
    uint32_t pid, tid;
    int signal;   /* GDB signal number (STOP, KILLED) */
    bool swbreak; /* STOP: a software breakpoint */
    int code;     /* EXITED: the exit code (1 = host exit) */
    /* STOP: the client's interrupt stopped the thread (^C, vCtrlC, vCont;t),
     * not an event of its own; signal is the target's, the server chooses
     * what the client is told (stopreply.c). */
    bool interrupted;
    /* next_event < 0: why, for the client (target-owned, valid until the
     * next call), or NULL. */
    const char *error;
};

/* A module a device process has loaded: an ELF in the debuggee's memory
 * (GDB reads [begin, end) with ordinary memory reads). */
struct rsp_library {
    uint64_t begin, end;
    uint64_t load;  /* where its code is on the device */
    bool needs_ack; /* the load waits for the client's vAck */
};

/* vRun (extended-remote `run`): the program and what the client set
 * before it (QEnvironment*, QSetWorkingDir). */
struct rsp_run_request {
    char *const *argv; /* argv[0] the program; NULL-terminated */
    /* The client's changes to the server's environment, in order: "NAME=VALUE"
     * sets NAME, "NAME" (no '=') unsets it. */
    char *const *env;
    size_t nenv;
    const char *cwd; /* NULL: the server's own directory */
};

/* ---- Capabilities ----
 *
 * What the target can do beyond the required ops is grouped by what a
 * client is offered: one table per capability, pointed to from struct
 * rsp_target_ops. A capability is offered exactly when its pointer is
 * non-NULL; a table that is present has every one of its functions (the
 * server checks each table once, in rsp_server_new, and refuses a target
 * with a half-filled one: "target interface incomplete: the libraries
 * table has no ack_library"). Which packets and qSupported tokens follow
 * from which table is decided in one place, gdbstub/offers.c. */

/* Libraries: modules as in-memory libraries (qXfer:libraries:read, vAck,
 * the `library` stop event). Without: no libraries are announced, both
 * packets get the empty reply, LIBRARY events are dropped. */
struct rsp_libraries_ops {
    /* The modules of device process pid; LIBRARY events say the list
     * changed (a load that waits for an acknowledgement, or an unload). */
    size_t (*library_count)(void *ctx, uint32_t pid);
    int (*library_at)(void *ctx, uint32_t pid, size_t i, struct rsp_library *out);
    /* Releases a waiting load (pid 0: the first process that has one with
     * that range); -ENOENT when none matches. */
    int (*ack_library)(void *ctx, uint32_t pid, uint64_t begin, uint64_t end, char *err,
                       size_t errlen);
};

/* Software breakpoints planted by the server, the ISA's way (gdbstub
 * knows no ISA): Z0/z0 for a client without the Intel GT architecture
 * (which needs the PC to see where it stopped: the host view's rip), and
 * the entry breakpoints with which Intel's GDB's vRun runs to the first
 * kernel. Without: Z0- and the empty reply to Z0/z0, rip unavailable in
 * the host view, Intel's vRun answered with the attach's stop. */
struct rsp_sw_breakpoints_ops {
    /* A breakpoint at addr of device process pid (Intel GT: the breakpoint
     * control bit of the instruction there). insert: *was_set when it was
     * there already (the client's or the module's own; the server then
     * never removes it). Both fail when there is no code at addr. */
    int (*insert)(void *ctx, uint32_t pid, uint64_t addr, bool *was_set, char *err, size_t errlen);
    int (*remove)(void *ctx, uint32_t pid, uint64_t addr, char *err, size_t errlen);
    /* The program counter of a stopped thread; negative or
     * RSP_TARGET_UNAVAILABLE when it has none. */
    int (*thread_pc)(void *ctx, uint32_t pid, uint32_t tid, uint64_t *pc, char *err, size_t errlen);
    /* The first instruction of each kernel of pid's loaded modules: up to
     * max stored in addrs (none when max is 0), the number there is
     * returned. */
    size_t (*kernel_entries)(void *ctx, uint32_t pid, uint64_t *addrs, size_t max);
};

/* Programs: extended mode's `run` and `kill` (vRun, vKill, and the
 * QEnvironment*, QSetWorkingDir, QStartupWithShell packets GDB sends
 * before vRun), offered with --multi. Without: vRun gets the empty reply,
 * the Q packets are not announced, vKill is E01. */
struct rsp_programs_ops {
    /* Starts req's program held before its first Level Zero module is
     * created; *host_pid is the process to attach to (the server attaches
     * as for vAttach, then calls release: attached, the program goes on and
     * its first module load is reported like any other; not attached, it
     * is killed). */
    int (*create)(void *ctx, const struct rsp_run_request *req, uint32_t *host_pid, char *err,
                  size_t errlen);
    void (*release)(void *ctx, uint32_t host_pid, bool attached);
    /* vKill of a program create started, after the server detached its
     * devices: kill it and reap it. */
    int (*kill)(void *ctx, uint32_t host_pid, char *err, size_t errlen);
    /* How a program create started ended, once it has (the device exit
     * arrives first; this waits a moment for the reaping): 0 with *signal >
     * 0 (killed by it) or *code (its exit status); negative when unknown;
     * the signal in GDB's numbering. The server reports it instead of the
     * device exit's code. */
    int (*program_status)(void *ctx, uint32_t host_pid, int *code, int *signal);
};

/* Non-stop (QNonStop+). Without: all-stop only, QNonStop:1 is E01. */
struct rsp_non_stop_ops {
    /* A thread's stop stops no other thread, attach stops nothing, and
     * each thread is resumed by itself. Set before attaching. */
    void (*set_non_stop)(void *ctx, bool on);
};

/* The target's own `monitor` commands. Without: only the server's (help,
 * exit). */
struct rsp_monitor_ops {
    /* *n rows of gdbstub/monitor.h whose functions get ctx. The server
     * matches each command against its own and these, and builds `monitor
     * help` from both; the rows may depend on the target's settings. */
    const struct rsp_monitor_cmd *(*commands)(void *ctx, size_t *n);
};

/* Thread names: the name attribute of qXfer:threads:read (GDB shows it in
 * `info threads`; Intel's server sends none). Without: no names. */
struct rsp_thread_names_ops {
    /* A short name for a stopped thread, e.g. "vadd @ vadd.cl:6". Called
     * for every stopped thread each time the list is built, so it must be
     * cheap. 0 and a NUL-terminated buf, or negative: no name. */
    int (*thread_name)(void *ctx, uint32_t pid, uint32_t tid, char *buf, size_t len);
};

/* Signal information: qXfer:siginfo:read (`p $_siginfo`). Without: the
 * packet is neither announced nor answered. */
struct rsp_siginfo_ops {
    /* The signal information of a stopped thread as the client's
     * architecture lays it out: at most len bytes into buf; the number
     * written, or negative with a sentence in err (a running thread has
     * none). */
    int (*thread_siginfo)(void *ctx, uint32_t pid, uint32_t tid, uint8_t *buf, size_t len,
                          char *err, size_t errlen);
};

/* Process exits while attached. Without: no process ever exits while
 * attached (only its EXITED event, if any, says so). */
struct rsp_exits_ops {
    /* True once the application of device process pid has ended, until
     * the next attach. Until its EXITED (or KILLED) event has been taken
     * the process stays listed, its threads unavailable, and that event is
     * the next one next_event returns (an exit is reported before anything
     * else of any device): the server answers the next resume or '?' with
     * it. Register and memory ops naming it fail saying it exited; detach
     * succeeds. */
    bool (*process_exited)(void *ctx, uint32_t pid);
};

/* The required ops (all non-NULL) and the capability tables (each NULL or
 * complete). */
struct rsp_target_ops {
    /* vAttach: attach every supported device of the host process and, in
     * all-stop, stop them; *stop is the reply (a STOP or UNAVAILABLE event
     * of the last device attached). On failure err holds one line per device
     * ("Device N [name] : reason"); RSP_TARGET_TOO_EARLY when a device was
     * not ready ("attempting to attach too early"). */
    int (*attach)(void *ctx, uint32_t host_pid, struct rsp_event *stop, char *err, size_t errlen);
    /* Devices currently attached, in pid order. */
    size_t (*process_count)(void *ctx);
    int (*process_at)(void *ctx, size_t i, struct rsp_process_info *out);
    int (*thread_info)(void *ctx, uint32_t pid, uint32_t tid, struct rsp_thread_info *out);
    int (*tdesc)(void *ctx, uint32_t id, struct rsp_tdesc *out);
    /* The <device> element of a tdesc carrying pid; negative: none. */
    int (*device_info)(void *ctx, uint32_t pid, struct rsp_device_info *out);

    /* Register regnum of the thread's tdesc, byte_size bytes, target byte
     * order. RSP_TARGET_UNAVAILABLE when the thread has no readable state.
     * The server refuses writes to read-only registers itself. */
    int (*read_register)(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum, uint8_t *buf,
                         size_t size, char *err, size_t errlen);
    int (*write_register)(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum,
                          const uint8_t *buf, size_t size, char *err, size_t errlen);

    /* Reads up to len bytes; *done is how many were read (a short read is
     * fine, the client asks for the rest). */
    int (*read_memory)(void *ctx, const struct rsp_mem_ref *ref, uint8_t *buf, size_t len,
                       size_t *done, char *err, size_t errlen);
    int (*write_memory)(void *ctx, const struct rsp_mem_ref *ref, const uint8_t *buf, size_t len,
                        char *err, size_t errlen);

    /* One vCont packet (or c/s), actions in the client's order: the leftmost
     * action that matches a thread wins. The target batches wildcards into
     * one resume per device. Stop events follow through next_event. A step
     * (or range step) of an end-of-thread instruction is not armed: the
     * thread runs its end and is reported UNAVAILABLE (protocol 1.3). A
     * range step reports only when the PC leaves the range or the thread
     * stops for another reason. */
    int (*resume)(void *ctx, const struct rsp_resume *actions, size_t n, char *err, size_t errlen);
    /* ^C / vCtrlC: stop everything (one device-wide interrupt per device);
     * the stop arrives through next_event. */
    int (*interrupt)(void *ctx, char *err, size_t errlen);
    /* D;P: resume every thread of the device, detach, forget it. */
    int (*detach)(void *ctx, uint32_t pid, char *err, size_t errlen);

    /* Readable when next_event may have an event; -1 when there is no
     * descriptor (the server then polls next_event every few ms). */
    int (*event_fd)(void *ctx);
    /* 1 and *ev filled, 0 when nothing is pending, negative on error. In
     * all-stop, a STOP event means every device has been stopped. */
    int (*next_event)(void *ctx, struct rsp_event *ev);

    /* The client disconnected: resume what was stopped, send pending
     * acknowledgements, detach every device. */
    void (*client_gone)(void *ctx);
    /* Optional: the client served from now on, confined or not
     * (gdbstub/confine.h: another user let in by --allow-any-user) with its
     * peer's uid; called when a connection starts and, unconfined, when it
     * ends. A target whose commands write files keeps it for them. */
    void (*client)(void *ctx, bool confined, uint32_t uid);

    /* Capabilities (see above): NULL, or a table with every function. */
    const struct rsp_libraries_ops *libraries;
    const struct rsp_sw_breakpoints_ops *sw_breakpoints;
    const struct rsp_programs_ops *programs;
    const struct rsp_non_stop_ops *non_stop;
    const struct rsp_monitor_ops *monitor;
    const struct rsp_thread_names_ops *thread_names;
    const struct rsp_siginfo_ops *siginfo;
    const struct rsp_exits_ops *exits;
};

struct rsp_target {
    const struct rsp_target_ops *ops;
    void *ctx;
};

#endif
