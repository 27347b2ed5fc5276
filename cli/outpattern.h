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

#endif
