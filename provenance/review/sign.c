#include "sign.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../../lib/dirwalk.h"
#include "../../lib/atomic.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../record/bundle.h"
#include "../record/manifest.h"
#include "../record/signersrec.h"
#include "../record/stmtrec.h"
#include "../attest/dsse.h"
#include "../attest/intoto.h"
#include "../attest/keys.h"
#include "../runs/runrec.h"
#include "../compare/testresult.h"
#include "../attest/statement.h"
#include "sbom.h"
#include "vsa.h"

/*
 * Where the Statements of an OUTDIR live: a directory relative to it and a
 * file name. The directory's last component may be "*": every real
 * directory there (the run records of every run name). A name of NULL
 * stands for a run record's, NNNN-LABEL.intoto.json as runrec.h reads it
 * (ab_runrec_record_number), taken in number order. Records that write
 * Statements of their own add their place here (sign.h).
 */
static int is_test_result(const char *base);

static const struct {
	const char *dir, *name;
	int (*is)(const char *base); /* with name NULL: the file names of the place */
} places[] = {
	{"provenance", "provenance.intoto.json", NULL},
	/* build --check and rebuild (provenance/record/manifest.h, AB_MANIFEST_RECORD) */
	{"provenance", "reproducibility.intoto.json", NULL},
	{"provenance", "rebuild.intoto.json", NULL},
	/* allocbuild run (provenance/runs/runrec.h): 0001 .. 9999, then 10000 .. */
	{"runs/*", NULL, NULL},
	/* compare's test results (provenance/compare/testresult.h): NAME.intoto.json, by name */
	{AB_TESTRESULT_DIR, NULL, is_test_result},
	/* the SBOM's (provenance/review/sbom.h), its document a byproduct */
	{AB_SBOM_DIR, "sbom.intoto.json", NULL},
};

static int
is_test_result(const char *base)
{
	char *rel = ab_sprintf("%s/%s", AB_TESTRESULT_DIR, base);
	int is = ab_testresult_is_statement(rel);

	free(rel);
	return is;
}

/* does the file name base belong to place i? */
static int
place_has(size_t i, const char *base)
{
	if (places[i].name)
		return !strcmp(places[i].name, base);
	return places[i].is ? places[i].is(base) : ab_runrec_record_number(base) >= 0;
}

/* "s" for a plural */
static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* run records by number (9999 before 10000), then by name */
static int
cmp_record(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int nx = ab_runrec_record_number(x), ny = ab_runrec_record_number(y);

	return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
}

/* ---- where the Statements are ---- */

/* the directories a place's dir stands for, relative to outdir, sorted */
static int
place_dirs(struct ab_strv *dirs, const char *outdir, const char *pat)
{
	size_t n = strlen(pat);
	char *parent, *abs;
	struct dirent *de;
	DIR *d;

	if (n < 2 || strcmp(pat + n - 2, "/*")) {
		ab_strv_push(dirs, pat);
		return 0;
	}
	parent = ab_strndup(pat, n - 2);
	abs = ab_path_join(outdir, parent);
	if (!(d = opendir(abs))) {
		int e = errno;

		free(abs);
		free(parent);
		if (e == ENOENT || e == ENOTDIR)
			return 0;
		errno = e;
		ab_error_errno("cannot read '%s/%s'", outdir, pat);
		return AB_EFAIL;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			ab_strv_pushf(dirs, "%s/%s", parent, de->d_name);
	}
	closedir(d);
	if (dirs->n)
		ab_strv_sort(dirs);
	free(abs);
	free(parent);
	return 0;
}

static int statements_in(struct ab_strv *out, const char *outdir, const char *reldir, size_t place);

int
ab_sign_statements(struct ab_strv *out, const char *outdir)
{
	for (size_t i = 0; i < AB_NELEM(places); i++) {
		struct ab_strv dirs = {0};
		int e = place_dirs(&dirs, outdir, places[i].dir);

		for (size_t j = 0; j < dirs.n && e == 0; j++)
			e = statements_in(out, outdir, dirs.v[j], i);
		ab_strv_free(&dirs);
		if (e < 0)
			return e;
	}
	return 0;
}

/* ab_dirwalk_files' test: a file name of the place *arg */
static int
accept_place(const char *name, void *arg)
{
	return place_has(*(const size_t *)arg, name);
}

/* the Statements of one directory of a place, sorted */
static int
statements_in(struct ab_strv *out, const char *outdir, const char *reldir, size_t place)
{
	return ab_dirwalk_files(out, outdir, reldir, accept_place, &place,
	    places[place].name || places[place].is ? ab_cmp_str : cmp_record);
}

int
ab_sign_is_statement(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	if (!slash)
		return 0;
	for (size_t i = 0; i < AB_NELEM(places); i++) {
		char *dir = ab_strndup(rel, (size_t)(slash - rel));
		int match = fnmatch(places[i].dir, dir, FNM_PATHNAME | FNM_PERIOD) == 0 && place_has(i, slash + 1);

		free(dir);
		if (match)
			return 1;
	}
	return 0;
}

int
ab_sign_is_signed_member(const char *rel)
{
	return ab_sign_is_statement(rel) || !strcmp(rel, AB_SIGN_ENVELOPES);
}

/* a Statement at hand, and the envelope line that carries it */
struct stmt {
	const char *rel;
	const void *data;
	size_t len;
	size_t line; /* 0: no line yet */
};

struct stmts {
	struct stmt *v;
	size_t n;
	struct ab_strv names;  /* owned names and ... */
	struct ab_buf *bufs;   /* ... bytes, for Statements read from a directory */
};

/* ---- what a Statement names ---- */

/*
 * The first name of a Statement (provenance/record/stmtrec.h: its subject,
 * then its byproducts) that is no safe relative path (lib/util: empty,
 * absolute, or with a ".." component: a file outside the OUTDIR that a
 * verifier, sha256sum -c included, would be sent to) into *what
 * ("subject" or "byproduct") and returned, owned by its document; NULL
 * when every name is safe (a missing or non-string name is returned as "")
 */
static const char *
unsafe_name(const struct ab_stmtrec *st, const char **what)
{
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < st->lists[k].n; i++) {
			const char *name = st->lists[k].v[i].name;

			if (!name || !ab_path_is_safe_relative(name)) {
				*what = k == AB_STMTREC_BYPRODUCTS ? "byproduct" : "subject";
				return name ? name : "";
			}
		}
	return NULL;
}

/* ---- signing ---- */

/* a Statement's bytes; refused unless they are a JSON object with an in-toto Statement _type */
static int
read_statement(struct ab_buf *b, const char *outdir, const char *rel)
{
	char *path = ab_path_join(outdir, rel);
	const char *name, *what = NULL;
	cJSON *doc = NULL;
	struct ab_stmtrec st = {0};
	int error = AB_EFAIL;

	ab_buf_clear(b);
	if (ab_read_file(b, path) < 0)
		goto done;
	doc = cJSON_ParseWithLength(b->s, b->len);
	if (!cJSON_IsObject(doc) || !ab_statement_is(doc, 1)) {
		ab_error("'%s' is not an in-toto Statement: refusing to sign it", path);
		goto done;
	}
	ab_stmtrec_read(&st, doc);
	if ((name = unsafe_name(&st, &what))) {
		char *pn = ab_dsse_printable(name);

		ab_error("'%s': a %s has no safe relative name ('%s'): refusing to sign it", path, what, pn);
		free(pn);
		error = AB_ECHECK;
		goto done;
	}
	error = 0;
done:
	ab_stmtrec_release(&st);
	cJSON_Delete(doc);
	free(path);
	return error;
}

/* signers.json: the envelopes, the statements they carry, the keys (provenance/record/signersrec.h) */
static cJSON *
signers_doc(const struct ab_strv *statements, struct ab_key *const *keys, size_t nkeys)
{
	struct ab_signersrec_key *v = ab_calloc(nkeys + 1, sizeof(*v));
	struct ab_signersrec s = {.envelopes = AB_SIGN_ENVELOPES, .payload_type = AB_DSSE_INTOTO,
	    .statements = statements, .v = v, .n = nkeys};
	cJSON *doc;

	for (size_t i = 0; i < nkeys; i++) {
		v[i].keyid = ab_key_id(keys[i]);
		v[i].algorithm = ab_key_algorithm(keys[i]);
	}
	doc = ab_signersrec_json(&s);
	free(v);
	return doc;
}

int
ab_sign_outdir(size_t *nsigned, const char *outdir, struct ab_key *const *keys, size_t nkeys,
    ab_intoto_tree_fn *trees)
{
	return ab_sign_outdir_results(nsigned, outdir, keys, nkeys, trees, NULL);
}

int
ab_sign_outdir_results(size_t *nsigned, const char *outdir, struct ab_key *const *keys, size_t nkeys,
    ab_intoto_tree_fn *trees, const struct ab_compare_opts *results)
{
	struct ab_manifest_recorded rec = {0};
	struct ab_intoto_known known = {.tree = trees};
	struct ab_strv st = {0}, links = {0}, texts = {0};
	struct ab_buf lines = {0}, b = {0};
	char *path = NULL, *prov = ab_path_join(outdir, "provenance");
	cJSON *doc = NULL;
	int error = AB_EFAIL;

	if (nsigned)
		*nsigned = 0;
	if (!nkeys) {
		ab_error("no key to sign with");
		goto done;
	}
	if (ab_sign_statements(&st, outdir) < 0)
		goto done;
	if (!st.n) {
		ab_error("'%s' has no in-toto statement (provenance/provenance.intoto.json): run 'allocbuild build' first",
		    outdir);
		goto done;
	}
	/*
	 * the runs' test results and the SBOM (its document signed as the
	 * byproduct of a Statement of its own) written first, so that they
	 * are signed with the rest
	 */
	{
		size_t n;
		int e = ab_testresult_write(&n, outdir, results);

		if (e == 0)
			e = ab_sbom_write(outdir, 1);
		if (e < 0) {
			error = e;
			goto done;
		}
	}
	ab_strv_free(&st);
	if (ab_sign_statements(&st, outdir) < 0)
		goto done;
	for (size_t i = 0; i < st.n; i++) {
		if ((error = read_statement(&b, outdir, st.v[i])) < 0)
			goto done;
		error = AB_EFAIL;
		if (ab_dsse_sign(&lines, AB_DSSE_INTOTO, b.s, b.len, keys, nkeys) < 0)
			goto done;
		ab_buf_putc(&lines, '\n');
	}
	/* the in-toto links too, before anything is written */
	if (ab_manifest_recorded_read(&rec, outdir, 1) == 0) {
		known.paths = &rec.paths;
		known.hexes = &rec.hexes;
	}
	if (ab_intoto_make(&links, &texts, outdir, keys, nkeys, &known) < 0)
		goto done;
	if (ab_mkdir_p(prov, 0755) < 0)
		goto done;
	path = ab_path_join(outdir, AB_SIGN_ENVELOPES);
	if (ab_write_file_atomic(path, lines.s, lines.len) < 0)
		goto done;
	free(path);
	path = ab_path_join(outdir, AB_SIGN_SIGNERS);
	doc = signers_doc(&st, keys, nkeys);
	if (ab_json_write(path, doc) < 0 || ab_intoto_write(outdir, &links, &texts) < 0)
		goto done;
	if (nsigned)
		*nsigned = st.n;
	error = 0;
done:
	ab_manifest_recorded_release(&rec);
	cJSON_Delete(doc);
	ab_strv_free(&st);
	ab_strv_free(&links);
	ab_strv_free(&texts);
	ab_buf_free(&lines);
	ab_buf_free(&b);
	free(path);
	free(prov);
	return error;
}

/* ---- verifying ---- */

/* where the names of a Statement are looked up: a directory, or a bundle's members */
struct files {
	const char *root;
	const struct ab_bundle_members *bundle;
	/*
	 * names may climb out of root before they go down ("../../work/bo/x"):
	 * a VSA's subjects, in an envelopes file checked on its own, named
	 * from its directory wherever it was written (provenance/review/vsa.h);
	 * never an OUTDIR's or a bundle's
	 */
	int climb;
	struct ab_strv names; /* hashed so far, and ... */
	struct ab_strv hexes; /* ... their digests ("" for a missing file) */
};

/* what one verification found */
struct check {
	FILE *out;
	const char *label; /* the envelopes, as messages name them */
	const char *where; /* "the OUTDIR", "the bundle" */
	const struct ab_sign_verify_opts *o;
	struct files *files;
	struct stmts *stmts;
	size_t failed;
	size_t lines, subjects, byproducts, unchecked, sigs;
	size_t unread;                 /* lines refused before their payload was looked at */
	struct ab_strv payloads;       /* sha256 of each line's payload, in line order */
	struct ab_strv keyids;         /* without keys: the ids seen */
	/* the failure being repeated, line after line (a wrong key fails every line alike): said once */
	struct ab_buf pending;
	size_t pending_first, pending_last;
	int alone;                     /* an envelopes file checked on its own: a VSA's names may climb */
	char *signed_all;              /* per key: it signed every line that passed (the summary names them) */
};

/* the failure held back, said once for the lines it held for */
static void
flush_fail(struct check *c)
{
	if (!c->pending.len)
		return;
	if (!c->pending_first)
		fprintf(c->out, "%s: %s\n", c->label, c->pending.s);
	else if (c->pending_first == c->pending_last)
		fprintf(c->out, "%s:%zu: %s\n", c->label, c->pending_first, c->pending.s);
	else
		fprintf(c->out, "%s:%zu-%zu: %s (%zu lines alike)\n", c->label, c->pending_first, c->pending_last,
		    c->pending.s, c->pending_last - c->pending_first + 1);
	ab_buf_clear(&c->pending);
}

/* a failed check: "<label>:<line>: <what>", or "<label>: <what>" for line 0 */
static void fail(struct check *c, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
fail(struct check *c, size_t line, const char *fmt, ...)
{
	struct ab_buf m = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&m, fmt, ap);
	va_end(ap);
	if (line && c->pending.len && c->pending_first && line == c->pending_last + 1 && !strcmp(c->pending.s, m.s)) {
		c->pending_last = line;
	} else {
		flush_fail(c);
		ab_buf_puts(&c->pending, m.s);
		c->pending_first = c->pending_last = line;
	}
	ab_buf_free(&m);
	c->failed++;
}

/* a name verify looks up: a safe relative path, or with f->climb one that climbs first ("../x") */
static int
name_ok(const struct files *f, const char *name)
{
	if (ab_path_is_safe_relative(name))
		return 1;
	if (!f->climb || strncmp(name, "../", 3))
		return 0;
	while (!strncmp(name, "../", 3))
		name += 3;
	return ab_path_is_safe_relative(name);
}

/*
 * The digest of name: 0 with hex, 1 when there is no such file (or
 * member). A directory's files were all hashed by prehash() first.
 */
static int
file_digest(const struct files *f, const char *name, char hex[AB_HEX_LEN + 1])
{
	if (f->bundle) {
		const struct ab_bundle_member *m = ab_bundle_member(f->bundle, name);

		if (!m)
			return 1;
		memcpy(hex, m->hex, AB_HEX_LEN + 1);
		return 0;
	}
	for (size_t i = 0; i < f->names.n; i++)
		if (!strcmp(f->names.v[i], name)) {
			snprintf(hex, AB_HEX_LEN + 1, "%s", f->hexes.v[i]);
			return hex[0] ? 0 : 1;
		}
	return 1;
}

struct sized {
	const char *name;
	char *path; /* joined to the root once */
	off_t size;
	int exists; /* lstat found it; else its hash is "" */
};

static int
cmp_size_desc(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	return x->size < y->size ? 1 : x->size > y->size ? -1 : strcmp(x->name, y->name);
}

/* hash every name of the lists (subject, byproducts) not hashed yet into the cache, in parallel */
static int
prehash(struct files *f, const struct ab_stmtrec_list *lists, size_t nlists)
{
	struct sized *v = NULL;
	char (*hex)[AB_HEX_LEN + 1];
	char **paths;
	size_t n = 0, cap = 0, nfiles = 0;
	int rc;

	if (!f->root)
		return 0;
	for (size_t l = 0; l < nlists; l++)
		for (size_t i = 0; i < lists[l].n; i++) {
			const char *name = lists[l].v[i].name;
			struct stat st;
			int seen = 0;

			if (!name || !name_ok(f, name))
				continue;
			for (size_t k = 0; !seen && k < f->names.n; k++)
				seen = !strcmp(f->names.v[k], name);
			for (size_t k = 0; !seen && k < n; k++)
				seen = !strcmp(v[k].name, name);
			if (seen)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				v = ab_realloc(v, cap * sizeof(*v));
			}
			v[n].name = name;
			v[n].path = ab_path_join(f->root, name);
			v[n].exists = lstat(v[n].path, &st) == 0;
			/* a symlink's size for the order is its target's */
			if (v[n].exists && S_ISLNK(st.st_mode) && stat(v[n].path, &st) < 0)
				st.st_size = 0;
			v[n].size = v[n].exists ? st.st_size : 0;
			n++;
		}
	if (n)
		qsort(v, n, sizeof(*v), cmp_size_desc);
	/* the files that are there, hashed together (lib/hash), largest first */
	hex = ab_calloc(n + 1, sizeof(*hex));
	paths = ab_calloc(n + 1, sizeof(*paths));
	for (size_t i = 0; i < n; i++)
		if (v[i].exists)
			paths[nfiles++] = v[i].path;
	rc = ab_hash_files(hex, NULL, (const char *const *)paths, nfiles, 0, 0);
	for (size_t i = 0, k = 0; rc == 0 && i < n; i++) {
		ab_strv_push(&f->names, v[i].name);
		ab_strv_push(&f->hexes, v[i].exists ? hex[k++] : "");
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(paths);
	free(hex);
	free(v);
	return rc;
}

/*
 * The signatures of a line, with the keys given (ab_dsse_verify_keys):
 * accepted[k] (nkeys entries) is set for each key that verified one. 0,
 * or AB_ECHECK after printing why.
 */
static int
check_signatures(struct check *c, size_t n, const struct ab_dsse *e, char *accepted)
{
	struct ab_strv why = {0};
	int rc = ab_dsse_verify_keys(e, c->o->keys, c->o->nkeys, c->o->require_all, accepted, &why);

	for (size_t i = 0; i < why.n; i++)
		fail(c, n, "%s", why.v[i]);
	ab_strv_free(&why);
	return rc;
}

/*
 * The mode a byproduct's annotation gives (a file of inputs/,
 * AB_MANIFEST_MODE) against the file's or member's: 0 when it has none,
 * or they agree, or the file is missing (reported as such); else 1 and
 * *want (the annotation's, NULL when it is no mode) and *have
 */
static int
mode_differs(const struct files *f, const struct ab_stmtrec_descriptor *d, const char **want, const char **have)
{
	const struct ab_bundle_member *m;
	const char *name = d->name;
	struct stat st;
	int exec;

	*want = d->mode;
	if (!*want)
		return 0;
	if (f->bundle) {
		if (!(m = ab_bundle_member(f->bundle, name)))
			return 0;
		exec = m->exec;
	} else {
		char *path = ab_path_join(f->root, name);
		int rc = stat(path, &st);

		free(path);
		if (rc < 0)
			return 0;
		exec = ab_manifest_mode_exec(st.st_mode);
	}
	*have = ab_manifest_mode_name(exec);
	if (strcmp(*want, ab_manifest_mode_name(0)) && strcmp(*want, ab_manifest_mode_name(1)))
		*want = NULL;
	return !*want || strcmp(*want, *have);
}

/* a signed mode against the file's: 0, or a failure printed */
static int
check_mode(struct check *c, size_t n, const struct ab_stmtrec_descriptor *d, const char *pn)
{
	const char *want, *have;

	if (!mode_differs(c->files, d, &want, &have))
		return 0;
	if (want)
		fail(c, n, "%s: mode mismatch: signed %s, actual %s", pn, want, have);
	else
		fail(c, n, "%s: the signed mode is neither %s nor %s", pn, ab_manifest_mode_name(0),
		    ab_manifest_mode_name(1));
	return -1;
}

/*
 * Without keys nothing else reads the Statements at hand: each name must
 * be a safe relative path ("<statement>: a subject has no safe relative
 * name ('../x')") and each mode recorded must be the file's
 * ("<statement>: NAME: mode mismatch: recorded 0755, actual 0644"). The
 * count of the problems printed.
 */
static size_t
check_statements_unsigned(FILE *out, const struct files *f, const struct stmts *s)
{
	size_t bad = 0;

	for (size_t i = 0; i < s->n; i++) {
		cJSON *doc = cJSON_ParseWithLength((const char *)s->v[i].data, s->v[i].len);
		struct ab_stmtrec st;
		const char *what = NULL, *name, *want, *have;

		ab_stmtrec_read(&st, doc);
		name = doc ? unsafe_name(&st, &what) : NULL;
		if (name) {
			char *pn = ab_dsse_printable(name);

			fprintf(out, "%s: a %s has no safe relative name ('%s')\n", s->v[i].rel, what, pn);
			free(pn);
			bad++;
		} else if (doc) {
			for (int k = 0; k < 2; k++)
				for (size_t j = 0; j < st.lists[k].n; j++) {
					const struct ab_stmtrec_descriptor *d = &st.lists[k].v[j];
					char *pn;

					if (!mode_differs(f, d, &want, &have))
						continue;
					pn = ab_dsse_printable(d->name);
					fprintf(out, "%s: %s: mode mismatch: recorded %s, actual %s\n", s->v[i].rel, pn,
					    want ? want : "(not a mode)", have);
					free(pn);
					bad++;
				}
		}
		ab_stmtrec_release(&st);
		cJSON_Delete(doc);
	}
	return bad;
}

/* check the digests of one list of a Statement (subject or byproducts), and the modes signed */
static void
check_names(struct check *c, size_t n, const struct ab_stmtrec_list *list, const char *what, size_t *matched,
    struct ab_strv *unchecked)
{
	if (list->present && !list->array) {
		fail(c, n, "the statement's %s is not a list", what);
		return;
	}
	for (size_t i = 0; i < list->n; i++) {
		const struct ab_stmtrec_descriptor *d = &list->v[i];
		const char *name = d->name, *want = d->sha256;
		char hex[AB_HEX_LEN + 1];
		char *pn;
		int rc;

		if (!name || !name_ok(c->files, name)) {
			pn = ab_dsse_printable(name);
			fail(c, n, "a %s has no safe relative name ('%s')", what, pn);
			free(pn);
			continue;
		}
		pn = ab_dsse_printable(name);
		if (!want || !ab_is_hex(want, AB_HEX_LEN)) {
			fail(c, n, "%s: no sha256 digest to check", pn);
		} else if ((rc = file_digest(c->files, name, hex)) == 1 && c->files->bundle && !strcmp(what, "subject")) {
			/* artifacts are not bundled: say which, with the digest a reader can compare */
			ab_strv_pushf(unchecked, "%s sha256 %s", pn, want);
		} else if (rc == 1) {
			fail(c, n, "%s: signed sha256 %s, actual missing%s", pn, want,
			    c->files->bundle ? " from the bundle" : "");
		} else if (strcmp(hex, want)) {
			fail(c, n, "%s: sha256 mismatch: signed %s, actual %s", pn, want, hex);
		} else if (check_mode(c, n, d, pn) == 0) {
			(*matched)++;
		}
		free(pn);
	}
}

/* a line whose signature verified: which Statement it carries, then every digest in it */
static int
check_payload(struct check *c, size_t n, const struct ab_dsse *e, const char *accepted)
{
	struct ab_strv unchecked = {0};
	char hex[AB_HEX_LEN + 1];
	const char *which = NULL;
	struct ab_stmtrec st = {0};
	cJSON *doc = NULL;
	size_t failed = c->failed, nsub = 0, nbyp = 0;
	int rc = 0;

	ab_hash_buf(hex, e->payload, e->payload_len);
	for (size_t i = 0; i < c->payloads.n; i++)
		if (!strcmp(c->payloads.v[i], hex)) {
			fail(c, n, "the same statement as line %zu (a duplicated line)", i + 1);
			ab_strv_push(&c->payloads, "");
			return 0;
		}
	ab_strv_push(&c->payloads, hex);
	for (size_t i = 0; c->stmts && i < c->stmts->n; i++) {
		struct stmt *s = &c->stmts->v[i];

		if (s->len == e->payload_len && !memcmp(s->data, e->payload, s->len)) {
			s->line = n;
			which = s->rel;
			break;
		}
	}
	if (c->stmts && !which)
		fail(c, n, "signs a statement that %s does not hold (no statement file there has its bytes)", c->where);
	doc = cJSON_ParseWithLength((const char *)e->payload, e->payload_len);
	if (!cJSON_IsObject(doc)) {
		fail(c, n, "the payload is not a JSON object");
		goto done;
	}
	ab_stmtrec_read(&st, doc);
	if (!ab_statement_is(doc, 1)) {
		char *t = ab_dsse_printable(st.type);

		fail(c, n, "the payload is not an in-toto Statement (_type '%s')", t);
		free(t);
		goto done;
	}
	c->files->climb = c->alone && !c->stmts && st.predicate_type && !strcmp(st.predicate_type, AB_VSA_PREDICATE);
	if ((rc = prehash(c->files, st.lists, 2)) < 0)
		goto done;
	check_names(c, n, &st.lists[AB_STMTREC_SUBJECT], "subject", &nsub, &unchecked);
	check_names(c, n, &st.lists[AB_STMTREC_BYPRODUCTS], "byproduct", &nbyp, &unchecked);
	c->subjects += nsub;
	c->byproducts += nbyp;
	c->unchecked += unchecked.n;
	if (c->failed != failed)
		goto done;
	for (size_t k = 0; c->signed_all && k < c->o->nkeys; k++)
		c->signed_all[k] &= accepted[k] != 0;
	/* each line's own ok with -v; by default the one line of the end says it for all */
	if (!ab_verbose)
		goto done;
	flush_fail(c);
	fprintf(c->out, "%s:%zu: ok: %s, signed by", c->label, n, which ? which : "a statement");
	for (size_t k = 0, any = 0; k < c->o->nkeys; k++)
		if (accepted[k])
			fprintf(c->out, "%s %s %s ('%s')", any++ ? "," : "", ab_key_algorithm(c->o->keys[k]),
			    ab_key_id(c->o->keys[k]), ab_key_path(c->o->keys[k]));
	fprintf(c->out, "; %zu subject%s and %zu byproduct%s match", nsub, plural(nsub), nbyp, plural(nbyp));
	if (unchecked.n)
		fprintf(c->out, "; %zu subject%s not in the bundle, not checked:\n", unchecked.n, plural(unchecked.n));
	else
		fputc('\n', c->out);
	for (size_t i = 0; i < unchecked.n; i++)
		fprintf(c->out, "  %s\n", unchecked.v[i]);
done:
	ab_stmtrec_release(&st);
	cJSON_Delete(doc);
	ab_strv_free(&unchecked);
	return rc;
}

static int
check_line(struct check *c, size_t n, const char *line, size_t len)
{
	struct ab_dsse e;
	struct ab_buf why = {0};
	char *accepted = ab_calloc(c->o->nkeys + 1, 1);
	int rc = 0;

	if (ab_dsse_parse(&e, line, len, &why) < 0) {
		fail(c, n, "not a DSSE envelope: %s", why.s);
		ab_strv_push(&c->payloads, "");
		c->unread++;
		goto done;
	}
	c->sigs += e.nsigs;
	if (!c->o->nkeys) {
		for (size_t i = 0; i < e.nsigs; i++) {
			char *id = ab_dsse_printable(e.sigs[i].keyid ? e.sigs[i].keyid : "(none)");
			size_t k;

			for (k = 0; k < c->keyids.n && strcmp(c->keyids.v[k], id); k++)
				;
			if (k == c->keyids.n)
				ab_strv_push_owned(&c->keyids, id);
			else
				free(id);
		}
		goto done;
	}
	/* the protocol's order: the signature, then the type, then the body */
	if (check_signatures(c, n, &e, accepted) < 0) {
		ab_strv_push(&c->payloads, "");
		c->unread++;
		goto done;
	}
	if (strcmp(e.payload_type, AB_DSSE_INTOTO)) {
		char *t = ab_dsse_printable(e.payload_type);

		fail(c, n, "payload type '%s' is not %s", t, AB_DSSE_INTOTO);
		free(t);
		ab_strv_push(&c->payloads, "");
		c->unread++;
		goto done;
	}
	rc = check_payload(c, n, &e, accepted);
done:
	free(accepted);
	ab_dsse_release(&e);
	ab_buf_free(&why);
	return rc;
}

/* every line of the envelopes, then the Statements no line carried */
static int
check_all(struct check *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int rc = 0;

	free(c->signed_all);
	c->signed_all = ab_malloc(c->o->nkeys + 1);
	memset(c->signed_all, 1, c->o->nkeys + 1);

	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		c->lines++;
		if (n == 0) {
			fail(c, c->lines, "empty line");
			ab_strv_push(&c->payloads, "");
			c->unread++;
		} else {
			rc = check_line(c, c->lines, p, n);
		}
		p += n + (nl != NULL);
	}
	if (rc < 0) {
		flush_fail(c);
		return rc;
	}
	if (!c->lines)
		fail(c, 0, "no envelopes");
	flush_fail(c);
	if (!c->o->nkeys && !c->lines)
		return AB_ECHECK;
	if (!c->o->nkeys && ab_quiet)
		return c->failed ? AB_ECHECK : 0;
	if (!c->o->nkeys) {
		fprintf(c->out, "%s: %zu envelope%s with %zu signature%s", c->label, c->lines, plural(c->lines),
		    c->sigs, plural(c->sigs));
		for (size_t i = 0; i < c->keyids.n; i++)
			fprintf(c->out, "%s %s", i ? "," : " (keyid", c->keyids.v[i]);
		fprintf(c->out, "%s: signatures present, not checked (verify --key PUB.pem checks them)\n",
		    c->keyids.n ? ")" : "");
		return c->failed ? AB_ECHECK : 0;
	}
	/* a line refused unread may carry the Statement: its own failure says enough */
	for (size_t i = 0; c->stmts && !c->unread && i < c->stmts->n; i++)
		if (!c->stmts->v[i].line) {
			fprintf(c->out, "%s: not signed: no line of %s carries it\n", c->stmts->v[i].rel, c->label);
			c->failed++;
		}
	if (c->failed)
		return AB_ECHECK;
	if (ab_quiet)
		return 0;
	fprintf(c->out, "verified %zu signed statement%s in %s", c->lines, plural(c->lines), c->where);
	for (size_t k = 0, any = 0; c->signed_all && k < c->o->nkeys; k++)
		if (c->signed_all[k])
			fprintf(c->out, "%s %s %s ('%s')", any++ ? "," : ", each signed by", ab_key_algorithm(c->o->keys[k]),
			    ab_key_id(c->o->keys[k]), ab_key_path(c->o->keys[k]));
	fprintf(c->out, ": %zu subject%s and %zu byproduct%s match", c->subjects, plural(c->subjects), c->byproducts,
	    plural(c->byproducts));
	if (c->unchecked)
		fprintf(c->out, "; %zu subject%s not in the bundle, not checked", c->unchecked, plural(c->unchecked));
	fputc('\n', c->out);
	return 0;
}

static void
release_check(struct check *c)
{
	flush_fail(c);
	ab_buf_free(&c->pending);
	free(c->signed_all);
	c->signed_all = NULL;
	ab_strv_free(&c->payloads);
	ab_strv_free(&c->keyids);
	if (c->files) {
		ab_strv_free(&c->files->names);
		ab_strv_free(&c->files->hexes);
	}
}

/* the Statements of a directory, read */
static int
stmts_of_dir(struct stmts *s, const char *dir)
{
	if (ab_sign_statements(&s->names, dir) < 0)
		return AB_EFAIL;
	s->v = ab_calloc(s->names.n + 1, sizeof(*s->v));
	s->bufs = ab_calloc(s->names.n + 1, sizeof(*s->bufs));
	for (size_t i = 0; i < s->names.n; i++) {
		char *path = ab_path_join(dir, s->names.v[i]);
		int rc = ab_read_file(&s->bufs[i], path);

		free(path);
		if (rc < 0)
			return AB_EFAIL;
		s->v[i].rel = s->names.v[i];
		s->v[i].data = s->bufs[i].s;
		s->v[i].len = s->bufs[i].len;
		s->n++;
	}
	return 0;
}

static void
stmts_free(struct stmts *s)
{
	for (size_t i = 0; s->bufs && i < s->names.n; i++)
		ab_buf_free(&s->bufs[i]);
	free(s->bufs);
	free(s->v);
	ab_strv_free(&s->names);
}

/* no envelopes where some were expected: a failure with keys, nothing to say without */
static int
unsigned_input(FILE *out, const char *label, const char *what, const struct ab_sign_verify_opts *o)
{
	if (!o->nkeys)
		return 0;
	fprintf(out, "%s: missing: %s is not signed (allocbuild sign)\n", label, what);
	return AB_ECHECK;
}

int
ab_sign_verify_outdir(FILE *out, const char *outdir, const struct ab_sign_verify_opts *o)
{
	char *path = ab_path_join(outdir, AB_SIGN_ENVELOPES);
	struct files f = {.root = outdir};
	struct stmts s = {0};
	struct check c = {.out = out, .label = AB_SIGN_ENVELOPES, .where = "the OUTDIR", .o = o, .files = &f, .stmts = &s};
	struct ab_buf text = {0};
	size_t bad = 0;
	int rc = AB_EFAIL;

	if (stmts_of_dir(&s, outdir) < 0)
		goto done;
	bad = o->nkeys ? 0 : check_statements_unsigned(out, &f, &s);
	if (!ab_path_exists(path)) {
		rc = unsigned_input(out, AB_SIGN_ENVELOPES, "the OUTDIR", o);
		goto done;
	}
	if (ab_read_file(&text, path) < 0)
		goto done;
	for (size_t i = 0; o->known_names && o->known_hexes && i < o->known_names->n; i++) {
		ab_strv_push(&f.names, o->known_names->v[i]);
		ab_strv_push(&f.hexes, o->known_hexes->v[i]);
	}
	rc = check_all(&c, text.s, text.len);
done:
	if (rc == 0 && bad)
		rc = AB_ECHECK;
	release_check(&c);
	stmts_free(&s);
	ab_buf_free(&text);
	free(path);
	return rc;
}

int
ab_sign_verify_outdir_all(FILE *out, const char *outdir, const struct ab_sign_verify_opts *o)
{
	struct ab_sign_verify_opts so = *o;
	struct ab_strv names = {0}, hexes = {0};
	int e, e2;

	/* the files hashed for SHA256SUMS are not read again for the signatures */
	e = ab_manifest_verify_seen(out, outdir, &names, &hexes);
	so.known_names = &names;
	so.known_hexes = &hexes;
	if (e != AB_EFAIL && (e2 = ab_sign_verify_outdir(out, outdir, &so)) != 0)
		e = e2 == AB_EFAIL ? AB_EFAIL : AB_ECHECK;
	ab_strv_free(&names);
	ab_strv_free(&hexes);
	return e;
}

int
ab_sign_verify_before_signing(const char *outdir)
{
	struct ab_sign_verify_opts none = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f) {
		ab_error_errno("sign: cannot verify '%s'", outdir);
		return AB_EFAIL;
	}
	rc = ab_sign_verify_outdir_all(f, outdir, &none);
	fclose(f);
	if (rc == AB_ECHECK) {
		char *shown = ab_shown(outdir);

		for (const char *p = text; p && *p;) {
			size_t n = strcspn(p, "\n");

			ab_error("sign: %.*s", (int)n, p);
			p += n + (p[n] == '\n');
		}
		ab_error("sign: '%s' does not verify ('allocbuild verify %s'): nothing signed", shown, shown);
		free(shown);
	}
	free(text);
	return rc;
}

int
ab_sign_verify_bundle(FILE *out, const char *bundle, const struct ab_bundle_members *m,
    const struct ab_sign_verify_opts *o)
{
	const struct ab_bundle_member *env = ab_bundle_member(m, AB_SIGN_ENVELOPES);
	struct files f = {.bundle = m};
	struct stmts s = {0};
	struct check c = {.out = out, .label = AB_SIGN_ENVELOPES, .where = "the bundle", .o = o, .files = &f, .stmts = &s};
	size_t bad;
	int rc;

	(void)bundle;
	s.v = ab_calloc(m->n + 1, sizeof(*s.v));
	for (size_t i = 0; i < m->n; i++)
		if (ab_sign_is_statement(m->v[i].name)) {
			s.v[s.n].rel = m->v[i].name;
			s.v[s.n].data = m->v[i].data.s ? m->v[i].data.s : "";
			s.v[s.n].len = m->v[i].data.len;
			s.n++;
		}
	bad = o->nkeys ? 0 : check_statements_unsigned(out, &f, &s);
	if (!env)
		rc = unsigned_input(out, AB_SIGN_ENVELOPES, "the bundle", o);
	else
		rc = check_all(&c, env->data.s ? env->data.s : "", env->data.len);
	if (rc == 0 && bad)
		rc = AB_ECHECK;
	release_check(&c);
	free(s.v);
	return rc;
}

int
ab_sign_verify_file(FILE *out, const char *path, const struct ab_sign_verify_opts *o)
{
	char *dir = ab_path_dirname(path), *base;
	const char *last = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	struct files f = {0};
	struct stmts s = {0};
	struct check c = {.out = out, .label = path, .o = o, .files = &f, .alone = 1};
	struct ab_buf text = {0};
	int rc = AB_EFAIL;

	/* names are relative to the OUTDIR: the file's directory, or the one above OUTDIR/provenance */
	base = !strcmp(last, "provenance") ? ab_path_dirname(dir) : ab_strdup(dir);
	f.root = base;
	c.where = "the OUTDIR";
	if (ab_read_file(&text, path) < 0 || stmts_of_dir(&s, base) < 0)
		goto done;
	/* Statements beside the file are held to it; a file on its own is checked alone */
	if (s.n)
		c.stmts = &s;
	rc = check_all(&c, text.s ? text.s : "", text.len);
done:
	release_check(&c);
	stmts_free(&s);
	ab_buf_free(&text);
	free(dir);
	free(base);
	return rc;
}

int
ab_sign_is_envelope_file(const char *path)
{
	size_t len = strlen(path);
	char buf[256];
	int fd;
	ssize_t n;

	if (len > 6 && !strcmp(path + len - 6, ".jsonl"))
		return 1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')
			continue;
		return buf[i] == '{';
	}
	return 0;
}

int
ab_sign_uncovered(int *is_signed, struct ab_strv *out, const char *outdir)
{
	char *path = ab_path_join(outdir, AB_SIGN_ENVELOPES);
	struct stmts s = {0};
	struct ab_buf text = {0};
	int rc = AB_EFAIL;

	*is_signed = ab_path_exists(path);
	if (!*is_signed) {
		rc = 0;
		goto done;
	}
	if (ab_read_file(&text, path) < 0 || stmts_of_dir(&s, outdir) < 0)
		goto done;
	for (const char *p = text.s, *end = text.s + text.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct ab_dsse e;
		struct ab_buf why = {0};

		/* only which bytes a line carries: whether its signatures hold is verify --key's question */
		if (n && ab_dsse_parse(&e, p, n, &why) == 0) {
			for (size_t i = 0; i < s.n; i++)
				if (s.v[i].len == e.payload_len && !memcmp(s.v[i].data, e.payload, e.payload_len))
					s.v[i].line = 1;
			ab_dsse_release(&e);
		}
		ab_buf_free(&why);
		p += n + (nl != NULL);
	}
	for (size_t i = 0; i < s.n; i++)
		if (!s.v[i].line)
			ab_strv_push(out, s.v[i].rel);
	rc = 0;
done:
	stmts_free(&s);
	ab_buf_free(&text);
	free(path);
	return rc;
}
