/* log.h — messages and the error contract.
 *
 * The error rule, for the whole program:
 *  - A function returns 0 (or a count, or 1 for "a check failed" where its contract says so)
 *    or a negative FP_E* code below, after logging what failed with `host rank file:line`
 *    (or writing the reason into the caller's err buffer for usage errors). -errno and -1
 *    never cross a module boundary; the FP_E* values are outside errno's range so that a
 *    stray -errno cannot pass for one.
 *  - Out of memory is FP_ERUNTIME.
 *  - Only the command layer (bench/cmd/, and main) turns a code into an exit code and ends
 *    the process; nothing below it calls exit() or MPI_Abort(). An MPI job whose ranks can no
 *    longer meet (a rank hung: FP_ETIMEDOUT from a collective wait) is ended by the command
 *    layer with MPI_Abort. */
#ifndef FP_LOG_H
#define FP_LOG_H

#include <stdarg.h>

enum {
	FP_OK = 0,
	FP_EUSAGE = -1002,   /* bad option or input: exit code 2 */
	FP_ERUNTIME = -1003, /* MPI, I/O, device, out of memory: exit code 3 */
	FP_ETIMEDOUT = -1004,/* a deadline passed (a pair, a barrier) */
	FP_EPEER = -1005,    /* the peer misbehaved or went away */
	FP_EINTR = -1006,    /* SIGINT or SIGTERM (core/interrupt.h): the run stops at a step boundary */
};

/* Exit codes of the program (README.md, "Exit codes"). */
enum { FP_EXIT_OK = 0, FP_EXIT_CHECK = 1, FP_EXIT_USAGE = 2, FP_EXIT_RUNTIME = 3 };

/* Set once per process (after MPI is up) so every message says where it came from. */
void log_set_identity(const char *host, int rank);
void log_msg(const char *level, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define LOG_ERROR(...) log_msg("error", __FILE__, __LINE__, __VA_ARGS__)
#define LOG_WARN(...)  log_msg("warning", __FILE__, __LINE__, __VA_ARGS__)

#endif
