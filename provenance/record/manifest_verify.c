/*
 * manifest_verify: verify of an OUTDIR: every file SHA256SUMS lists, and
 * every subject and byproduct of the statement, hashed once and compared
 * with each expectation; the run records under runs/ checked; and the
 * coverage rules (ab_manifest_check_listing, shared with the bundle's
 * verify): what SHA256SUMS lists, the statement names and OUTDIR holds
 * agree.
 */
#include "manifest.h"
#include "manifest_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/dirwalk.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "../attest/intoto.h"
#include "../attest/statement.h"
#include "../runs/runrec.h"

/* ---- verify ---- */

/* a path as printed: no control character of a hostile name reaches the terminal */
static void
put_path(FILE *out, const char *rel)
{
	char *s = ab_shown(rel);

	fputs(s, out);
	free(s);
}

static void
problem(struct verifier *v, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
problem(struct verifier *v, const char *rel, const char *fmt, ...)
{
	va_list ap;

	put_path(v->out, rel);
	fputs(": ", v->out);
	va_start(ap, fmt);
	vfprintf(v->out, fmt, ap);
	va_end(ap);
	fputc('\n', v->out);
	v->bad++;
}

/*
 * What a file's hash failing with err says: a missing file (ENOENT), a
 * file of another type (EINVAL, ENOTDIR) or a path leaving OUTDIR (EXDEV,
 * ELOOP) is what the file holds, for the caller to compare; anything else
 * is a failure of the environment (an I/O error).
 */
static int
is_content_errno(int err)
{
	return err == ENOENT || err == EINVAL || err == EXDEV || err == ELOOP || err == ENOTDIR;
}

/* rel's outcome into v->seen: its digest, or (err, why) why it has none */
static struct sum *
seen_add(struct verifier *v, const char *rel, const char *hex, int err, const char *why)
{
	struct sum *s;

	ab_manifest_add_sum(&v->seen, rel, err ? "" : hex);
	s = &v->seen.v[v->seen.n - 1];
	if (err)
		s->why = ab_strdup(err == ENOENT ? "missing" : why);
	return s;
}

/*
 * Hash rel below OUTDIR once, through the one resolver (a symlink only
 * inside OUTDIR, no fifo or device read): its sum in v->seen, with why it
 * has no digest. A failure of the environment is reported and AB_EFAIL.
 */
static int
hash_seen(struct sum **out, struct verifier *v, const char *rel)
{
	char hex[AB_HEX_LEN + 1] = "", why[AB_BENEATH_WHY];
	int err = 0;

	if ((*out = ab_manifest_find_sum(&v->seen, rel)))
		return 0;
	if (ab_hash_file_beneath(hex, NULL, v->rootfd, rel, 0, why) < 0) {
		err = errno;
		if (!is_content_errno(err)) {
			char *p = ab_path_join(v->outdir, rel);

			ab_error("cannot read '%s': %s", p, why);
			free(p);
			return AB_EFAIL;
		}
	}
	*out = seen_add(v, rel, hex, err, why);
	return 0;
}

/*
 * Hash the files SHA256SUMS lists all at once, on the pool, before they
 * are compared in order: the reads of a cold OUTDIR overlap, and the run
 * records are then in the page cache for check_runs. A failure of the
 * environment is left for hash_seen to meet again, and report, in order.
 */
static void
prefetch_seen(struct verifier *v, const char *const *rels, size_t n)
{
	struct ab_hash_result *res = ab_calloc(n ? n : 1, sizeof(*res));

	ab_hash_files_beneath(res, v->rootfd, rels, n, 0, 0);
	for (size_t i = 0; i < n; i++) {
		if (!ab_manifest_find_sum(&v->seen, rels[i]) && (res[i].err == 0 || is_content_errno(res[i].err)))
			seen_add(v, rels[i], res[i].hex, res[i].err, res[i].why);
		free(res[i].why);
	}
	free(res);
}

/*
 * Check one expected digest of a file. A file named again (SHA256SUMS, then
 * the statement's subjects and byproducts) is hashed once, but every
 * expectation is compared with what the file holds: a digest replaced in
 * SHA256SUMS alone must not hide a tampered subject.
 */
static int
check_one(struct verifier *v, const char *rel, const char *want)
{
	struct sum *s;

	if (hash_seen(&s, v, rel) < 0)
		return AB_EFAIL;
	/* a mismatch already printed for the same expectation is not repeated */
	if (s->want && !strcmp(s->want, want))
		return 0;
	if (!s->hex[0])
		problem(v, rel, "expected %s, actual %s", want, s->why);
	else if (strcmp(s->hex, want))
		problem(v, rel, "expected %s, actual %s", want, s->hex);
	free(s->want);
	s->want = ab_strdup(want);
	return 0;
}

/* read a manifest of OUTDIR (bounded, through the resolver); NULL when it cannot be read or parsed */
cJSON *
ab_manifest_read_doc(struct verifier *v, const char *rel)
{
	int fd = ab_dirwalk_open_beneath(v->rootfd, rel, O_RDONLY | O_NONBLOCK, 0, NULL);
	struct ab_buf b = {0};
	cJSON *doc = NULL;

	if (fd < 0)
		return NULL;
	ab_report_mute();
	if (ab_read_fd_max(&b, fd, rel, AB_READ_MAX) == 0)
		doc = cJSON_ParseWithLength(b.s, b.len);
	ab_report_unmute();
	close(fd);
	ab_buf_free(&b);
	return doc;
}

/*
 * OUTDIR's SHA256SUMS, opened through the resolver (rootfd: OUTDIR, or -1
 * when it could not be opened); -1 reported unless quiet: missing, or why
 * it cannot be read (a symlink leaving OUTDIR, ...)
 */
int
ab_manifest_open_sums(int rootfd, const char *outdir, int quiet)
{
	char why[AB_BENEATH_WHY];
	int fd = rootfd < 0 ? -1 : ab_dirwalk_open_beneath(rootfd, "SHA256SUMS", O_RDONLY | O_NONBLOCK, 0, why);

	if (fd < 0 && !quiet) {
		if (rootfd < 0 || errno == ENOENT) {
			ab_error("'%s' has no SHA256SUMS: not an allocbuild output directory", outdir);
		} else {
			char *p = ab_manifest_path(outdir, "SHA256SUMS");

			ab_error("cannot read '%s': %s", p, why);
			free(p);
		}
	}
	return fd;
}

/* SHA256SUMS: its files hashed at once, then every line checked in order; its paths in v->sums */
static int
check_sums_file(struct verifier *v, const char *text)
{
	struct ab_strv lines = {0};
	char **rels, **hexes;
	const char **files;
	size_t nfiles = 0;
	int e = 0;

	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");

		ab_strv_push_owned(&lines, ab_strndup(s, n));
		s += n + (s[n] == '\n');
	}
	/* each line's path and digest (lib/hash.h), NULL when malformed; the safe ones hashed at once */
	rels = ab_calloc(lines.n ? lines.n : 1, sizeof(*rels));
	hexes = ab_calloc(lines.n ? lines.n : 1, sizeof(*hexes));
	files = ab_calloc(lines.n ? lines.n : 1, sizeof(*files));
	for (size_t i = 0; i < lines.n; i++) {
		if (ab_hash_line_parse(lines.v[i], strlen(lines.v[i]), &hexes[i], &rels[i]) < 0)
			rels[i] = NULL;
		else if (ab_path_is_safe_relative(rels[i]))
			files[nfiles++] = rels[i];
	}
	prefetch_seen(v, files, nfiles);
	free(files);
	for (size_t i = 0; i < lines.n && e == 0; i++) {
		char *l = hexes[i], *where = ab_sprintf("SHA256SUMS:%zu", i + 1);
		const char *rel = rels[i];

		if (!rel) {
			problem(v, where, "malformed line");
		} else if (!ab_path_is_safe_relative(rel)) {
			char *p = ab_shown(rel);

			problem(v, where, "unsafe path '%s' (absolute or with '..')", p);
			free(p);
		} else if (ab_strmap_get(&v->listed, rel, NULL)) {
			char *p = ab_shown(rel);

			problem(v, where, "'%s' is listed twice", p);
			free(p);
		} else {
			ab_strv_push(&v->sums, rel);
			ab_strmap_put(&v->listed, v->sums.v[v->sums.n - 1], v->sums.n - 1);
			e = check_one(v, rel, l);
		}
		free(where);
	}
	free(rels);
	free(hexes);
	ab_strv_free(&lines);
	return e;
}

/* the statement's subjects and byproducts, each checked against the file; their names into names */
static int
check_statement(struct verifier *v, const cJSON *stmt, struct ab_strv *names)
{
	const cJSON *lists[2], *it;

	lists[0] = ab_json_get(stmt, "subject");
	lists[1] = ab_json_get(ab_json_get(ab_json_get(stmt, "predicate"), "runDetails"), "byproducts");
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(it, lists[k]) {
			const char *name = ab_json_str(it, "name"), *want = ab_json_str(ab_json_get(it, "digest"), "sha256");

			if (!name || !want || !ab_is_hex(want, AB_HEX_LEN) || !ab_path_is_safe_relative(name)) {
				problem(v, AB_MANIFEST_STATEMENT, "malformed %s", k ? "byproduct" : "subject");
				continue;
			}
			ab_strv_push(names, name);
			if (check_one(v, name, want) < 0)
				return AB_EFAIL;
		}
	return 0;
}

/* the files present under OUTDIR/provenance (anything but directories), as OUTDIR-relative paths */
static int
present_visit(struct ab_dirwalk_entry *e, void *arg)
{
	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	ab_strv_pushf(arg, "provenance/%s", e->path);
	return 0;
}

/* the files present under OUTDIR/runs: every one must be a run's (provenance/runs/runrec.h) */
static int
present_run_visit(struct ab_dirwalk_entry *e, void *arg)
{
	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	ab_strv_pushf(arg, AB_RUN_DIR "/%s", e->path);
	return 0;
}

static int
present_runs(struct ab_strv *present, struct verifier *v)
{
	char *runs = ab_manifest_path(v->outdir, AB_RUN_DIR);
	struct stat st;
	int e = 0;

	if (fstatat(v->rootfd, AB_RUN_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			e = ab_dirwalk(runs, present_run_visit, present);
		else
			ab_strv_push(present, AB_RUN_DIR);
	}
	free(runs);
	return e;
}

/*
 * What a run hashed inside OUTDIR (its program, the files its arguments
 * named): each still holding the digest it ran with, or the record says
 * what changed since. Not needed in SHA256SUMS: a file of a build tree
 * that is no artifact is the run's to name.
 */
static int
check_run_inputs(struct verifier *v, const char *rel, const cJSON *stmt)
{
	struct ab_strv paths = {0}, hexes = {0};
	int e = 0;

	ab_runrec_inputs_inside(&paths, &hexes, stmt);
	for (size_t i = 0; i < paths.n && e == 0; i++) {
		struct sum *seen;

		if (!ab_path_is_safe_relative(paths.v[i])) {
			problem(v, rel, "malformed program or file");
			continue;
		}
		if ((e = hash_seen(&seen, v, paths.v[i])) == 0 && strcmp(seen->hex, hexes.v[i]))
			problem(v, rel, "ran with '%s' of sha256 %s, which is now %s", paths.v[i], hexes.v[i],
			    seen->hex[0] ? seen->hex : seen->why);
	}
	ab_strv_free(&paths);
	ab_strv_free(&hexes);
	return e;
}

/*
 * The run records SHA256SUMS lists: each a run Statement whose subject
 * and byproducts hold what it says, and a run of one of this OUTDIR's
 * builds (ab_runrec_builds: not a record copied from another OUTDIR whose
 * artifacts have the same bytes); what they name into names
 */
static int
check_runs(struct verifier *v, struct ab_strv *names)
{
	struct ab_strv builds = {0};
	cJSON *build = ab_manifest_read_doc(v, AB_MANIFEST_STATEMENT);
	int rc = 0;

	/* an unreadable statement is a problem of its own */
	ab_runrec_builds(&builds, build);
	cJSON_Delete(build);
	for (size_t i = 0; i < v->sums.n && rc == 0; i++) {
		const char *rel = v->sums.v[i];
		struct ab_strv n = {0}, h = {0};
		size_t nsubj;
		cJSON *stmt;
		char *why;
		int e = 0;

		if (!ab_runrec_is_statement(rel))
			continue;
		stmt = ab_manifest_read_doc(v, rel);
		if (!stmt || !ab_json_str(stmt, "predicateType") || strcmp(ab_json_str(stmt, "predicateType"), AB_RUN_PREDICATE)) {
			problem(v, rel, "not a readable run record");
			cJSON_Delete(stmt);
			continue;
		}
		if ((why = ab_runrec_foreign(stmt, &builds))) {
			problem(v, rel, "%s", why);
			free(why);
		}
		ab_runrec_named(&n, &h, stmt);
		nsubj = (size_t)cJSON_GetArraySize(ab_json_get(stmt, "subject"));
		for (size_t j = 0; j < n.n && e == 0; j++) {
			struct sum *seen;

			if (!ab_path_is_safe_relative(n.v[j]) || !ab_is_hex(h.v[j], AB_HEX_LEN)) {
				problem(v, rel, "malformed subject or byproduct");
				continue;
			}
			ab_strv_push(names, n.v[j]);
			if (j >= nsubj) {
				e = check_one(v, n.v[j], h.v[j]);
				continue;
			}
			/* the artifact the run ran: a later build may have replaced it */
			if ((e = hash_seen(&seen, v, n.v[j])) == 0 && strcmp(seen->hex, h.v[j]))
				problem(v, rel, "ran '%s' with sha256 %s, which is now %s", n.v[j], h.v[j],
				    seen->hex[0] ? seen->hex : seen->why);
		}
		if (e == 0)
			e = check_run_inputs(v, rel, stmt);
		ab_strv_free(&n);
		ab_strv_free(&h);
		cJSON_Delete(stmt);
		if (e < 0)
			rc = e;
	}
	ab_strv_free(&builds);
	return rc;
}

static int
present_files(struct ab_strv *present, struct verifier *v)
{
	char *prov = ab_manifest_path(v->outdir, "provenance");
	int e = 0;

	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		struct stat st;

		if (strncmp(ab_manifest_files[i].path, "provenance/", 11) &&
		    fstatat(v->rootfd, ab_manifest_files[i].path, &st, AT_SYMLINK_NOFOLLOW) == 0)
			ab_strv_push(present, ab_manifest_files[i].path);
	}
	if (ab_is_dir(prov))
		e = ab_dirwalk(prov, present_visit, present);
	free(prov);
	if (e >= 0)
		e = present_runs(present, v);
	return e < 0 ? AB_EFAIL : 0;
}

/* does the build that build-commands.json describes write the manifest m? */
static int
manifest_expected(const struct ab_manifest_file *m, const cJSON *commands)
{
	const cJSON *it;

	if (m->when == AB_MANIFEST_ALWAYS)
		return 1;
	cJSON_ArrayForEach(it, ab_json_get(commands, "variants")) {
		const char *kind = ab_json_str(it, "kind");
		const cJSON *al = ab_json_get(ab_json_get(it, "definition"), "allocator");

		if (!cJSON_IsTrue(ab_json_get(it, "ok")) || !kind)
			continue;
		if ((m->when == AB_MANIFEST_CMAKE && !strcmp(kind, "cmake")) ||
		    (m->when == AB_MANIFEST_RELINK && !strcmp(kind, "relink")) ||
		    (m->when == AB_MANIFEST_UPDIFF && ab_json_str(al, "vendored") && ab_json_str(al, "upstream")))
			return 1;
	}
	return 0;
}

static int
is_manifest(const char *rel)
{
	for (size_t i = 0; i < ab_manifest_nfiles; i++)
		if (!strcmp(ab_manifest_files[i].path, rel))
			return 1;
	return 0;
}

/* is rel a manifest that the build build-commands.json describes writes (SHA256SUMS aside)? */
static int
expected_manifest(const char *rel, const cJSON *commands)
{
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++)
		if (!strcmp(ab_manifest_files[i].path, rel))
			return manifest_expected(&ab_manifest_files[i], commands);
	return 0;
}

int
ab_manifest_check_listing(FILE *out, const struct ab_manifest_listing *l)
{
	struct verifier v = {.out = out};
	struct ab_strv stated = {0};
	struct ab_strmap in_stated = {0}, in_sums = {0}, in_run_named = {0};
	const cJSON *it, *lists[2];

	lists[0] = ab_json_get(l->statement, "subject");
	lists[1] = ab_json_get(ab_json_get(ab_json_get(l->statement, "predicate"), "runDetails"), "byproducts");
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(it, lists[k])
			if (ab_json_str(it, "name"))
				ab_strv_push(&stated, ab_json_str(it, "name"));
	/* the lists grow with the runs recorded: each is looked up through an index */
	ab_strmap_of_strv(&in_stated, &stated);
	ab_strmap_of_strv(&in_sums, l->sums);
	/* SHA256SUMS and the statement agree on the set, both ways (manifests are SHA256SUMS's alone) */
	if (l->statement) {
		for (size_t i = 0; i < l->sums->n; i++)
			if (!is_manifest(l->sums->v[i]) && !ab_strmap_get(&in_stated, l->sums->v[i], NULL) &&
			    !ab_runrec_is_run_file(l->sums->v[i]))
				problem(&v, l->sums->v[i], "listed in SHA256SUMS but not in the statement");
		for (size_t i = 0; i < stated.n; i++)
			if (!ab_strmap_get(&in_sums, stated.v[i], NULL))
				problem(&v, stated.v[i], "in the statement but not listed in SHA256SUMS");
	}
	/* the files of runs are the run records' and theirs: each listed file under runs/ recorded by one */
	if (l->run_named) {
		ab_strmap_of_strv(&in_run_named, l->run_named);
		for (size_t i = 0; i < l->sums->n; i++)
			if (ab_runrec_is_run_file(l->sums->v[i]) && !ab_runrec_is_statement(l->sums->v[i]) &&
			    !ab_strmap_get(&in_run_named, l->sums->v[i], NULL))
				problem(&v, l->sums->v[i], "listed in SHA256SUMS but recorded by no run");
		for (size_t i = 0, first; i < l->run_named->n; i++)
			/* a name the runs give twice is reported once */
			if (!ab_strmap_get(&in_sums, l->run_named->v[i], NULL) &&
			    ab_strmap_get(&in_run_named, l->run_named->v[i], &first) && first == i)
				problem(&v, l->run_named->v[i], "named by a run record but not listed in SHA256SUMS");
	}
	/* every manifest the build writes, and every file present, is listed */
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++)
		if (!ab_strmap_get(&in_sums, ab_manifest_files[i].path, NULL) &&
		    manifest_expected(&ab_manifest_files[i], l->commands))
			problem(&v, ab_manifest_files[i].path, "a manifest of this build, not listed in SHA256SUMS");
	for (size_t i = 0; i < l->present->n; i++) {
		const char *p = l->present->v[i];

		/*
		 * an expected manifest missing from SHA256SUMS was named just
		 * above; the envelopes, signers.json and the in-toto links are
		 * sign's, written after the build, and checked on their own
		 * (provenance/review/sign.h, in-toto-verify)
		 */
		if (!strcmp(p, "SHA256SUMS") || ab_strmap_get(&in_sums, p, NULL) || expected_manifest(p, l->commands) ||
		    !strcmp(p, AB_MANIFEST_ENVELOPES) || !strcmp(p, AB_MANIFEST_SIGNERS) || ab_intoto_is_link(p))
			continue;
		problem(&v, p, "not listed in SHA256SUMS: not a file this build %s", ab_runrec_is_run_file(p) ?
		    "or a run recorded" : "recorded");
	}
	ab_strv_free(&stated);
	ab_strmap_free(&in_stated);
	ab_strmap_free(&in_sums);
	ab_strmap_free(&in_run_named);
	return v.bad;
}

int
ab_manifest_verify(FILE *out, const char *outdir)
{
	return ab_manifest_verify_seen(out, outdir, NULL, NULL);
}

int
ab_manifest_verify_reported(const char *who, const char *outdir, const char *consequence)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f) {
		ab_error_errno("%s: cannot verify '%s'", who, outdir);
		return AB_EFAIL;
	}
	rc = ab_manifest_verify(f, outdir);
	fclose(f);
	if (rc == AB_ECHECK) {
		for (const char *s = text; s && *s;) {
			size_t n = strcspn(s, "\n");

			ab_error("%s: %.*s", who, (int)n, s);
			s += n + (s[n] == '\n');
		}
		ab_error("%s: '%s' does not verify ('allocbuild verify %s'): %s", who, outdir, outdir, consequence);
	}
	free(text);
	return rc;
}

int
ab_manifest_verify_seen(FILE *out, const char *outdir, struct ab_strv *names, struct ab_strv *hexes)
{
	struct verifier v = {.out = out, .outdir = outdir, .rootfd = -1};
	struct ab_strv stated = {0}, present = {0}, run_named = {0};
	struct ab_buf b = {0};
	cJSON *stmt = NULL, *commands = NULL;
	int error = AB_EFAIL, fd;

	v.rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v.rootfd < 0) {
		ab_error_errno("cannot open '%s'", outdir);
		goto done;
	}
	if ((fd = ab_manifest_open_sums(v.rootfd, outdir, 0)) < 0)
		goto done;
	{
		char *name = ab_manifest_path(outdir, "SHA256SUMS");
		int e = ab_read_fd_max(&b, fd, name, AB_READ_MAX);

		free(name);
		close(fd);
		if (e < 0)
			goto done;
	}
	if (check_sums_file(&v, b.s) < 0)
		goto done;
	/* the statement's subjects and byproducts too, in case SHA256SUMS was rewritten */
	stmt = ab_manifest_read_doc(&v, AB_MANIFEST_STATEMENT);
	if (!ab_statement_is(stmt, 0)) {
		problem(&v, AB_MANIFEST_STATEMENT, "not a readable in-toto statement");
		cJSON_Delete(stmt);
		stmt = NULL;
	} else if (check_statement(&v, stmt, &stated) < 0) {
		goto done;
	}
	commands = ab_manifest_read_doc(&v, "provenance/build-commands.json");
	if (check_runs(&v, &run_named) < 0 || present_files(&present, &v) < 0)
		goto done;
	{
		struct ab_manifest_listing l = {.sums = &v.sums, .statement = stmt, .commands = commands,
		    .present = &present, .run_named = &run_named};

		v.bad += ab_manifest_check_listing(out, &l);
	}
	if (!v.bad)
		if (!ab_quiet)
			fprintf(out, "verified %zu files in %s\n", v.seen.n, outdir);
	error = v.bad ? AB_ECHECK : 0;
	for (size_t i = 0; names && hexes && i < v.seen.n; i++)
		if (!v.seen.v[i].why && v.seen.v[i].hex[0]) {
			ab_strv_push(names, v.seen.v[i].path);
			ab_strv_push(hexes, v.seen.v[i].hex);
		}
done:
	if (v.rootfd >= 0)
		close(v.rootfd);
	cJSON_Delete(stmt);
	cJSON_Delete(commands);
	ab_manifest_free_sums(&v.seen);
	ab_strv_free(&v.sums);
	ab_strmap_free(&v.listed);
	ab_strv_free(&stated);
	ab_strv_free(&present);
	ab_strv_free(&run_named);
	ab_buf_free(&b);
	return error;
}
