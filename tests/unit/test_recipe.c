/*
 * test_recipe: the recipe loader from memory: fields, defaults, dependency
 * order, and exact error messages with their positions; a patch read and
 * hashed once, whoever asks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../builder/recipe.h"
#include "../../lib/atomic.h"
#include "../../lib/hash.h"
#include "unit.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"
#define SHA "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa"

/* load text; *errs gets everything printed (caller frees); returns the loader's result */
static int
load(struct ab_recipe **r, const char *text, char **errs, unsigned flags)
{
	size_t len;
	FILE *f = open_memstream(errs, &len);
	int rc = ab_recipe_parse_ext(r, "t/r.json", text, strlen(text), f, flags);

	fclose(f);
	return rc;
}

/* the errors of a recipe that must not load */
static char *
errors_of(const char *text, unsigned flags)
{
	struct ab_recipe *r = NULL;
	char *errs;

	if (load(&r, text, &errs, flags) == 0) {
		ab_recipe_free(r);
		free(errs);
		return strdup("(loaded)");
	}
	CHECK(r == NULL);
	return errs;
}

static const char full[] =
    "{\n"
    "  \"recipe\": 1,\n"
    "  \"name\": \"all-keys\",\n"
    "  \"description\": \"every key\",\n"
    "  \"sources\": {\n"
    "    \"fb\": {\n"
    "      \"git\": {\"url\": \"https://example.org/fb.git\", \"commit\": \"" COMMIT "\"},\n"
    "      \"patches\": [\"../patches/a.patch\", \"b.patch\"],\n"
    "      \"prepare\": [[\"autoconf\"], [\"sh\", \"-c\", \"true\"]],\n"
    "      \"overlay\": {\"lib/jemalloc-5.3.0\": \"je\"}\n"
    "    },\n"
    "    \"je\": {\"archive\": {\"urls\": [\"https://a/x.tar.bz2\", \"file:///m/x.tar.bz2\"], \"sha256\": \"" SHA "\", \"strip\": 1}}\n"
    "  },\n"
    "  \"variants\": [\n"
    "    {\"label\": \"fit\", \"runtime_of\": \"fb-relinked\", \"runtime\": {\"env\": {\"MALLOC_CONF\": \"x:1\", \"A\": \"\"}, \"unset\": [\"LD_PRELOAD\"]}},\n"
    "    {\"label\": \"fb-relinked\", \"relink\": {\"from\": \"fb\", \"link_txt\": \"bin/CMakeFiles/fb.dir/link.txt\",\n"
    "       \"replace\": [{\"path\": \"lib/libjemalloc.a\", \"with\": {\"variant\": \"je53\", \"artifact\": \"lib/libjemalloc_pic.a\"}}],\n"
    "       \"output\": \"bin/fluent-bit.relinked\"}},\n"
    "    {\"label\": \"fb\", \"source\": \"fb\", \"build\": {\"system\": \"cmake\", \"defines\": {\"FLB_JEMALLOC\": \"On\", \"CMAKE_BUILD_TYPE\": \"Release\"},\n"
    "       \"generator\": \"Ninja\", \"targets\": [\"fluent-bit\"], \"jobs\": 3, \"env\": {\"CFLAGS\": \"-O2\"}},\n"
    "     \"artifacts\": [\"bin/fluent-bit\"],\n"
    "     \"allocator\": {\"kind\": \"jemalloc\", \"vendored\": \"lib/jemalloc-5.3.0\", \"upstream\": \"je\"}},\n"
    "    {\"label\": \"je53\", \"source\": \"je\", \"build\": {\"system\": \"autotools\", \"configure\": [\"--with-lg-quantum=3\"]},\n"
    "     \"artifacts\": [\"lib/libjemalloc_pic.a\"], \"allocator\": {\"kind\": \"jemalloc\", \"archive\": \"lib/libjemalloc_pic.a\"}},\n"
    "    {\"label\": \"plain\", \"source\": \"je\", \"build\": {\"system\": \"autotools\"}}\n"
    "  ]\n"
    "}\n";

static void
test_fields(void)
{
	struct ab_recipe *r = NULL;
	const struct ab_source *s;
	const struct ab_variant *v;
	char *errs = NULL, *p;

	CHECK(load(&r, full, &errs, AB_RECIPE_REQUIRE_PINS) == 0);
	CHECK_STR(errs, "");
	free(errs);
	if (!r)
		return;
	CHECK(r->format == 1);
	CHECK_STR(r->name, "all-keys");
	CHECK_STR(r->description, "every key");
	CHECK_STR(r->path, "t/r.json");
	CHECK(r->dir[0] == '/' && strlen(r->dir) > 2 && !strcmp(r->dir + strlen(r->dir) - 2, "/t"));
	CHECK(strlen(r->sha256) == 64);
	CHECK(r->nsources == 2 && r->nvariants == 5);

	s = ab_recipe_source(r, "fb");
	CHECK(s && s->kind == AB_SOURCE_GIT && !s->unpinned);
	CHECK_STR(s->url, "https://example.org/fb.git");
	CHECK_STR(s->commit, COMMIT);
	CHECK(s->line == 6 && s->col == 11);
	CHECK(s->commit_line == 7 && s->commit_col == 62);
	CHECK(s->patches.n == 2 && s->patches.v[2] == NULL);
	CHECK_STR(s->patches.v[0], "../patches/a.patch");
	CHECK(s->nprepare == 2 && s->prepare[1].n == 3 && s->prepare[1].v[3] == NULL);
	CHECK_STR(s->prepare[1].v[2], "true");
	CHECK(s->noverlays == 1);
	CHECK_STR(s->overlays[0].path, "lib/jemalloc-5.3.0");
	CHECK_STR(s->overlays[0].source, "je");
	CHECK(s->urls.n == 0 && s->urls.v && s->urls.v[0] == NULL);

	s = ab_recipe_source(r, "je");
	CHECK(s && s->kind == AB_SOURCE_ARCHIVE && s->strip == 1 && s->urls.n == 2);
	CHECK_STR(s->urls.v[1], "file:///m/x.tar.bz2");
	CHECK_STR(s->sha256, SHA);
	CHECK(s->patches.n == 0 && s->patches.v[0] == NULL && s->nprepare == 0 && s->noverlays == 0);
	CHECK(ab_recipe_source(r, "nope") == NULL);

	v = ab_recipe_variant(r, "fb");
	CHECK(v && v->kind == AB_VARIANT_BUILD && v->build.system == AB_BUILD_CMAKE);
	CHECK_STR(v->source, "fb");
	CHECK(v->build.defines.n == 2);
	CHECK_STR(v->build.defines.v[0].key, "FLB_JEMALLOC");
	CHECK_STR(v->build.defines.v[1].value, "Release");
	CHECK_STR(v->build.generator, "Ninja");
	CHECK(v->build.targets.n == 1 && v->build.jobs == 3 && v->build.env.n == 1);
	CHECK(v->build.configure.n == 0 && v->build.configure.v[0] == NULL);
	CHECK(v->allocator.present && v->allocator.archive == NULL);
	CHECK_STR(v->allocator.vendored, "lib/jemalloc-5.3.0");
	CHECK_STR(v->allocator.upstream, "je");

	v = ab_recipe_variant(r, "je53");
	CHECK(v && v->build.system == AB_BUILD_AUTOTOOLS && v->build.configure.n == 1);
	CHECK_STR(v->build.generator, "Unix Makefiles");
	CHECK(v->build.targets.n == 0 && v->build.jobs == 0 && v->build.defines.n == 0);
	CHECK_STR(v->allocator.kind, "jemalloc");

	v = ab_recipe_variant(r, "fb-relinked");
	CHECK(v && v->kind == AB_VARIANT_RELINK && v->relink.nreplace == 1);
	CHECK_STR(v->relink.from, "fb");
	CHECK_STR(v->relink.link_txt, "bin/CMakeFiles/fb.dir/link.txt");
	CHECK_STR(v->relink.output, "bin/fluent-bit.relinked");
	CHECK_STR(v->relink.replace[0].path, "lib/libjemalloc.a");
	CHECK_STR(v->relink.replace[0].with_variant, "je53");
	CHECK_STR(v->relink.replace[0].with_artifact, "lib/libjemalloc_pic.a");
	CHECK(v->artifacts.n == 0 && v->artifacts.v[0] == NULL && !v->allocator.present);

	v = ab_recipe_variant(r, "fit");
	CHECK(v && v->kind == AB_VARIANT_RUNTIME && v->line == 15 && v->col == 5);
	CHECK_STR(v->runtime_of, "fb-relinked");
	CHECK(v->runtime.env.n == 2 && v->runtime.unset.n == 1);
	CHECK_STR(v->runtime.env.v[1].key, "A");
	CHECK_STR(v->runtime.env.v[1].value, "");
	CHECK(ab_recipe_base_variant(r, v) == ab_recipe_variant(r, "fb-relinked"));
	CHECK(ab_recipe_base_variant(r, ab_recipe_variant(r, "fb")) == ab_recipe_variant(r, "fb"));
	CHECK(ab_recipe_variant(r, "nope") == NULL);
	CHECK(ab_recipe_count(r, AB_VARIANT_BUILD) == 3 && ab_recipe_count(r, AB_VARIANT_RELINK) == 1 &&
	    ab_recipe_count(r, AB_VARIANT_RUNTIME) == 1);

	p = ab_recipe_path(r, "../patches/a.patch");
	CHECK(p && p[0] == '/' && strstr(p, "/patches/a.patch") && !strstr(p, "/t/") && !strstr(p, ".."));
	free(p);
	p = ab_recipe_path(r, "/abs/x.patch");
	CHECK_STR(p, "/abs/x.patch");
	free(p);
	CHECK(ab_recipe_check_pins(r, 0) == 0);
	ab_recipe_free(r);
	ab_recipe_free(NULL);
}

static char *
order_str(const struct ab_recipe *r, char *const *labels, size_t n)
{
	static char buf[256];
	size_t *order = NULL, no = 0;

	buf[0] = '\0';
	if (ab_recipe_order(&order, &no, r, labels, n) < 0)
		return strcpy(buf, "(error)");
	for (size_t i = 0; i < no; i++) {
		strcat(buf, i ? " " : "");
		strcat(buf, r->variants[order[i]].label);
	}
	free(order);
	return buf;
}

static void
test_order(void)
{
	struct ab_recipe *r = NULL;
	char *errs = NULL;
	char *fit[] = {"fit"}, *two[] = {"plain", "je53"}, *bad[] = {"fb", "nope"};

	CHECK(load(&r, full, &errs, 0) == 0);
	free(errs);
	if (!r)
		return;
	/* stable: recipe order except that dependencies come first */
	CHECK_STR(order_str(r, NULL, 0), "fb je53 fb-relinked fit plain");
	CHECK_STR(order_str(r, fit, 1), "fb je53 fb-relinked fit");
	CHECK_STR(order_str(r, two, 2), "je53 plain");
	fprintf(stderr, "(an 'unknown variant' error is expected here)\n");
	CHECK_STR(order_str(r, bad, 2), "(error)");
	ab_recipe_free(r);
}

/* the reference: repeatedly take the first wanted variant whose dependencies are all taken */
static int
depends(const struct ab_recipe *r, size_t i, size_t j)
{
	const struct ab_variant *v = &r->variants[i];
	const char *l = r->variants[j].label;

	if (v->kind == AB_VARIANT_RUNTIME)
		return !strcmp(v->runtime_of, l);
	if (v->kind == AB_VARIANT_RELINK) {
		if (!strcmp(v->relink.from, l))
			return 1;
		for (size_t k = 0; k < v->relink.nreplace; k++)
			if (!strcmp(v->relink.replace[k].with_variant, l))
				return 1;
	}
	return 0;
}

/* random recipes of builds, relinks and runtime variants against the reference order */
static void
test_order_random(void)
{
	unsigned seed = 12345;

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (seed = seed * 1103515245 + 12345) % 24, rank[24], *order = NULL, no = 0;
		char buf[16384], *labels[3], names[3][8];
		size_t nl = 0, len = 0;
		struct ab_recipe *r = NULL;
		char *errs = NULL;
		int want[24] = {0}, done[24] = {0}, ok = 1;

		/* a random ranking; a variant only depends on lower-ranked ones, so there are no cycles */
		for (size_t i = 0; i < n; i++)
			rank[i] = i;
		for (size_t i = n; i > 1; i--) {
			size_t j = (seed = seed * 1103515245 + 12345) % i, t = rank[i - 1];

			rank[i - 1] = rank[j];
			rank[j] = t;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
		    "{\"recipe\": 1, \"name\": \"r\", \"sources\": {\"s\": {\"archive\": {\"urls\": [\"u\"], \"sha256\": \"" SHA "\"}}}, \"variants\": [");
		for (size_t i = 0; i < n; i++) {
			size_t lower[24], nlower = 0;

			for (size_t j = 0; j < n; j++)
				if (rank[j] < rank[i])
					lower[nlower++] = j;
			seed = seed * 1103515245 + 12345;
			if (!nlower || seed % 3 == 0)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				    "%s{\"label\": \"v%zu\", \"source\": \"s\", \"build\": {\"system\": \"cmake\"}}", i ? "," : "", i);
			else if (seed % 3 == 1)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				    "%s{\"label\": \"v%zu\", \"runtime_of\": \"v%zu\"}", i ? "," : "", i,
				    lower[(seed >> 8) % nlower]);
			else
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				    "%s{\"label\": \"v%zu\", \"relink\": {\"from\": \"v%zu\", \"link_txt\": \"l\", \"output\": \"o\", "
				    "\"replace\": [{\"path\": \"a\", \"with\": {\"variant\": \"v%zu\", \"artifact\": \"a\"}}, "
				    "{\"path\": \"b\", \"with\": {\"variant\": \"v%zu\", \"artifact\": \"b\"}}]}}",
				    i ? "," : "", i, lower[(seed >> 8) % nlower], lower[(seed >> 12) % nlower],
				    lower[(seed >> 16) % nlower]);
		}
		snprintf(buf + len, sizeof(buf) - len, "]}");
		if (load(&r, buf, &errs, 0) < 0) {
			/* relink.from must be a build variant: such rounds are skipped */
			free(errs);
			continue;
		}
		free(errs);
		/* half the rounds ask for up to three labels */
		if (round % 2) {
			nl = 1 + round % 3;
			for (size_t k = 0; k < nl; k++) {
				snprintf(names[k], sizeof(names[k]), "v%zu", (size_t)(seed >> (4 * k)) % n);
				labels[k] = names[k];
			}
		}
		CHECK(ab_recipe_order(&order, &no, r, labels, nl) == 0);
		/* the reference */
		for (size_t k = 0; k < nl; k++)
			want[atoi(labels[k] + 1)] = 1;
		for (int changed = 1; changed;) {
			changed = 0;
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; j < n; j++)
					if ((want[i] || !nl) && depends(r, i, j) && !want[j] && nl)
						want[j] = changed = 1;
		}
		for (size_t k = 0; k < no && ok; k++) {
			size_t pick = n;

			for (size_t i = 0; i < n && pick == n; i++) {
				int ready = (want[i] || !nl) && !done[i];

				for (size_t j = 0; j < n && ready; j++)
					if (depends(r, i, j) && !done[j])
						ready = 0;
				if (ready)
					pick = i;
			}
			ok = pick == order[k];
			done[pick < n ? pick : 0] = 1;
		}
		for (size_t i = 0; i < n; i++)
			if ((want[i] || !nl) && !done[i])
				ok = 0;
		CHECK(ok);
		free(order);
		ab_recipe_free(r);
	}
}

static void
test_unpinned(void)
{
	static const char text[] =
	    "{\"recipe\": 1, \"name\": \"u\",\n"
	    " \"sources\": {\"s\": {\"git\": {\"url\": \"u\", \"commit\": \"v5.3.0\"}}},\n"
	    " \"variants\": [{\"label\": \"b\", \"source\": \"s\", \"build\": {\"system\": \"autotools\"}}]}\n";
	struct ab_recipe *r = NULL;
	char *errs = NULL;

	CHECK(load(&r, text, &errs, 0) == 0);
	CHECK_STR(errs, "");
	free(errs);
	if (r) {
		CHECK(r->sources[0].unpinned == 1);
		CHECK_STR(r->sources[0].commit, "v5.3.0");
		CHECK(ab_recipe_check_pins(r, 1) == 0);
		fprintf(stderr, "(an unpinned-commit error is expected here)\n");
		CHECK(ab_recipe_check_pins(r, 0) < 0);
		ab_recipe_free(r);
	}
	errs = errors_of(text, AB_RECIPE_REQUIRE_PINS);
	CHECK_STR(errs, "t/r.json:2:50: sources.s.git.commit: 'v5.3.0' is not a 40-digit commit id "
	                "(use --allow-unpinned to resolve it)\n");
	free(errs);
}

static void
test_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"", "t/r.json:1:1: $: expected a value, got end of input\n"},
		{"{\n  \"a\": [1,\n   2 3]}",
		    "t/r.json:3:6: a: expected ',' or ']', got '3'\n"},
		{"{\"a\": \"caf\xc3\xa9\", \"b\": tru}",
		    "t/r.json:1:20: b: expected a value, got 'tru'\n"},
		{"{\"a\": \"\xff\"}", "t/r.json:1:8: a: invalid UTF-8 in string\n"},
		{"{\"a\":{\"b c\":[{\"d\" 1}]}}", "t/r.json:1:19: a[\"b c\"][0].d: expected ':' after the key, got '1'\n"},
		{"\xef\xbb\xbf[\n\t{}\n] ]", "t/r.json:3:3: $: expected end of input, got ']'\n"},
		{"{\"recipe\": 1, \"name\": \"n\", \"sources\": {}, \"variants\": [], \"x\": 1}",
		    "t/r.json:1:55: variants: at least one variant is required\n"
		    "t/r.json:1:59: x: unknown key\n"},
		{"{\"recipe\": 1.5, \"nmae\": \"n\", \"sources\": {}, \"variants\": [{\"label\": \"a\", \"runtime_of\": \"a\"}]}",
		    "t/r.json:1:1: name: required key is missing\n"
		    "t/r.json:1:12: recipe: expected an integer, got 1.5\n"
		    "t/r.json:1:17: nmae: unknown key (did you mean 'name'?)\n"
		    "t/r.json:1:87: variants[0].runtime_of: dependency cycle: a -> a\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *errs = errors_of(cases[i].text, 0);

		CHECK_STR(errs, cases[i].want);
		free(errs);
	}
}

/* a patch is read once: asked again, or changed on disk since, it is the bytes first read */
static void
test_patch_once(void)
{
	char tmpl[] = "/tmp/allocbuild-test-recipe-XXXXXX", *dir = mkdtemp(tmpl), *name, *patch, want[AB_HEX_LEN + 1];
	static const char text[] = "diff --git a/f b/f\n";
	const struct ab_patch_bytes *a = NULL, *b = NULL;
	struct ab_recipe *r = NULL;
	char *errs = NULL;
	size_t len;
	FILE *f;

	CHECK(dir != NULL);
	if (!dir)
		return;
	name = ab_path_join(dir, "r.json");
	patch = ab_path_join(dir, "b.patch");
	CHECK(ab_write_file_atomic(patch, text, strlen(text)) == 0);
	f = open_memstream(&errs, &len);
	CHECK(ab_recipe_parse_ext(&r, name, full, strlen(full), f, 0) == 0);
	fclose(f);
	if (r) {
		const struct ab_source *s = ab_recipe_source(r, "fb");

		ab_hash_buf(want, text, strlen(text));
		CHECK(ab_recipe_patch(&a, r, s, 1) == 0 && a && a->text.len == strlen(text));
		if (a)
			CHECK_STR(a->sha256, want);
		CHECK(ab_write_file_atomic(patch, "changed\n", 8) == 0);
		CHECK(ab_recipe_patch(&b, r, s, 1) == 0 && b == a);
		if (b)
			CHECK_STR(b->sha256, want);
		/* ../patches/a.patch is not there: an error each time it is asked for */
		ab_report_mute();
		CHECK(ab_recipe_patch(&b, r, s, 0) < 0 && b == NULL);
		CHECK(ab_recipe_patch(&b, r, s, 0) < 0);
		ab_report_unmute();
	}
	ab_recipe_free(r);
	free(errs);
	ab_rm_rf(dir);
	free(name);
	free(patch);
}

int
main(void)
{
	test_fields();
	test_patch_once();
	test_order();
	test_order_random();
	test_unpinned();
	test_errors();
	return unit_done();
}
