/*
 * Unit tests of the source layer: mirror rewriting, the work-tree index
 * (dirHash, serialisation, verification), secure extraction and patches.
 */
#include <archive.h>
#include <archive_entry.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../builder/extract.h"
#include "../../builder/git.h"
#include "../../builder/patch.h"
#include "../../lib/util.h"
#include "../../builder/worktree.h"
#include "../../lib/hash.h"
#include "unit.h"

static char *root;

static void
put(const char *rel, const char *text)
{
	char *p = ab_path_join(root, rel);

	CHECK(ab_write_file_atomic(p, text, strlen(text)) == 0);
	free(p);
}

static void
test_mirror(void)
{
	char *m[] = {"https://github.com/=/srv/gh/", "https://github.com/jemalloc/=file:///srv/je/",
	    "https://github.com/=/later/"};
	char *u;

	u = ab_git_mirror_url(m, 3, "https://github.com/jemalloc/jemalloc.git");
	CHECK_STR(u, "file:///srv/je/jemalloc.git");
	free(u);
	u = ab_git_mirror_url(m, 3, "https://github.com/fluent/fluent-bit.git");
	CHECK_STR(u, "/later/fluent/fluent-bit.git");
	free(u);
	u = ab_git_mirror_url(m, 3, "https://gitlab.com/x.git");
	CHECK_STR(u, "https://gitlab.com/x.git");
	free(u);
	u = ab_git_mirror_url(m, 0, "https://github.com/x");
	CHECK_STR(u, "https://github.com/x");
	free(u);
}

static void
test_index(void)
{
	struct ab_wt_index idx, back;
	struct ab_buf text = {0}, lines = {0};
	char want[65], h[65], *why = NULL;
	int refreshed = 0;
	char *d = ab_path_join(root, "tree");

	CHECK(ab_mkdir_p(d, 0755) == 0);
	put("tree/b.txt", "bee\n");
	put("tree/a b", "with space\n");
	put("tree/back\\slash", "x\n");
	{
		char *sub = ab_path_join(root, "tree/sub/dir"), *link = ab_path_join(root, "tree/link");

		CHECK(ab_mkdir_p(sub, 0755) == 0);
		CHECK(symlink("b.txt", link) == 0);
		free(sub);
		free(link);
	}
	put("tree/sub/dir/c", "");
	CHECK(ab_wt_index_build(&idx, d, 2) == 0);
	CHECK(idx.n == 7);
	CHECK_STR(idx.v[0].path, "a b");
	/* dirHash by hand: sorted regular files, sha256sum's escaping for the backslash */
	ab_hash_buf(h, "with space\n", 11);
	ab_buf_printf(&lines, "%s  a b\n", h);
	ab_hash_buf(h, "bee\n", 4);
	ab_buf_printf(&lines, "%s  b.txt\n", h);
	ab_hash_buf(h, "x\n", 2);
	ab_buf_printf(&lines, "\\%s  back\\\\slash\n", h);
	ab_hash_buf(h, "", 0);
	ab_buf_printf(&lines, "%s  sub/dir/c\n", h);
	ab_hash_buf(want, lines.s, lines.len);
	CHECK_STR(idx.dirhash, want);
	/* round trip */
	ab_wt_index_write(&text, &idx);
	CHECK(ab_wt_index_parse(&back, text.s, text.len) == 0);
	CHECK(back.n == idx.n);
	CHECK_STR(back.dirhash, idx.dirhash);
	for (size_t i = 0; i < idx.n && i < back.n; i++) {
		CHECK_STR(back.v[i].path, idx.v[i].path);
		CHECK(back.v[i].mode == idx.v[i].mode && back.v[i].ino == idx.v[i].ino);
		CHECK(back.v[i].mtime_ns == idx.v[i].mtime_ns && back.v[i].ctime_s == idx.v[i].ctime_s);
		CHECK_STR(back.v[i].hash, idx.v[i].hash);
	}
	/* a parse fills its index afresh: release the one it held first */
	ab_wt_index_free(&back);
	CHECK(ab_wt_index_parse(&back, "garbage\n", 8) < 0);
	/* verification */
	CHECK(ab_wt_index_verify(&idx, d, 0, 0, 2, &refreshed, &why) == 0);
	CHECK(refreshed == 1); /* everything is racily clean against time 0 */
	CHECK(ab_wt_index_verify(&idx, d, 4000000000LL, 0, 2, &refreshed, &why) == 0);
	CHECK(refreshed == 0);
	put("tree/b.txt", "BEE\n");
	CHECK(ab_wt_index_verify(&idx, d, 4000000000LL, 0, 2, &refreshed, &why) == 1);
	CHECK_STR(why, "'b.txt' was modified");
	free(why);
	put("tree/b.txt", "bee\n");
	CHECK(ab_wt_index_verify(&idx, d, 4000000000LL, 0, 2, &refreshed, &why) == 0);
	CHECK(refreshed == 1);
	put("tree/zzz", "new");
	CHECK(ab_wt_index_verify(&idx, d, 4000000000LL, 0, 2, &refreshed, &why) == 1);
	CHECK_STR(why, "'zzz' was added");
	free(why);
	ab_wt_index_free(&idx);
	ab_wt_index_free(&back);
	ab_buf_free(&text);
	ab_buf_free(&lines);
	free(d);
}

/* write a tar with the given (name, type, target) members */
static char *
make_tar(const char *name, const char *const *members)
{
	char *path = ab_path_join(root, name);
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	archive_write_set_format_pax_restricted(a);
	archive_write_open_filename(a, path);
	for (size_t i = 0; members[i]; i += 3) {
		archive_entry_clear(e);
		archive_entry_set_pathname(e, members[i]);
		archive_entry_set_perm(e, 0644);
		if (members[i + 1][0] == 'l') {
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, members[i + 2]);
			archive_write_header(a, e);
		} else {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_size(e, (la_int64_t)strlen(members[i + 2]));
			archive_write_header(a, e);
			archive_write_data(a, members[i + 2], strlen(members[i + 2]));
		}
	}
	archive_entry_free(e);
	archive_write_close(a);
	archive_write_free(a);
	return path;
}

static void
test_archive(void)
{
	static const char *const good[] = {"p/a.txt", "f", "alpha\n", "p/d/l", "l", "../a.txt", "top", "f", "x", NULL};
	static const char *const bad[] = {"p/a.txt", "f", "alpha\n", "p/../../x", "f", "x", NULL};
	char *g = make_tar("good.tar", good), *b = make_tar("bad.tar", bad);
	char *d1 = ab_path_join(root, "x1"), *d2 = ab_path_join(root, "x2"), *p;
	char hex[65];
	struct ab_buf got = {0};

	mkdir(d1, 0755);
	mkdir(d2, 0755);
	CHECK(ab_hash_file(hex, NULL, g) == 0);
	CHECK(ab_archive_extract(g, "good.tar", hex, 1, d1) == 0);
	p = ab_path_join(d1, "d/l");
	CHECK(ab_read_file(&got, p) == 0);
	CHECK_STR(got.s, "alpha\n");
	free(p);
	p = ab_path_join(d1, "top");
	CHECK(!ab_path_exists(p)); /* stripped away */
	free(p);
	CHECK(ab_archive_extract(g, "good.tar", "0000000000000000000000000000000000000000000000000000000000000000", 1,
	    d2) < 0);
	CHECK(ab_archive_extract(b, "bad.tar", NULL, 0, d2) < 0);
	ab_buf_free(&got);
	free(g);
	free(b);
	free(d1);
	free(d2);
}

static void
test_patch(void)
{
	char *d = ab_path_join(root, "pt"), *f = ab_path_join(root, "pt/f.c");
	static const char diff[] = "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";
	struct ab_buf got = {0}, bytes = {0};

	CHECK(ab_mkdir_p(d, 0755) == 0);
	put("pt/f.c", "one\ntwo\n");
	ab_buf_puts(&bytes, diff);
	CHECK(ab_patch_apply(d, &bytes, "x.patch", 1) == 0);
	CHECK(ab_read_file(&got, f) == 0);
	CHECK_STR(got.s, "one\ntwo\n"); /* check only */
	ab_buf_clear(&got);
	CHECK(ab_patch_apply(d, &bytes, "x.patch", 0) == 0);
	CHECK(ab_read_file(&got, f) == 0);
	CHECK_STR(got.s, "one\nTWO\n");
	CHECK(ab_patch_apply(d, &bytes, "x.patch", 0) < 0); /* no longer applies */
	ab_buf_free(&got);
	ab_buf_free(&bytes);
	free(d);
	free(f);
}

int
main(void)
{
	char tmpl[] = "/tmp/allocbuild-test-source-XXXXXX";

	git_libgit2_init();
	root = mkdtemp(tmpl);
	if (!root)
		return 1;
	test_mirror();
	test_index();
	test_archive();
	test_patch();
	ab_rm_rf(root);
	git_libgit2_shutdown();
	return unit_done();
}
