/*
 * fuzz: what a fuzz target tells the replay of `make check` besides not
 * crashing. A target says its outcome in words (FUZZ_OUTCOME: "accepted:
 * 1 source, 2 variants", "rejected") and writes its messages to
 * FUZZ_MESSAGES(); lines reported with ab_error are messages too. The
 * replay (replay.c) compares them with the expectation of a corpus entry
 * when it has one (tests/fuzz/README.md). Under libFuzzer (`make fuzz`)
 * replay.c is not linked: the weak hooks are absent, the outcome goes
 * nowhere and the messages to /dev/null.
 */
#ifndef AB_FUZZ_H
#define AB_FUZZ_H

#include <stdio.h>

void ab_fuzz_outcome(const char *fmt, ...) __attribute__((weak, format(printf, 1, 2)));
FILE *ab_fuzz_messages(void) __attribute__((weak));

#define FUZZ_OUTCOME(...) do { if (ab_fuzz_outcome) ab_fuzz_outcome(__VA_ARGS__); } while (0)

static inline FILE *
fuzz_messages(void)
{
	static FILE *devnull;

	if (ab_fuzz_messages)
		return ab_fuzz_messages();
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	return devnull;
}
#define FUZZ_MESSAGES() fuzz_messages()

#endif
