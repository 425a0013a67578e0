/*
 * Unit tests of provenance/tree/updiff and provenance/tree/tree: the file-class
 * rules, the bogus jemalloc version, git:REPO@REV[:PATH] parsing, and a
 * comparison of two small trees built here (statuses, summary, dirHash).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "../../lib/hash.h"
#include "../../provenance/tree/tree.h"
#include "../../provenance/alloc/allocver.h"
#include "../../provenance/tree/updiff.h"
#include "unit.h"

#define CLASS(path, want) CHECK_STR(ab_updiff_class_name(ab_updiff_classify(path)), want)

static void
test_classes(void)
{
	/* generated in release tarballs wins over everything */
	CLASS("configure", "generated");
	CLASS("VERSION", "generated");
	CLASS("doc/jemalloc.3", "generated");
	CLASS("doc/jemalloc.html", "generated");
	CLASS("doc/sub/x.html", "doc");
	CLASS("src/VERSION", "other");
	CLASS("lib/configure", "build");
	/* metadata: dot files and dot directories */
	CLASS(".clang-format", "metadata");
	CLASS(".gitignore", "metadata");
	CLASS(".github/workflows/ci.yml", "metadata");
	CLASS("src/.gitignore", "metadata");
	/* tests by directory, before templates and sources */
	CLASS("test/unit/a0.c", "test");
	CLASS("test/test.sh.in", "test");
	CLASS("lib/tests/x.h", "test");
	CLASS("src/test_hooks.c", "source");
	/* templates */
	CLASS("Makefile.in", "template");
	CLASS("configure.ac", "template");
	CLASS("m4/ax_cxx_compile_stdcxx.m4", "template");
	CLASS("include/jemalloc/jemalloc_macros.h.in", "template");
	CLASS("doc/jemalloc.xml.in", "template");
	CLASS("Makefile.am", "template");
	/* headers and sources */
	CLASS("include/jemalloc/internal/arena_structs.h", "header");
	CLASS("src/jemalloc.c", "source");
	CLASS("src/jemalloc_cpp.cpp", "source");
	CLASS("msvc/test_threads/test_threads.cpp", "source");
	/* build files and scripts */
	CLASS("CMakeLists.txt", "build");
	CLASS("cmake/x.cmake", "build");
	CLASS("autogen.sh", "build");
	CLASS("src/ticker.py", "build");
	CLASS("build-aux/config.guess", "build");
	CLASS("build-aux/install-sh", "build");
	CLASS("msvc/jemalloc_vc2017.sln", "build");
	CLASS("msvc/projects/vc2017/jemalloc/jemalloc.vcxproj.filters", "build");
	CLASS("include/jemalloc/jemalloc_mangle.sh", "build");
	/* documents */
	CLASS("README", "doc");
	CLASS("COPYING", "doc");
	CLASS("ChangeLog", "doc");
	CLASS("TUNING.md", "doc");
	CLASS("msvc/ReadMe.txt", "doc");
	CLASS("doc/stylesheet.xsl", "doc");
	CLASS("doc_internal/jemalloc.svg", "doc");
	/* anything else */
	CLASS("src/jemalloc.exp", "other");
	CLASS("weird", "other");
}

static void
test_bogus(void)
{
	CHECK(ab_jemalloc_version_is_bogus("0.0.0-0-g000000missing_version_try_git_fetch_tags"));
	CHECK(ab_jemalloc_version_is_bogus("  0.0.0-0-g000000missing_version_try_git_fetch_tags\n"));
	CHECK(ab_jemalloc_version_is_bogus("0.0.0-0-g0000000000000000000000000000000000000000"));
	CHECK(!ab_jemalloc_version_is_bogus("5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"));
	CHECK(!ab_jemalloc_version_is_bogus("0.0.1-0-gabc"));
	CHECK(!ab_jemalloc_version_is_bogus(""));
	CHECK(!ab_jemalloc_version_is_bogus(NULL));
}

static void
git_spec(const char *spec, int rc, const char *repo, const char *rev, const char *path)
{
	char *r = NULL, *v = NULL, *p = NULL;

	CHECK(ab_tree_parse_git_spec(&r, &v, &p, spec) == rc);
	if (rc == 0) {
		CHECK_STR(r, repo);
		CHECK_STR(v, rev);
		CHECK_STR(p, path);
	}
	free(r);
	free(v);
	free(p);
}

static void
test_git_spec(void)
{
	git_spec("git:repo@v1:lib/jemalloc-5.3.0", 0, "repo", "v1", "lib/jemalloc-5.3.0");
	git_spec("git:repo@main", 0, "repo", "main", "");
	git_spec("repo@HEAD~2:./a//b/", 0, "repo", "HEAD~2", "a/b");
	git_spec("git:repo@HEAD@{1}:x", 0, "repo", "HEAD@{1}", "x");
	git_spec("git:repo@v1^{tree}", 0, "repo", "v1^{tree}", "");
	git_spec("git:repo@:x", -1, NULL, NULL, NULL);
	git_spec("git:repo", -1, NULL, NULL, NULL);
	git_spec("git:@v1", -1, NULL, NULL, NULL);
	/* a repository path with '@' in it: the first prefix that is a directory */
	mkdir("ut-dir@2", 0755);
	git_spec("git:ut-dir@2@v1:x@y", 0, "ut-dir@2", "v1", "x@y");
	rmdir("ut-dir@2");
}

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void
test_compare(void)
{
	char tmpl[] = "/tmp/ab-updiff-XXXXXX";
	char *dir = mkdtemp(tmpl), *a, *b, *cmd;
	struct ab_tree *ta = NULL, *tb = NULL;
	struct ab_updiff *u;
	char hex[AB_HEX_LEN + 1];

	CHECK(dir != NULL);
	if (!dir)
		return;
	a = ab_path_join(dir, "a");
	b = ab_path_join(dir, "b");
	cmd = ab_sprintf("mkdir -p %s/src %s/src %s/doc && cd %s", a, b, b, dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	CHECK(chdir(dir) == 0);
	put("a/src/x.c", "int x;\n");
	put("b/src/x.c", "int x;\n");
	put("a/src/y.c", "int y;\n");
	put("b/src/y.c", "int y = 1;\n");
	put("a/README", "hi\n");
	put("b/doc/jemalloc.3", ".TH\n");
	CHECK(ab_tree_read(&ta, "a", -1, 2) == 0);
	CHECK(ab_tree_read(&tb, "b", -1, 1) == 0);
	if (!ta || !tb)
		return;
	CHECK(ta->n == 3 && tb->n == 3 && ta->nfiles == 3);
	CHECK_STR(ta->v[0].path, "README");
	CHECK_STR(ta->v[2].path, "src/y.c");
	CHECK(ab_tree_find(ta, "src/x.c") == &ta->v[1]);
	CHECK(ab_tree_find(ta, "src/z.c") == NULL);
	CHECK(ab_hash_tree(hex, "a", 1) == 0);
	CHECK_STR(ta->dirhash, hex);
	u = ab_updiff_new(ta, tb, 0);
	CHECK(u->n == 4);
	CHECK(u->count[AB_UPDIFF_IDENTICAL] == 1 && u->count[AB_UPDIFF_DIFFERS] == 1);
	CHECK(u->count[AB_UPDIFF_ONLY_CANDIDATE] == 1 && u->count[AB_UPDIFF_ONLY_UPSTREAM] == 1);
	CHECK(u->significant == 1 && !u->matches);
	CHECK_STR(u->summary, "3 files in candidate: 1 identical, 1 differs, 1 only in candidate; "
	    "1 only in upstream: doc/jemalloc.3 (generated)");
	ab_updiff_free(u);
	u = ab_updiff_new(tb, tb, 1);
	CHECK(u->matches && u->count[AB_UPDIFF_IDENTICAL] == 3);
	ab_updiff_free(u);
	{
		cJSON *report = NULL;

		CHECK(ab_updiff_compare(&report, "a", "b", NULL) == 0);
		CHECK(report && cJSON_IsFalse(cJSON_GetObjectItem(report, "matches")));
		CHECK(report && cJSON_GetArraySize(cJSON_GetObjectItem(report, "files")) == 4);
		cJSON_Delete(report);
		CHECK(ab_updiff_compare(&report, "a", "a", NULL) == 0);
		CHECK(report && cJSON_IsTrue(cJSON_GetObjectItem(report, "identical")));
		cJSON_Delete(report);
		fprintf(stderr, "(an error about 'missing' is expected here)\n");
		CHECK(ab_updiff_compare(&report, "a", "missing", NULL) == -1 && report == NULL);
	}
	ab_tree_free(ta);
	ab_tree_free(tb);
	cmd = ab_sprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(a);
	free(b);
}

int
main(void)
{
	test_classes();
	test_bogus();
	test_git_spec();
	test_compare();
	return unit_done();
}
