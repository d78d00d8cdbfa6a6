/* opts.h — validated parsing of option values. Pure: no I/O; on error each function writes a
 * one-line reason (naming the option) into err and returns FP_EUSAGE. */
#ifndef FP_OPTS_H
#define FP_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"

#define OPTS_ERR_MAX 256
#define OPTS_LIST_MAX 64

/* In a parser with `char *err`: write the reason (naming the option) and return FP_EUSAGE. */
#define OPTS_FAIL(...)                                                        \
	do {                                                                  \
		snprintf(err, OPTS_ERR_MAX, __VA_ARGS__);                     \
		return FP_EUSAGE;                                             \
	} while (0)

/* "8", "4K", "128M", "1G" (powers of 1024, optional trailing B/iB) in [min, max]. */
int opts_size(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err);
/* A decimal integer in [min, max]; no sign tricks, no trailing junk. */
int opts_long(const char *opt, const char *s, long min, long max, long *out, char *err);
/* Seconds, decimal ("2", "0.5"), in (0, max]. */
int opts_seconds(const char *opt, const char *s, double max, double *out, char *err);
/* A percentage, decimal ("5", "2.5", an optional trailing '%'), in (0, max]. */
int opts_percent(const char *opt, const char *s, double max, double *out, char *err);
/* Comma-separated sizes, each as opts_size, at most OPTS_LIST_MAX, returned sorted and
 * without duplicates. */
int opts_size_list(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		   int *n, char *err);
/* A path or name given as an option's value: not empty, and not starting with '-' (getopt
 * takes the next word whatever it is: "--results-root --lat" must not make a directory
 * "--lat"; write ./-x for a name that starts with '-'). */
int opts_value(const char *opt, const char *s, char *err);
/* A name for a results directory: 1..64 chars of [A-Za-z0-9._-], not starting with '.'. */
int opts_name(const char *opt, const char *s, char *err);

#endif
