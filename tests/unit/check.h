/* check.h — the unit tests' assertions. Each TEST prints one line, "ok - name" or
 * "not ok - name", which tests/run.sh counts; a failed CHECK says where and what. */
#ifndef FP_CHECK_H
#define FP_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failed_; /* failures in the test now running */
static int check_total_failed_;
static int check_skipped_; /* the test now running said why it cannot run here */

/* Leave the test, counted as skipped, with the reason. */
#define SKIP(reason)                                                                 \
	do {                                                                         \
		printf("skip - %s: %s\n", __func__, reason);                        \
		check_skipped_ = 1;                                                  \
		return;                                                              \
	} while (0)

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			check_failed_++;                                             \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		}                                                                    \
	} while (0)

#define CHECK_STR(a, b)                                                              \
	do {                                                                         \
		const char *a_ = (a), *b_ = (b);                                     \
		if (strcmp(a_, b_)) {                                                \
			check_failed_++;                                             \
			printf("#   %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
			       #a, a_, b_);                                           \
		}                                                                    \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                        \
	do {                                                                         \
		double a_ = (a), b_ = (b);                                           \
		if (!(fabs(a_ - b_) <= (tol))) {                                     \
			check_failed_++;                                             \
			printf("#   %s:%d: %s is %g, expected %g\n", __FILE__, __LINE__, #a, a_, b_); \
		}                                                                    \
	} while (0)

#define RUN(test)                                                                    \
	do {                                                                         \
		check_failed_ = check_skipped_ = 0;                                  \
		test();                                                              \
		if (!check_skipped_ || check_failed_)                                \
			printf("%s - %s\n", check_failed_ ? "not ok" : "ok", #test); \
		check_total_failed_ += check_failed_ != 0;                           \
	} while (0)

#define CHECK_EXIT() return check_total_failed_ ? 1 : 0

#endif
