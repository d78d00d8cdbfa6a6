/* log.c — one place that formats diagnostics: "fabprobe: <level>: host rank N file:line: msg". */
#include "log.h"

#include <stdio.h>
#include <string.h>

#include "escape.h"

/* The process's identity is set once at start-up and only read afterwards: the one piece of
 * file-level state in the program, kept here so that no caller has to pass it around. */
static char log_host[64];
static int log_rank = -1;

void log_set_identity(const char *host, int rank)
{
	snprintf(log_host, sizeof log_host, "%s", host ? host : "");
	log_rank = rank;
}

void log_msg(const char *level, const char *file, int line, const char *fmt, ...)
{
	char raw[1024], msg[4 * sizeof raw + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	escape_term(raw, msg, sizeof msg, 0); /* names and paths from files reach a terminal */
	if (log_rank >= 0)
		fprintf(stderr, "fabprobe: %s: %s rank %d %s:%d: %s\n", level, log_host, log_rank,
			file, line, msg);
	else
		fprintf(stderr, "fabprobe: %s: %s:%d: %s\n", level, file, line, msg);
}
