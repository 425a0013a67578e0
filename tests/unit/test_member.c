/*
 * Unit tests of the archive member rules (lib/member.h): name
 * normalisation and strip, symlink containment, the checks of one member
 * and the accept/refuse decisions against earlier members, with the exact
 * messages (stderr is caught in a temporary file).
 */
#include <archive_entry.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/member.h"
#include "../../lib/util.h"
#include "unit.h"

static FILE *caught;
static int saved_stderr = -1;

static void
catch_begin(void)
{
	fflush(stderr);
	caught = tmpfile();
	saved_stderr = dup(2);
	dup2(fileno(caught), 2);
}

/* what was written on stderr since catch_begin, without the last newline; caller frees */
static char *
catch_end(void)
{
	struct ab_buf b = {0};
	char buf[512];
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	rewind(caught);
	while ((n = fread(buf, 1, sizeof(buf), caught)) > 0)
		ab_buf_add(&b, buf, n);
	fclose(caught);
	if (b.len && b.s[b.len - 1] == '\n')
		b.s[--b.len] = '\0';
	return ab_buf_detach(&b);
}

static void
check_norm(const char *name, const char *want)
{
	char *got = ab_member_normalise(name);

	CHECK_STR(got, want);
	free(got);
}

static void
test_normalise_strip(void)
{
	check_norm("./a//b/", "a/b");
	check_norm("a/./b/.", "a/b");
	check_norm("pkg/", "pkg");
	check_norm(".", "");
	check_norm("./", "");
	check_norm("", "");
	check_norm(".hidden/..x", ".hidden/..x");

	CHECK_STR(ab_member_strip("a/b/c", 0), "a/b/c");
	CHECK_STR(ab_member_strip("a/b/c", 1), "b/c");
	CHECK_STR(ab_member_strip("a/b/c", 2), "c");
	CHECK(ab_member_strip("a/b/c", 3) == NULL);
	CHECK(ab_member_strip("a", 1) == NULL);
	CHECK(ab_member_strip("", 0) == NULL);
}

static void
test_symlink_inside(void)
{
	CHECK(ab_member_symlink_inside("l", "a.c"));
	CHECK(ab_member_symlink_inside("l", "."));
	CHECK(ab_member_symlink_inside("d/l", "../a.c"));
	CHECK(ab_member_symlink_inside("d/l", "./../a.c"));
	CHECK(ab_member_symlink_inside("a/b/l", "../../x/y"));
	CHECK(ab_member_symlink_inside("a/b/l", "x//y/"));
	CHECK(!ab_member_symlink_inside("l", "../x"));
	CHECK(!ab_member_symlink_inside("a/b/l", "../../../x"));
	CHECK(!ab_member_symlink_inside("l", "self/../../x"));
	/* '..' after a name could climb out through a symlinked directory */
	CHECK(!ab_member_symlink_inside("d/l", "x/../y"));
	CHECK(!ab_member_symlink_inside("l", ""));
	CHECK(!ab_member_symlink_inside("l", "/etc"));
}

/* ab_member_check of one entry: the type on success, else the message in *msg */
static int
check_entry(char **msg, const char *name, unsigned filetype, unsigned perm, const char *hardlink)
{
	struct archive_entry *e = archive_entry_new();
	enum ab_member_type type = 0;
	int rc;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, filetype);
	archive_entry_set_perm(e, perm);
	if (hardlink)
		archive_entry_set_hardlink(e, hardlink);
	catch_begin();
	rc = ab_member_check(&type, "x.tar", name, e);
	*msg = catch_end();
	archive_entry_free(e);
	return rc < 0 ? -1 : (int)type;
}

/* want_msg: after "allocbuild: archive 'x.tar': ", "" when accepted */
static void
expect_check(const char *name, unsigned filetype, unsigned perm, const char *hardlink, int want,
    const char *want_msg)
{
	char *msg, *full = want_msg[0] ? ab_sprintf("allocbuild: archive 'x.tar': %s", want_msg) : ab_strdup("");

	CHECK(check_entry(&msg, name, filetype, perm, hardlink) == want);
	CHECK_STR(msg, full);
	free(msg);
	free(full);
}

static void
test_check(void)
{
	expect_check("pkg/a.c", AE_IFREG, 0644, NULL, AB_MEMBER_FILE, "");
	expect_check("pkg/", AE_IFDIR, 0755, NULL, AB_MEMBER_DIR, "");
	expect_check("pkg/l", AE_IFLNK, 0777, NULL, AB_MEMBER_SYMLINK, "");
	/* a hard link whatever its header says */
	expect_check("pkg/h", AE_IFREG, 0644, "pkg/a.c", AB_MEMBER_HARDLINK, "");
	expect_check(".", AE_IFDIR, 0755, NULL, AB_MEMBER_DIR, "");
	expect_check("", AE_IFREG, 0644, NULL, -1, "a member has no name");
	expect_check("/etc/x", AE_IFREG, 0644, NULL, -1, "member '/etc/x': absolute path");
	expect_check("a/../../x", AE_IFREG, 0644, NULL, -1, "member 'a/../../x': '..' in path");
	expect_check("..", AE_IFDIR, 0755, NULL, -1, "member '..': '..' in path");
	expect_check("n", AE_IFCHR, 0666, NULL, -1, "member 'n': device node");
	expect_check("n", AE_IFBLK, 0660, NULL, -1, "member 'n': device node");
	expect_check("p", AE_IFIFO, 0644, NULL, -1, "member 'p': fifo");
	expect_check("s", AE_IFSOCK, 0644, NULL, -1, "member 's': socket");
	expect_check("su", AE_IFREG, 04755, NULL, -1, "member 'su': setuid or setgid bit");
	expect_check("sg/", AE_IFDIR, 02775, NULL, -1, "member 'sg/': setuid or setgid bit");
	expect_check("u", 0, 0644, NULL, -1, "member 'u': unsupported file type");
}

/*
 * Run the whole protocol of member.h on raw names with one strip, as the
 * readers do, and return the result of ab_member_accept (1: skipped after
 * the strip); messages in *msg, a hard link's target in *linked (copied).
 */
static int
accept_one(char **msg, char **linked, size_t *value, struct ab_member_set *s, int strip, const char *raw,
    enum ab_member_type type, const char *link, size_t val)
{
	char *norm = ab_member_normalise(raw);
	struct ab_member m = {raw, ab_member_strip(norm, strip), type, link, val};
	const char *to = NULL;
	int rc = 1;

	*value = SIZE_MAX;
	catch_begin();
	if (m.rel)
		rc = ab_member_accept(&to, value, s, &m);
	*msg = catch_end();
	*linked = to ? ab_strdup(to) : NULL;
	free(norm);
	return rc;
}

/* a sequence of members with strip 1: NULL want_msg means accepted */
struct step {
	const char *raw;
	enum ab_member_type type;
	const char *link;
	const char *want_msg; /* after "allocbuild: archive 'x.tar': ", or NULL when accepted, "" skipped */
};

static void
run_steps(const struct step *steps, size_t n)
{
	struct ab_member_set *s = ab_member_set_new("x.tar", 1);

	for (size_t i = 0; i < n; i++) {
		char *msg, *linked, *want;
		size_t value;
		int rc = accept_one(&msg, &linked, &value, s, 1, steps[i].raw, steps[i].type, steps[i].link, i);

		if (!steps[i].want_msg) {
			CHECK(rc == 0);
			CHECK_STR(msg, "");
		} else if (!steps[i].want_msg[0]) {
			CHECK(rc == 1);
		} else {
			want = ab_sprintf("allocbuild: archive 'x.tar': %s", steps[i].want_msg);
			CHECK(rc == -1);
			CHECK_STR(msg, want);
			free(want);
		}
		free(msg);
		free(linked);
	}
	ab_member_set_free(s);
}

#define NOT_EARLIER ", which is not an earlier file"

static void
test_accept(void)
{
	const struct step ok[] = {
		{"pkg/", AB_MEMBER_DIR, NULL, ""},                 /* nothing left after the strip */
		{"pkg", AB_MEMBER_DIR, NULL, ""},
		{"pkg/sub/", AB_MEMBER_DIR, NULL, NULL},
		{"pkg/sub", AB_MEMBER_DIR, NULL, NULL},            /* a directory may repeat */
		{"./pkg//a.c", AB_MEMBER_FILE, NULL, NULL},
		{"pkg/d/e/f.c", AB_MEMBER_FILE, NULL, NULL},
		{"pkg/d/e", AB_MEMBER_DIR, NULL, NULL},            /* after its members */
		{"pkg/sub/up", AB_MEMBER_SYMLINK, "../a.c", NULL},
		{"pkg/h", AB_MEMBER_HARDLINK, "pkg/a.c", NULL},
		{"pkg/h2", AB_MEMBER_HARDLINK, "./pkg/h", NULL},   /* to a hard link */
	};
	const struct step bad[] = {
		{"pkg/a.c", AB_MEMBER_FILE, NULL, NULL},
		{"pkg/l", AB_MEMBER_SYMLINK, ".", NULL},
		{"pkg/d/x.c", AB_MEMBER_FILE, NULL, NULL},
		{"pkg/e/", AB_MEMBER_DIR, NULL, NULL},
		{"pkg/a.c", AB_MEMBER_SYMLINK, "b", "member 'pkg/a.c': duplicate member"},
		{"pkg/a.c/", AB_MEMBER_DIR, NULL, "member 'pkg/a.c/': duplicate member"},
		{"pkg/e", AB_MEMBER_FILE, NULL, "member 'pkg/e': duplicate member"},
		{"pkg/l", AB_MEMBER_DIR, NULL, "member 'pkg/l': duplicate member"},
		{"pkg/a.c/x", AB_MEMBER_FILE, NULL, "member 'pkg/a.c/x': path goes through file 'a.c'"},
		{"pkg/l/x", AB_MEMBER_FILE, NULL, "member 'pkg/l/x': path goes through symlink 'l'"},
		{"pkg/d", AB_MEMBER_FILE, NULL, "member 'pkg/d': earlier members use it as a directory"},
		{"pkg/d", AB_MEMBER_SYMLINK, "x.c", "member 'pkg/d': earlier members use it as a directory"},
		{"pkg/d", AB_MEMBER_HARDLINK, "pkg/a.c", "member 'pkg/d': earlier members use it as a directory"},
		{"pkg/s", AB_MEMBER_SYMLINK, "", "member 'pkg/s': symlink without a target"},
		{"pkg/s", AB_MEMBER_SYMLINK, NULL, "member 'pkg/s': symlink without a target"},
		{"pkg/s", AB_MEMBER_SYMLINK, "/etc", "member 'pkg/s': symlink to absolute path '/etc'"},
		{"pkg/s", AB_MEMBER_SYMLINK, "../x", "member 'pkg/s': symlink points outside the tree ('../x')"},
		{"pkg/h", AB_MEMBER_HARDLINK, "/etc/x", "member 'pkg/h': hard link to '/etc/x' outside the tree"},
		{"pkg/h", AB_MEMBER_HARDLINK, "../x", "member 'pkg/h': hard link to '../x' outside the tree"},
		{"pkg/h", AB_MEMBER_HARDLINK, "pkg/l", "member 'pkg/h': hard link to 'pkg/l'" NOT_EARLIER},
		{"pkg/h", AB_MEMBER_HARDLINK, "pkg/e", "member 'pkg/h': hard link to 'pkg/e'" NOT_EARLIER},
		{"pkg/h", AB_MEMBER_HARDLINK, "pkg/d", "member 'pkg/h': hard link to 'pkg/d'" NOT_EARLIER},
		{"pkg/h", AB_MEMBER_HARDLINK, "pkg", "member 'pkg/h': hard link to 'pkg'" NOT_EARLIER},
		{"pkg/h", AB_MEMBER_HARDLINK, "pkg/later", "member 'pkg/h': hard link to 'pkg/later'" NOT_EARLIER},
	};

	run_steps(ok, AB_NELEM(ok));
	run_steps(bad, AB_NELEM(bad));
}

/* a hard link gives the name after the strip and the value of the file it names */
static void
test_hardlink_target(void)
{
	struct ab_member_set *s = ab_member_set_new("x.tar", 1);
	char *msg, *linked;
	size_t value;

	CHECK(accept_one(&msg, &linked, &value, s, 1, "top/a.c", AB_MEMBER_FILE, NULL, 7) == 0);
	CHECK(linked == NULL);
	free(msg);
	CHECK(accept_one(&msg, &linked, &value, s, 1, "top/h", AB_MEMBER_HARDLINK, "top/./a.c", 8) == 0);
	CHECK_STR(linked, "a.c");
	CHECK(value == 7);
	free(msg);
	free(linked);
	CHECK(accept_one(&msg, &linked, &value, s, 1, "top/h2", AB_MEMBER_HARDLINK, "top/h", 9) == 0);
	CHECK_STR(linked, "h");
	CHECK(value == 8);
	free(msg);
	free(linked);
	ab_member_set_free(s);
	ab_member_set_free(NULL);
}

/* many names: the set grows and keeps every one */
static void
test_many(void)
{
	struct ab_member_set *s = ab_member_set_new("x.tar", 0);
	int refused = 0;

	for (int i = 0; i < 5000; i++) {
		char *name = ab_sprintf("d%d/f%d.c", i % 50, i);
		struct ab_member m = {name, name, AB_MEMBER_FILE, NULL, (size_t)i};

		refused += ab_member_accept(NULL, NULL, s, &m) < 0;
		free(name);
	}
	CHECK(refused == 0);
	{
		struct ab_member m = {"d7/f4007.c", "d7/f4007.c", AB_MEMBER_FILE, NULL, 0};
		char *msg;

		catch_begin();
		CHECK(ab_member_accept(NULL, NULL, s, &m) < 0);
		msg = catch_end();
		CHECK_STR(msg, "allocbuild: archive 'x.tar': member 'd7/f4007.c': duplicate member");
		free(msg);
	}
	ab_member_set_free(s);
}

int
main(void)
{
	test_normalise_strip();
	test_symlink_inside();
	test_check();
	test_accept();
	test_hardlink_target();
	test_many();
	return unit_done();
}
