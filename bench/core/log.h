/* log.h — messages and the error contract.
 *
 * Error contract: functions return 0 on success or a negative FP_E* code, after logging
 * what failed with `host rank file:line`. Only main() and the cmd_* handlers exit. */
#ifndef FP_LOG_H
#define FP_LOG_H

#include <stdarg.h>

enum {
	FP_OK = 0,
	FP_EUSAGE = -2,   /* bad option or input: exit code 2 */
	FP_ERUNTIME = -3, /* MPI, I/O, device: exit code 3 */
	FP_ETIMEDOUT = -4,/* a deadline passed (a pair, a barrier) */
	FP_EPEER = -5,    /* the peer misbehaved or went away */
};

/* Exit codes of the program (DESIGN.md §6). */
enum { FP_EXIT_OK = 0, FP_EXIT_CHECK = 1, FP_EXIT_USAGE = 2, FP_EXIT_RUNTIME = 3 };

/* Set once per process (after MPI is up) so every message says where it came from. */
void log_set_identity(const char *host, int rank);
void log_msg(const char *level, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define LOG_ERROR(...) log_msg("error", __FILE__, __LINE__, __VA_ARGS__)
#define LOG_WARN(...)  log_msg("warning", __FILE__, __LINE__, __VA_ARGS__)

#endif
