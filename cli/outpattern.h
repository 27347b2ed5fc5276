/* SPDX-License-Identifier: MIT */
/* The rank of this process in a job, from the launcher's environment, and
 * output file names with %r (rank), %p (pid), %h (host name), %% ('%'). */
#ifndef ZESTUB_CLI_OUTPATTERN_H
#define ZESTUB_CLI_OUTPATTERN_H

#include <stdbool.h>
#include <stddef.h>

/* OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI), PMIX_RANK
 * (PMIx launchers), SLURM_PROCID (srun), the first one set to a number;
 * -1 when none is. *from names the variable (NULL for none). */
long out_rank(const char **from);
/* This machine's host name ("unknown" if it has none). */
void out_host(char *buf, size_t len);
/* Expands pattern into buf. A missing rank (-1) expands to 0: a process
 * started without a launcher is rank 0 of a job of one. 0, or -1 with err
 * set (unknown %-sequence, or the name does not fit). */
int out_expand(const char *pattern, long rank, long pid, char *buf, size_t len, char *err,
               size_t errlen);
/* The number of ranks in the job: OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 * SLURM_NTASKS or SLURM_NPROCS, the first set to a number; -1 if none. */
long out_job_size(void);
/* Whether pattern names one file per rank: it has %r or %p. */
bool out_varies_by_rank(const char *pattern);
/* The name this rank writes: pattern expanded (out_expand with this
 * process's rank), then, when the process is one rank of several and the
 * pattern has neither %r nor %p (every rank would write, and remove, the
 * same file: Slurm's --multi-prog drops an unescaped %r) and the name does
 * not hold the rank's number already (Slurm's %t), ".r<rank>" put
 * before the name's extension ("dump.json" -> "dump.r3.json"), unless the
 * name is not a regular file (/dev/null, a FIFO). what ("--json") names
 * the option in the note stderr gets, once per pattern, when the name is
 * changed. 0, or -1 with err set. */
int out_rank_name(const char *what, const char *pattern, long pid, char *buf, size_t len, char *err,
                  size_t errlen);

#endif
