/* launcher.h — what a process can learn of its launch before MPI_Init. */
#ifndef FP_LAUNCHER_H
#define FP_LAUNCHER_H

/* This process's rank in the launch (Open MPI, PMIx, PMI, Slurm variables); 0 when none. */
int launcher_rank(void);

/* Report a usage error found before MPI_Init and return FP_EXIT_USAGE. Rank 0 prints
 * "fabprobe CMD: ERR" on stderr; the other ranks print nothing and wait a moment before
 * returning, because a launcher stops the whole job at the first process that fails and
 * could otherwise kill rank 0 before it has printed. */
int launcher_usage_error(const char *cmd, const char *err);

#endif
