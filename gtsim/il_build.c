/* SPDX-License-Identifier: MIT */
/* SPIR-V -> zebin with ocloc (il_build.h): find the compiler, translate
 * the Level Zero build flags to ocloc's, specialize, look in the cache,
 * else run ocloc in a private temporary directory and keep its words. */
#include "gtsim/il_build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gtsim/il_cache.h"
#include "gtsim/spirv_spec.h"

/* ocloc's -device per platform (platform.h). */
static const char *const ocloc_device[GTSIM_PLATFORM_COUNT] = {
    [GTSIM_GEN12LP] = "tgllp", [GTSIM_XEHPG] = "dg2", [GTSIM_XEHPC] = "pvc"};

/* Appends to a malloc'd string; keeps the old one when memory runs out. */
static void append(char **s, const char *fmt, ...)
{
    char *add = NULL, *n;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&add, fmt, ap) < 0)
        add = NULL;
    va_end(ap);
    if (!add)
        return;
    n = realloc(*s, (*s ? strlen(*s) : 0) + strlen(add) + 1);
    if (n) {
        if (!*s)
            n[0] = 0;
        strcat(n, add);
        *s = n;
    }
    free(add);
}

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* GTSIM_OCLOC (a path, or a name looked up in PATH), else "ocloc" in PATH;
 * 0 and the path in out, or -1. */
static int find_ocloc(char *out, size_t outlen)
{
    const char *want = getenv("GTSIM_OCLOC"), *path = getenv("PATH");
    char dirs[4096], *save = NULL;
    if (!want || !*want)
        want = "ocloc";
    if (strchr(want, '/')) {
        snprintf(out, outlen, "%s", want);
        return is_executable_file(out) ? 0 : -1;
    }
    snprintf(dirs, sizeof(dirs), "%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, outlen, "%s/%s", *d ? d : ".", want);
        if (is_executable_file(out))
            return 0;
    }
    return -1;
}

/* Level Zero build flags -> ocloc's -options and -internal_options, as
 * Intel's runtime moves its -ze-* options to the compiler's names. An
 * option with no ocloc counterpart is dropped and named in the log. */
static void translate_flags(const char *flags, char **opts, char **internal, char **log)
{
    char *copy = strdup(flags ? flags : ""), *save = NULL;
    *opts = strdup("");
    *internal = strdup("");
    if (!copy || !*opts || !*internal) {
        free(copy);
        return;
    }
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
        if (strcmp(t, "-ze-opt-disable") == 0)
            append(opts, "%s-cl-opt-disable", **opts ? " " : "");
        else if (strcmp(t, "-ze-opt-greater-than-4GB-buffer-required") == 0)
            append(internal, "%s-cl-intel-greater-than-4GB-buffer-required", **internal ? " " : "");
        else if (strcmp(t, "-ze-opt-large-register-file") == 0)
            append(internal, "%s-cl-intel-256-GRF-per-thread", **internal ? " " : "");
        else if (strncmp(t, "-ze-", 4) == 0 || strncmp(t, "-zet-", 5) == 0)
            append(log, "gtsim: build option %s has no ocloc equivalent; ignored\n", t);
        else
            append(opts, "%s%s", **opts ? " " : "", t);
    }
    free(copy);
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4200];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The lines ocloc prints on every build, which say nothing about this one. */
static void drop_boilerplate(char *text)
{
    static const char *const lines[] = {"Compilation from IR - skipping loading of FCL\n",
                                        "Build succeeded.\n"};
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        char *at = strstr(text, lines[i]);
        if (at)
            memmove(at, at + strlen(lines[i]), strlen(at + strlen(lines[i])) + 1);
    }
}

/* Runs ocloc on il in a temporary directory: 0 with the zebin, or -1;
 * *log gets what ocloc printed either way. */
/* ocloc's command line: SPIR-V in, a zebin named "module" in dir out. */
static void ocloc_argv(const char *argv[20], const char *ocloc, enum gtsim_platform platform,
                       const char *in, const char *dir, const char *opts, const char *internal)
{
    int argc = 0;
    argv[argc++] = ocloc;
    argv[argc++] = "compile";
    argv[argc++] = "-spirv_input";
    argv[argc++] = "-file";
    argv[argc++] = in;
    argv[argc++] = "-device";
    argv[argc++] = ocloc_device[platform];
    argv[argc++] = "--format";
    argv[argc++] = "zebin";
    argv[argc++] = "-output";
    argv[argc++] = "module";
    argv[argc++] = "-output_no_suffix";
    argv[argc++] = "-out_dir";
    argv[argc++] = dir;
    if (*opts) {
        argv[argc++] = "-options";
        argv[argc++] = opts;
    }
    if (*internal) {
        argv[argc++] = "-internal_options";
        argv[argc++] = internal;
    }
    argv[argc] = NULL;
}

/* Starts path with argv, stdin /dev/null, stdout and stderr into logfd;
 * the child's pid, or -1. The child only calls async-signal-safe
 * functions: the application may have other threads holding locks. */
static pid_t spawn_into(const char *path, const char *const *argv, int logfd)
{
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        execv(path, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static int run_ocloc(const char *ocloc, enum gtsim_platform platform, const void *il,
                     size_t il_size, const char *opts, const char *internal, void **bin,
                     size_t *bin_size, char **log)
{
    const char *tmpdir = getenv("TMPDIR");
    char dir[4096], in[4200], out[4200], logpath[4200];
    const char *argv[20];
    int status = -1, logfd;
    size_t n;
    char *words;
    pid_t pid;

    snprintf(dir, sizeof(dir), "%s/gtsim-ocloc-XXXXXX",
             tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        append(log, "gtsim: cannot create a temporary directory for ocloc: %s\n", strerror(errno));
        return -1;
    }
    snprintf(in, sizeof(in), "%s/module.spv", dir);
    snprintf(out, sizeof(out), "%s/module", dir);
    snprintf(logpath, sizeof(logpath), "%s/ocloc.log", dir);
    if (gtsim_il_write_at(AT_FDCWD, in, il, il_size) != 0 ||
        (logfd = open(logpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        append(log, "gtsim: cannot write ocloc's input in %s\n", dir);
        remove_dir(dir);
        return -1;
    }
    ocloc_argv(argv, ocloc, platform, in, dir, opts, internal);
    pid = spawn_into(ocloc, argv, logfd);
    close(logfd);
    if (pid < 0) {
        append(log, "gtsim: cannot start %s: %s\n", ocloc, strerror(errno));
        remove_dir(dir);
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    words = gtsim_il_read_at(AT_FDCWD, logpath, false, &n);
    if (words) {
        drop_boilerplate(words);
        append(log, "%s", words);
        free(words);
    }
    *bin = WIFEXITED(status) && WEXITSTATUS(status) == 0
               ? gtsim_il_read_at(AT_FDCWD, out, false, bin_size)
               : NULL;
    /* An application that ignores SIGCHLD loses the status (ECHILD): then
     * the output file alone says whether ocloc built the module. */
    if (!*bin && status == -1)
        *bin = gtsim_il_read_at(AT_FDCWD, out, false, bin_size);
    if (!*bin)
        append(log, "gtsim: %s could not compile the module for -device %s (exit status %d)\n",
               ocloc, ocloc_device[platform], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    remove_dir(dir);
    return *bin ? 0 : -1;
}

/* The IL to compile: a copy with the constants applied, or NULL with the
 * reason in the log. */
static uint32_t *specialized_il(const void *il, size_t il_size, const ze_module_constants_t *c,
                                char **log)
{
    char err[256];
    uint32_t *w;
    if (il_size % 4 || il_size < 20) {
        append(log, "gtsim: a SPIR-V module is a whole number of 32-bit words, at least five\n");
        return NULL;
    }
    if (!(w = malloc(il_size)))
        return NULL;
    memcpy(w, il, il_size);
    if (c && c->numConstants &&
        gtsim_spirv_specialize(w, il_size / 4, c->numConstants, c->pConstantIds, c->pConstantValues,
                               err, sizeof(err)) != 0) {
        append(log, "gtsim: %s\n", err);
        free(w);
        return NULL;
    }
    return w;
}

ze_result_t gtsim_il_build(enum gtsim_platform platform, const void *il, size_t il_size,
                           const char *flags, const ze_module_constants_t *constants,
                           struct gtsim_il_result *out)
{
    static const char tag[] = "gtsim-il-1";
    char ocloc[4096], key[GTSIM_IL_KEY_LEN], why[512], stamp[64];
    char *opts = NULL, *internal = NULL;
    uint32_t *w = NULL;
    struct stat st;
    int cache = -1;
    ze_result_t r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;

    memset(out, 0, sizeof(*out));
    out->log = strdup("");
    if (!out->log)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    translate_flags(flags, &opts, &internal, &out->log);
    if (!opts || !internal) {
        r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        goto done;
    }
    if (!(w = specialized_il(il, il_size, constants, &out->log)))
        goto done;
    if (find_ocloc(ocloc, sizeof(ocloc)) != 0 || stat(ocloc, &st) != 0) {
        append(&out->log,
               "gtsim: cannot compile SPIR-V: no ocloc (%s). Install Debian's package "
               "intel-opencl-icd, which provides /usr/bin/ocloc, or set GTSIM_OCLOC to "
               "its path.\n",
               getenv("GTSIM_OCLOC") && *getenv("GTSIM_OCLOC") ? getenv("GTSIM_OCLOC")
                                                               : "not found in PATH");
        goto done;
    }
    /* Another compiler makes another binary: its identity is in the key. */
    snprintf(stamp, sizeof(stamp), "%lld:%lld", (long long)st.st_size, (long long)st.st_mtime);
    {
        const void *parts[] = {tag, ocloc_device[platform], ocloc, stamp, opts, internal, w};
        size_t lens[] = {sizeof(tag),   strlen(ocloc_device[platform]),
                         strlen(ocloc), strlen(stamp),
                         strlen(opts),  strlen(internal),
                         il_size};
        gtsim_il_cache_key(parts, lens, 7, key);
    }
    cache = gtsim_il_cache_open(why, sizeof(why));
    if (cache >= 0 && (out->zebin = gtsim_il_cache_get(cache, key, ".zebin", &out->zebin_size))) {
        size_t n;
        char *words = gtsim_il_cache_get(cache, key, ".log", &n);
        if (words) {
            append(&out->log, "%s", words);
            free(words);
        }
        r = ZE_RESULT_SUCCESS;
        goto done;
    }
    if (cache < 0)
        append(&out->log, "gtsim: not caching the compiled module: %s\n", why);
    {
        char *words = strdup("");
        if (words && run_ocloc(ocloc, platform, w, il_size, opts, internal, &out->zebin,
                               &out->zebin_size, &words) == 0) {
            r = ZE_RESULT_SUCCESS;
            if (cache >= 0) {
                gtsim_il_cache_put(cache, key, ".log", words, strlen(words));
                gtsim_il_cache_put(cache, key, ".zebin", out->zebin, out->zebin_size);
            }
        }
        if (words)
            append(&out->log, "%s", words);
        free(words);
    }
done:
    if (cache >= 0)
        close(cache);
    free(w);
    free(opts);
    free(internal);
    return r;
}
