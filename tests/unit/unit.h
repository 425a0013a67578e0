/*
 * unit: a minimal unit-test harness. Each tests/unit/test_*.c defines
 * main() running checks; CHECK() records a failure with file and line;
 * unit_done() prints "N checks, N failed" and returns the exit code.
 * Helpers for tests that touch the file system or check messages:
 * unit_tmpdir() and unit_catch_begin() / unit_catch_end().
 */
#ifndef AB_UNIT_H
#define AB_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* a new directory "$TMPDIR/ab-test-<name>.XXXXXX" (TMPDIR default /tmp); exits on failure; caller frees */
static inline char *
unit_tmpdir(const char *name)
{
	const char *base = getenv("TMPDIR");
	size_t n;
	char *dir;

	if (!base || !*base)
		base = "/tmp";
	n = strlen(base) + strlen(name) + sizeof("/ab-test-.XXXXXX");
	dir = malloc(n);
	if (!dir) {
		perror("malloc");
		exit(1);
	}
	snprintf(dir, n, "%s/ab-test-%s.XXXXXX", base, name);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	return dir;
}

/* stderr caught in a temporary file between unit_catch_begin and unit_catch_end */
struct unit_catch {
	FILE *f;
	int saved;
};

static inline void
unit_catch_begin(struct unit_catch *c)
{
	fflush(stderr);
	c->f = tmpfile();
	c->saved = dup(2);
	if (!c->f || c->saved < 0) {
		perror("unit_catch_begin");
		exit(1);
	}
	dup2(fileno(c->f), 2);
}

/* restore stderr; what was written on it, without the last newline; caller frees */
static inline char *
unit_catch_end(struct unit_catch *c)
{
	long n;
	char *s;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = ftell(c->f);
	s = malloc(n > 0 ? (size_t)n + 1 : 1);
	if (!s) {
		perror("malloc");
		exit(1);
	}
	rewind(c->f);
	n = n > 0 ? (long)fread(s, 1, (size_t)n, c->f) : 0;
	fclose(c->f);
	if (n && s[n - 1] == '\n')
		n--;
	s[n] = '\0';
	return s;
}

static inline int
unit_done(void)
{
	printf("%d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed ? 1 : (unit_checks ? 0 : 1);
}

#endif
