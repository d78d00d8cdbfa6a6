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

/* Each assertion names one condition: on failure it prints file:line, the expression and,
 * where it compares, the values on both sides. Split conjunctions into one CHECK per part. */
#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			check_failed_++;                                             \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		}                                                                    \
	} while (0)

/* a op b for numbers (not pointers), each side evaluated once and compared as C compares
 * them (in their common type); a failure prints both values. */
#define CHECK_CMP(a, op, b) CHECK_CMP_(a, op, b, #a, #b)
#define CHECK_EQ(a, b) CHECK_CMP_(a, ==, b, #a, #b)
#define CHECK_CMP_(a, op, b, a_text, b_text)                                         \
	do {                                                                         \
		__typeof__((a) + (b)) a_ = (a), b_ = (b);                            \
		if (!(a_ op b_)) {                                                   \
			int digits_ = (__typeof__(a_))0.5 != 0 ? 15 : 20; /* float? */ \
			check_failed_++;                                             \
			printf("#   %s:%d: CHECK(%s %s %s) failed: left is %.*Lg, right is %.*Lg\n", \
			       __FILE__, __LINE__, a_text, #op, b_text, digits_, (long double)a_, \
			       digits_, (long double)b_);                             \
		}                                                                    \
	} while (0)

/* two strings are equal; a NULL fails (and is printed as such) instead of crashing */
#define CHECK_STR(a, b)                                                              \
	do {                                                                         \
		const char *a_ = (a), *b_ = (b);                                     \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                  \
			check_failed_++;                                             \
			printf("#   %s:%d: %s is %s%s%s, expected \"%s\"\n", __FILE__, __LINE__, \
			       #a, a_ ? "\"" : "", a_ ? a_ : "NULL", a_ ? "\"" : "",    \
			       b_ ? b_ : "NULL");                                     \
		}                                                                    \
	} while (0)

/* string s contains sub (strstr(s, sub) != NULL); a NULL s fails instead of crashing */
#define CHECK_HAS(s, sub)                                                            \
	do {                                                                         \
		const char *s_ = (s), *sub_ = (sub);                                 \
		if (!s_ || !strstr(s_, sub_)) {                                      \
			check_failed_++;                                             \
			printf("#   %s:%d: %s is %s%s%s, which does not contain \"%s\"\n", \
			       __FILE__, __LINE__, #s, s_ ? "\"" : "", s_ ? s_ : "NULL", \
			       s_ ? "\"" : "", sub_);                                 \
		}                                                                    \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                        \
	do {                                                                         \
		double a_ = (a), b_ = (b);                                           \
		if (!(fabs(a_ - b_) <= (tol))) {                                     \
			check_failed_++;                                             \
			printf("#   %s:%d: %s is %.15g, expected %.15g within %g\n", __FILE__, \
			       __LINE__, #a, a_, b_, (double)(tol));                  \
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
