/*
 * Unit tests of lib/atomic: the temporary's name "<path>.tmp.<pid>.<n>"
 * in the destination's directory, mode 0644 whatever the umask, abort
 * leaves the old file and no temporary, a file written by name
 * (AB_ATOMIC_BYNAME) is committed, NOSYNC commits too, and abort on a
 * struct that holds nothing does nothing.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "unit.h"

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

static int
has_content(const char *path, const char *want)
{
	struct ab_buf b = {0};
	int ok = ab_read_file(&b, path) == 0 && b.len == strlen(want) && !memcmp(b.s, want, b.len);

	ab_buf_free(&b);
	return ok;
}

static void
test_name_and_mode(const char *dir)
{
	char *path = ab_path_join(dir, "m.json");
	char *prefix = ab_sprintf("%s.tmp.%ld.", path, (long)getpid());
	struct ab_atomic a;
	struct stat st;
	mode_t old = umask(077);

	CHECK(ab_atomic_open(&a, path, 0) == 0);
	CHECK(a.fd >= 0);
	/* the pattern a cleanup of dead writers' temporaries relies on */
	CHECK(!strncmp(a.tmp, prefix, strlen(prefix)) && strspn(a.tmp + strlen(prefix), "0123456789") ==
	    strlen(a.tmp + strlen(prefix)) && a.tmp[strlen(prefix)]);
	CHECK(ab_path_exists(a.tmp));
	CHECK(ab_write_all(a.fd, "new\n", 4) == 0);
	CHECK(ab_atomic_commit(&a) == 0);
	CHECK(a.tmp == NULL && a.path == NULL);
	CHECK(has_content(path, "new\n"));
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(count_entries(dir) == 1);
	umask(old);

	/* two temporaries of one process never share a name */
	{
		struct ab_atomic b, c;

		CHECK(ab_atomic_open(&b, path, 0) == 0);
		CHECK(ab_atomic_open(&c, path, 0) == 0);
		CHECK(strcmp(b.tmp, c.tmp) != 0);
		ab_atomic_abort(&b);
		ab_atomic_abort(&c);
		CHECK(count_entries(dir) == 1);
	}
	unlink(path);
	free(prefix);
	free(path);
}

static void
test_abort(const char *dir)
{
	char *path = ab_path_join(dir, "keep.txt");
	struct ab_atomic a, zero = {0};

	CHECK(ab_atomic_write(path, "old\n", 4, 0) == 0);
	CHECK(ab_atomic_open(&a, path, 0) == 0);
	CHECK(ab_write_all(a.fd, "half", 4) == 0);
	ab_atomic_abort(&a);
	CHECK(has_content(path, "old\n"));
	CHECK(count_entries(dir) == 1);
	/* nothing held: nothing done, twice */
	ab_atomic_abort(&a);
	ab_atomic_abort(&zero);
	CHECK(has_content(path, "old\n"));

	/* NOSYNC commits as well */
	CHECK(ab_atomic_write(path, "unsynced\n", 9, AB_ATOMIC_NOSYNC) == 0);
	CHECK(has_content(path, "unsynced\n"));
	CHECK(count_entries(dir) == 1);
	unlink(path);
	free(path);
}

static void
test_byname(const char *dir)
{
	char *path = ab_path_join(dir, "linked");
	struct ab_atomic a;
	FILE *f;

	CHECK(ab_atomic_open(&a, path, AB_ATOMIC_BYNAME) == 0);
	CHECK(a.fd == -1);
	CHECK(!ab_path_exists(a.tmp));
	/* as a linker would: its own file, by name */
	f = fopen(a.tmp, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("binary\n", f);
		fclose(f);
	}
	CHECK(ab_atomic_commit(&a) == 0);
	CHECK(has_content(path, "binary\n"));
	CHECK(count_entries(dir) == 1);

	/* nothing was written by that name: commit fails and leaves the old file */
	CHECK(ab_atomic_open(&a, path, AB_ATOMIC_BYNAME) == 0);
	{
		struct unit_catch uc;
		char *want = ab_sprintf("allocbuild: cannot sync '%s': No such file or directory", a.tmp);
		char *msg;

		unit_catch_begin(&uc);
		CHECK(ab_atomic_commit(&a) == AB_EFAIL);
		msg = unit_catch_end(&uc);
		CHECK_STR(msg, want);
		free(msg);
		free(want);
	}
	CHECK(has_content(path, "binary\n"));
	CHECK(count_entries(dir) == 1);
	unlink(path);
	free(path);
}

int
main(void)
{
	char *dir = unit_tmpdir("atomic");

	test_name_and_mode(dir);
	test_abort(dir);
	test_byname(dir);
	rmdir(dir);
	free(dir);
	return unit_done();
}
