/* opts.h — validated parsing of option values, and the one command-line parser every command
 * composes from the option groups of the modules it uses. Pure: no I/O; on error each function
 * writes a one-line reason (naming the option) into err and returns FP_EUSAGE. */
#ifndef FP_OPTS_H
#define FP_OPTS_H

#include <getopt.h>
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

/* One module's options, as a command's parser takes them. The codes (a long option's val, a
 * short option's letter) are the group's own: two groups may use the same numbers, as the
 * parser hands each option to the group that declared it. */
struct opts_group {
	const struct option *longopts; /* {NULL}-terminated, flag NULL; NULL for none */
	const char *shortopts;         /* the group's letters, getopt style ("l:s:"); NULL for none */
	/* one option: val is its long entry's val, or its letter. 0, or FP_EUSAGE with err */
	int (*take)(void *ctx, int val, const char *arg, char *err);
	/* after every option: what involves several options (NULL: nothing). 0, or FP_EUSAGE */
	int (*finish)(void *ctx, char *err);
	void *ctx;
};
#define OPTS_GROUPS_MAX 16
#define OPTS_LONG_MAX 96 /* long options of one command, every group together */

/* Parse argv (argv[0] the command's name) over the groups, -h/--help being the parser's own:
 * each option goes to the group that declared it, then each group's finish runs in order.
 * Positional arguments: refused when args is NULL, else *args is the index of the first (getopt
 * moves them to the end). Returns 0, 1 when --help was asked for, or FP_EUSAGE with a reason
 * naming the option (unknown, without its value, declared by two groups). */
int opts_parse(int argc, char **argv, const struct opts_group *g, int ng, int *args, char *err);

#endif
