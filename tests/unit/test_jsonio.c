/*
 * Unit tests of lib/jsonio: round trips through ab_json_write and
 * ab_json_read, atomicity (no temporary file left behind, a failed write
 * leaves the old file intact), parse errors with their position.
 */
#include <dirent.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "unit.h"

static char *
make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = ab_sprintf("%s/ab-test-jsonio.XXXXXX", base && *base ? base : "/tmp");

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	return dir;
}

/* number of entries in dir other than . and .. */
static int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* ab_json_write without root's override of permissions: as root, in a child as nobody */
static int
write_unprivileged(const char *path, const cJSON *doc)
{
	int status = 0;
	pid_t pid;

	if (geteuid() != 0)
		return ab_json_write(path, doc);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		_exit(ab_json_write(path, doc) == 0 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return -2;
	return WEXITSTATUS(status) ? -1 : 0;
}

static cJSON *
sample(void)
{
	char *argv[] = {"./configure", "--with-lg-quantum=3", "arg with space"};
	cJSON *doc = cJSON_CreateObject();
	cJSON *o = cJSON_AddObjectToObject(doc, "nested");

	cJSON_AddNumberToObject(doc, "format", 1);
	cJSON_AddStringToObject(doc, "name", "jemalloc \"5.3.0\" \\ ünïcødé\n\ttab");
	cJSON_AddItemToObject(doc, "argv", ab_json_strv(argv, AB_NELEM(argv)));
	cJSON_AddBoolToObject(o, "flag", 1);
	cJSON_AddNullToObject(o, "none");
	cJSON_AddNumberToObject(o, "big", 4294967296.0 + 12345);
	cJSON_AddNumberToObject(o, "negative", -42);
	cJSON_AddItemToObject(o, "empty", cJSON_CreateArray());
	return doc;
}

static void
test_round_trip(const char *dir)
{
	char *path = ab_path_join(dir, "m.json");
	cJSON *doc = sample(), *back = NULL;
	struct ab_buf text = {0};

	CHECK(ab_json_write(path, doc) == 0);
	CHECK(count_entries(dir) == 1);
	CHECK(ab_json_read(&back, path) == 0);
	CHECK(back && cJSON_Compare(doc, back, 1));
	CHECK_STR(ab_json_str(back, "name"), "jemalloc \"5.3.0\" \\ ünïcødé\n\ttab");
	CHECK(ab_json_str(back, "format") == NULL);
	CHECK(ab_json_str(back, "missing") == NULL);
	/* the file ends with exactly one newline */
	CHECK(ab_read_file(&text, path) == 0);
	CHECK(text.len > 2 && text.s[text.len - 1] == '\n' && text.s[text.len - 2] == '}');
	/* overwriting replaces the whole document */
	cJSON_Delete(back);
	back = NULL;
	cJSON_DeleteItemFromObject(doc, "nested");
	CHECK(ab_json_write(path, doc) == 0);
	CHECK(ab_json_read(&back, path) == 0);
	CHECK(back && cJSON_Compare(doc, back, 1));
	CHECK(back && !cJSON_GetObjectItem(back, "nested"));
	CHECK(count_entries(dir) == 1);

	ab_buf_free(&text);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	unlink(path);
	free(path);
}

/* a write that fails half way must leave the old file and no temp file */
static void
test_failed_write(const char *dir)
{
	char *path = ab_path_join(dir, "keep.json");
	cJSON *doc = cJSON_CreateObject(), *back = NULL;
	struct ab_buf before = {0}, after = {0};
	struct rlimit old, small;
	char *big = ab_malloc(1 << 20);

	cJSON_AddStringToObject(doc, "v", "old");
	CHECK(ab_json_write(path, doc) == 0);
	CHECK(ab_read_file(&before, path) == 0);

	/* over RLIMIT_FSIZE write() fails with EFBIG (root cannot bypass it) */
	memset(big, 'x', (1 << 20) - 1);
	big[(1 << 20) - 1] = '\0';
	cJSON_ReplaceItemInObject(doc, "v", cJSON_CreateString(big));
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	small = old;
	small.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CHECK(ab_json_write(path, doc) == -1);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, SIG_DFL);
	CHECK(ab_read_file(&after, path) == 0);
	CHECK(before.len == after.len && !memcmp(before.s, after.s, before.len));
	CHECK(count_entries(dir) == 1);

	/* the target is a directory: rename fails after the temp file was written */
	{
		char *sub = ab_path_join(dir, "isdir.json");

		CHECK(ab_mkdir_p(sub, 0755) == 0);
		CHECK(ab_json_write(sub, doc) == -1);
		CHECK(ab_is_dir(sub));
		CHECK(count_entries(dir) == 2);
		rmdir(sub);
		free(sub);
	}

	/* a read-only directory (as root, the write runs as nobody) */
	{
		CHECK(chmod(dir, 0555) == 0);
		CHECK(write_unprivileged(path, doc) == -1);
		CHECK(chmod(dir, 0755) == 0);
		ab_buf_clear(&after);
		CHECK(ab_read_file(&after, path) == 0);
		CHECK(before.len == after.len && !memcmp(before.s, after.s, before.len));
		CHECK(count_entries(dir) == 1);
	}

	/* a missing directory */
	{
		char *p = ab_path_join(dir, "no/such/dir.json");

		CHECK(ab_json_write(p, doc) == -1);
		free(p);
	}

	CHECK(ab_json_read(&back, path) == 0);
	CHECK_STR(ab_json_str(back, "v"), "old");
	cJSON_Delete(back);
	cJSON_Delete(doc);
	ab_buf_free(&before);
	ab_buf_free(&after);
	free(big);
	unlink(path);
	free(path);
}

static void
test_read_errors(const char *dir)
{
	char *path = ab_path_join(dir, "bad.json");
	cJSON *doc = (cJSON *)1;

	CHECK(ab_write_file_atomic(path, "{\n  \"a\": 1,\n  \"b\": ]\n}\n", 23) == 0);
	CHECK(ab_json_read(&doc, path) == -1);
	CHECK(doc == NULL);
	unlink(path);
	doc = (cJSON *)1;
	CHECK(ab_json_read(&doc, path) == -1);
	CHECK(doc == NULL);
	/* an empty file is not a JSON document */
	CHECK(ab_write_file_atomic(path, "", 0) == 0);
	CHECK(ab_json_read(&doc, path) == -1);
	unlink(path);
	free(path);
}

int
main(void)
{
	char *dir = make_tmpdir();

	test_round_trip(dir);
	test_failed_write(dir);
	test_read_errors(dir);
	CHECK(count_entries(dir) == 0);
	ab_rm_rf(dir);
	free(dir);
	return unit_done();
}
