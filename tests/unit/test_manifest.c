/* unit tests of provenance/record/manifest*.c: version scanning, env, verify, write */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../provenance/alloc/allocver.h"
#include "../../provenance/record/manifest.h"

static char dir[] = "/tmp/test_manifest.XXXXXX";

static char *
put(const char *name, const void *data, size_t len)
{
	char *p = ab_path_join(dir, name);
	char *d = ab_path_dirname(p);

	ab_mkdir_p(d, 0755);
	free(d);
	ab_write_file_atomic(p, data, len);
	return p;
}

static char *
scan(const char *bytes, size_t len)
{
	char *p = put("blob", bytes, len), *v = NULL;

	CHECK(ab_allocver_scan(&v, p) == 0);
	free(p);
	return v;
}

static void
test_scan(void)
{
	static const char real[] = "\x7f" "ELF\0\0junk 12.2.0-14) \0" "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c\0tail";
	static const char bogus[] = "xx\0" AB_JEMALLOC_BOGUS_VERSION "\0yy";
	static const char none[] = "GCC: (Debian 12.2.0-14) 12.2.0\0 1.2-3-gabc 1.2.3-4-gab\0";
	char *v;

	v = scan(real, sizeof(real) - 1);
	CHECK_STR(v, "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c");
	free(v);
	v = scan(bogus, sizeof(bogus) - 1);
	CHECK_STR(v, AB_JEMALLOC_BOGUS_VERSION);
	free(v);
	v = scan(none, sizeof(none) - 1);
	CHECK(v == NULL);
	free(v);
	v = scan("", 0);
	CHECK(v == NULL);
	/* at the very end of the file, and a longer dotted prefix is not a version start */
	v = scan("x 10.20.30-7-gdeadbeefcafe", 26);
	CHECK_STR(v, "10.20.30-7-gdeadbeefcafe");
	free(v);
	v = scan("1.5.3.0-0-gdeadbeefcafe", 23);
	CHECK(v == NULL);
	free(v);
}

static void
test_env_and_verify(void)
{
	const char *doc =
	    "{\"recipe\": {\"name\": \"r\", \"sha256\": "
	    "\"0000000000000000000000000000000000000000000000000000000000000000\"}, \"variants\": ["
	    "{\"label\": \"a\", \"kind\": \"build\", \"runtime\": {\"env\": {}, \"unset\": [\"LD_PRELOAD\"]}, \"binary\": \"/x/bin/a\","
	    " \"artifacts\": [{\"path\": \"variants/a/build/a\", \"sha256\": "
	    "\"1111111111111111111111111111111111111111111111111111111111111111\"}]},"
	    "{\"label\": \"b\", \"kind\": \"runtime\", \"artifacts\": [], \"runtime\": {\"env\": {\"MALLOC_CONF\": \"it's:1\", \"ZZ_X\": \"v\"}, \"unset\": []}, \"binary\": null}"
	    "]}";
	char *p = put("out/provenance/binary-provenance.json", doc, strlen(doc)), *p2;
	char *outdir = ab_path_join(dir, "out"), *text = NULL;
	size_t len = 0;
	FILE *f;
	char hex[AB_HEX_LEN + 1];
	struct ab_buf sums = {0};

	f = open_memstream(&text, &len);
	CHECK(ab_manifest_env(f, outdir, "a") == 0);
	fclose(f);
	CHECK_STR(text, "unset LD_PRELOAD\nunset MALLOC_CONF\nunset ZZ_X\n");
	free(text);
	f = open_memstream(&text, &len);
	CHECK(ab_manifest_env(f, outdir, "b") == 0);
	fclose(f);
	CHECK_STR(text, "unset LD_PRELOAD\nexport MALLOC_CONF='it'\\''s:1'\nexport ZZ_X='v'\n");
	free(text);
	p2 = put("out/variants/a/build/a", "#!/bin/sh\n", 10);
	CHECK(chmod(p2, 0755) == 0);
	free(p2);
	f = open_memstream(&text, &len);
	CHECK(ab_manifest_systems(f, outdir) == 0);
	fclose(f);
	/* a's program where the OUTDIR is now, not where it was built ("binary"); b has neither a program nor an allocator archive: a comment, nothing to run */
	{
		char *want = ab_sprintf("a=%s/variants/a/build/a\n# b: no program artifact\n", outdir);

		CHECK_STR(text, want);
		free(want);
	}
	free(text);

	/* verify: SHA256SUMS plus the statement's subjects, every manifest listed */
	free(put("out/art", "abc", 3));
	ab_hash_buf(hex, "abc", 3);
	{
		const char *st = "{\"_type\": \"https://in-toto.io/Statement/v1\", \"subject\": [{\"name\": \"art\", "
		    "\"digest\": {\"sha256\": \"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"}}], "
		    "\"predicate\": {\"runDetails\": {\"byproducts\": []}}}";

		free(put("out/provenance/provenance.intoto.json", st, strlen(st)));
	}
	ab_buf_printf(&sums, "%s  art\n", hex);
	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		const char *m = ab_manifest_files[i].path;
		char *abs = ab_path_join(outdir, m);
		char mh[AB_HEX_LEN + 1];

		if (ab_manifest_files[i].when == AB_MANIFEST_ALWAYS && strcmp(m, "SHA256SUMS")) {
			if (!ab_path_exists(abs)) {
				char *rel = ab_sprintf("out/%s", m);

				free(put(rel, "{}", 2));
				free(rel);
			}
			CHECK(ab_hash_file(mh, NULL, abs) == 0);
			ab_buf_printf(&sums, "%s  %s\n", mh, m);
		}
		free(abs);
	}
	free(put("out/SHA256SUMS", sums.s, sums.len));
	f = open_memstream(&text, &len);
	CHECK(ab_manifest_verify(f, outdir) == 0);
	fclose(f);
	CHECK(text && strstr(text, "verified 7 files"));
	free(text);
	/* a file under provenance/ that SHA256SUMS does not list */
	p2 = put("out/provenance/upstream-diff.json", "{}", 2);
	f = open_memstream(&text, &len);
	CHECK(ab_manifest_verify(f, outdir) == AB_ECHECK);
	fclose(f);
	CHECK_STR(text, "provenance/upstream-diff.json: not listed in SHA256SUMS: not a file this build recorded\n");
	free(text);
	unlink(p2);
	free(p2);
	free(put("out/art", "abd", 3));
	f = open_memstream(&text, &len);
	CHECK(ab_manifest_verify(f, outdir) == AB_ECHECK);
	fclose(f);
	CHECK(text && !strncmp(text, "art: expected ba7816bf", 22));
	free(text);
	ab_buf_free(&sums);
	free(outdir);
	free(p);
}

int
main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_scan();
	test_env_and_verify();
	ab_rm_rf(dir);
	return unit_done();
}
