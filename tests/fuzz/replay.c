/*
 * replay: run a libFuzzer target over every file of a corpus directory with
 * a plain main(), so `make check` replays the committed corpus as a
 * regression test without clang, and asserts the result of every entry
 * that has an expectation (tests/fuzz/README.md):
 *
 *   replay CORPUS [EXPECT]
 *
 * EXPECT/<entry> holds the outcome the target must say for CORPUS/<entry>
 * on its first line, then one line per text that its messages must
 * contain. Every entry is replayed; one that crashes fails the replay, one
 * whose result differs from its expectation is named and fails it, and so
 * does an expectation without its entry. REPLAY_SHOW=1 prints each entry's
 * outcome and messages (to write an expectation from).
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ab_buf outcome, messages;
static FILE *messages_file;
static char *messages_text;
static size_t messages_len;

void
ab_fuzz_outcome(const char *fmt, ...)
{
	va_list ap;

	if (outcome.len)
		ab_buf_puts(&outcome, "; ");
	va_start(ap, fmt);
	ab_buf_vprintf(&outcome, fmt, ap);
	va_end(ap);
}

FILE *
ab_fuzz_messages(void)
{
	return messages_file;
}

/* ab_error's lines during a replay: messages of the entry */
static void
capture(const char *line, size_t len)
{
	ab_buf_add(&messages, line, len);
}

static int
read_all(struct ab_buf *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		ab_buf_add(b, buf, n);
	fclose(f);
	if (!b->s)
		ab_buf_add(b, "", 0);
	return 0;
}

/* the entry's result against its expectation; 0 when it matches (or it has none) */
static int
check(const char *name, const char *expect_path)
{
	struct ab_buf want = {0};
	const char *s;
	size_t n;
	int bad = 0;

	if (read_all(&want, expect_path) < 0)
		return 0;
	n = strcspn(want.s, "\n");
	if (strlen(outcome.s ? outcome.s : "") != n || strncmp(outcome.s ? outcome.s : "", want.s, n)) {
		printf("FAIL %s: expected outcome '%.*s', got '%s'\n", name, (int)n, want.s, outcome.s ? outcome.s : "");
		bad = 1;
	}
	for (s = want.s + n + (want.s[n] == '\n'); *s;) {
		size_t k = strcspn(s, "\n");
		char *text = ab_strndup(s, k);

		if (k && !strstr(messages.s ? messages.s : "", text)) {
			printf("FAIL %s: no message says '%s'\n", name, text);
			bad = 1;
		}
		free(text);
		s += k + (s[k] == '\n');
	}
	if (bad)
		printf("  its messages:\n%s", messages.s ? messages.s : "  (none)\n");
	ab_buf_free(&want);
	return bad;
}

int
main(int argc, char **argv)
{
	const char *corpus = argc > 1 ? argv[1] : NULL, *expect = argc > 2 ? argv[2] : NULL;
	int n = 0, checked = 0, failed = 0;
	struct dirent *e;
	DIR *d;

	if (!corpus || argc > 3) {
		fprintf(stderr, "usage: replay CORPUS [EXPECT]\n");
		return 2;
	}
	if (!(d = opendir(corpus))) {
		perror(corpus);
		return 1;
	}
	while ((e = readdir(d))) {
		char path[4096], epath[4096];
		struct ab_buf data = {0};

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus, e->d_name);
		if (read_all(&data, path) < 0)
			continue;
		ab_buf_clear(&outcome);
		ab_buf_clear(&messages);
		messages_file = open_memstream(&messages_text, &messages_len);
		ab_set_reporter(capture);
		LLVMFuzzerTestOneInput((const uint8_t *)data.s, data.len);
		ab_set_reporter(NULL);
		fclose(messages_file);
		messages_file = NULL;
		ab_buf_add(&messages, messages_text, messages_len);
		free(messages_text);
		messages_text = NULL;
		/* REPLAY_SHOW=1: each entry's result, to write an expectation from */
		if (getenv("REPLAY_SHOW"))
			printf("== %s\n%s\n%s", e->d_name, outcome.s ? outcome.s : "", messages.s ? messages.s : "");
		if (expect) {
			snprintf(epath, sizeof(epath), "%s/%s", expect, e->d_name);
			if (access(epath, R_OK) == 0) {
				checked++;
				failed += check(e->d_name, epath);
			}
		}
		ab_buf_free(&data);
		n++;
	}
	closedir(d);
	/* an expectation whose entry is gone asserts nothing: say so */
	if (expect && (d = opendir(expect))) {
		while ((e = readdir(d))) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", corpus, e->d_name);
			if (e->d_name[0] != '.' && access(path, R_OK) != 0) {
				printf("FAIL %s: an expectation without its corpus entry\n", e->d_name);
				failed++;
			}
		}
		closedir(d);
	}
	printf("replayed %d inputs, %d with an expected result, %d failed\n", n, checked, failed);
	ab_buf_free(&outcome);
	ab_buf_free(&messages);
	return n && !failed ? 0 : 1;
}
