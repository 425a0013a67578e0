/*
 * unit: a minimal unit-test harness. Each tests/unit/test_*.c defines
 * main() running checks; CHECK() records a failure with file and line;
 * unit_done() prints "N checks, N failed" and returns the exit code.
 */
#ifndef AB_UNIT_H
#define AB_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_checks, unit_failed;

#define CHECK(cond)                                                          \
	do {                                                                 \
		unit_checks++;                                               \
		if (!(cond)) {                                               \
			unit_failed++;                                       \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                            \
	} while (0)

#define CHECK_STR(got, want)                                                 \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		unit_checks++;                                               \
		if (!g_ || strcmp(g_, w_)) {                                 \
			unit_failed++;                                       \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, g_ ? g_ : "(null)", w_); \
		}                                                            \
	} while (0)

static inline int
unit_done(void)
{
	printf("%d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed ? 1 : (unit_checks ? 0 : 1);
}

#endif
