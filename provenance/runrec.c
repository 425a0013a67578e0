#include "runrec.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/atomic.h"
#include "../lib/jsonio.h"
#include "../lib/redact.h"
#include "bundle.h"
#include "../lib/version.h"

static cJSON *
file_json(const struct ab_runrec_file *f)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "path", f->path);
	cJSON_AddStringToObject(o, "sha256", f->sha256);
	cJSON_AddNumberToObject(o, "size", (double)f->size);
	return o;
}

static cJSON *
descriptor(const char *name, const char *hex)
{
	cJSON *o = cJSON_CreateObject(), *d = cJSON_AddObjectToObject(o, "digest");

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(d, "sha256", hex);
	return o;
}

static const char *
status_word(enum ab_run_status s)
{
	switch (s) {
	case AB_RUN_EXITED:
		return "exited";
	case AB_RUN_SIGNALED:
		return "signaled";
	case AB_RUN_TIMED_OUT:
		return "timed out";
	case AB_RUN_INTERRUPTED:
		return "interrupted";
	}
	return "exited";
}

static cJSON *
predicate(const struct ab_runrec *r)
{
	cJSON *p = cJSON_CreateObject(), *o, *byp;

	cJSON_AddStringToObject(p, "name", r->name);
	cJSON_AddNumberToObject(p, "number", r->number);
	cJSON_AddStringToObject(p, "label", r->label);
	cJSON_AddNumberToObject(p, "repetition", r->repetition);
	cJSON_AddNumberToObject(p, "repetitions", r->repetitions);
	cJSON_AddItemToObject(p, "order", ab_json_strv(r->order, r->norder));
	o = cJSON_AddObjectToObject(p, "build");
	if (r->build_invocation)
		cJSON_AddStringToObject(o, "invocation_id", r->build_invocation);
	else
		cJSON_AddNullToObject(o, "invocation_id");
	if (r->recipe_sha256)
		cJSON_AddStringToObject(o, "recipe_sha256", r->recipe_sha256);
	else
		cJSON_AddNullToObject(o, "recipe_sha256");
	o = cJSON_AddObjectToObject(p, "artifact");
	cJSON_AddStringToObject(o, "path", r->subject);
	cJSON_AddStringToObject(o, "kind", r->subject_kind);
	cJSON_AddStringToObject(o, "sha256", r->subject_sha256);
	cJSON_AddStringToObject(o, "checked_by", r->subject_cached ? "digest cache" : "hash");
	cJSON_AddStringToObject(o, "hashed_on", r->subject_hashed_on);
	{
		/* as lib/redact shows a command: URL passwords, tokens, --token X masked */
		struct ab_strv shown = {0};

		ab_redact_argv(&shown, r->argv);
		cJSON_AddItemToObject(p, "argv", ab_json_strv(shown.v, shown.n));
		ab_strv_free(&shown);
	}
	cJSON_AddStringToObject(p, "cwd", r->cwd);
	o = cJSON_AddObjectToObject(p, "env_overrides");
	for (size_t i = 0; i < r->overrides.n; i++) {
		char *kv = ab_redact_env(r->overrides.v[i]);
		const char *eq = strchr(kv, '=');
		char *k = ab_strndup(kv, (size_t)(eq - kv));

		cJSON_AddStringToObject(o, k, eq + 1);
		free(k);
		free(kv);
	}
	cJSON_AddItemToObject(p, "env_removed", ab_json_strv(r->removed.v, r->removed.n));
	cJSON_AddStringToObject(p, "started_on", r->started_on);
	cJSON_AddStringToObject(p, "finished_on", r->finished_on);
	cJSON_AddStringToObject(p, "status", status_word(r->status));
	if (r->exit_code >= 0)
		cJSON_AddNumberToObject(p, "exit_code", r->exit_code);
	else
		cJSON_AddNullToObject(p, "exit_code");
	if (r->signal) {
		cJSON_AddNumberToObject(p, "signal", r->signal);
		cJSON_AddStringToObject(p, "signal_name", sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
	} else {
		cJSON_AddNullToObject(p, "signal");
	}
	cJSON_AddNumberToObject(p, "wall_s", r->wall_s);
	cJSON_AddNumberToObject(p, "user_s", r->user_s);
	cJSON_AddNumberToObject(p, "sys_s", r->sys_s);
	cJSON_AddNumberToObject(p, "maxrss_kb", (double)r->maxrss_kb);
	cJSON_AddItemToObject(p, "log", file_json(&r->log));
	if (r->junit_path) {
		o = cJSON_AddObjectToObject(p, "junit");
		cJSON_AddStringToObject(o, "report", r->junit_path);
		if (r->junit.path) {
			cJSON_AddStringToObject(o, "path", r->junit.path);
			cJSON_AddStringToObject(o, "sha256", r->junit.sha256);
			cJSON_AddNumberToObject(o, "size", (double)r->junit.size);
			cJSON_AddStringToObject(o, "state", "read");
			if (r->junit_summary)
				cJSON_AddItemToObject(o, "summary", cJSON_Duplicate(r->junit_summary, 1));
		} else if (r->junit_refused) {
			if (r->junit.sha256[0]) {
				cJSON_AddStringToObject(o, "sha256", r->junit.sha256);
				cJSON_AddNumberToObject(o, "size", (double)r->junit.size);
			}
			cJSON_AddStringToObject(o, "state", r->junit_refused);
		} else {
			cJSON_AddStringToObject(o, "state", "missing");
		}
	} else {
		cJSON_AddNullToObject(p, "junit");
	}
	if (r->environment)
		cJSON_AddItemToObject(p, "environment", cJSON_Duplicate(r->environment, 1));
	o = cJSON_AddObjectToObject(p, "tool");
	cJSON_AddStringToObject(o, "allocbuild", AB_VERSION);
	byp = cJSON_AddArrayToObject(p, "byproducts");
	cJSON_AddItemToArray(byp, descriptor(r->log.path, r->log.sha256));
	if (r->junit.path)
		cJSON_AddItemToArray(byp, descriptor(r->junit.path, r->junit.sha256));
	return p;
}

cJSON *
ab_runrec_statement(const struct ab_runrec *r)
{
	cJSON *s = cJSON_CreateObject(), *subj;

	cJSON_AddStringToObject(s, "_type", "https://in-toto.io/Statement/v1");
	subj = cJSON_AddArrayToObject(s, "subject");
	cJSON_AddItemToArray(subj, descriptor(r->subject, r->subject_sha256));
	cJSON_AddStringToObject(s, "predicateType", AB_RUN_PREDICATE);
	cJSON_AddItemToObject(s, "predicate", predicate(r));
	return s;
}

void
ab_runrec_release(struct ab_runrec *r)
{
	ab_strv_free(&r->overrides);
	ab_strv_free(&r->removed);
	free(r->log.path);
	free(r->junit.path);
	cJSON_Delete(r->junit_summary);
	cJSON_Delete(r->environment);
	memset(r, 0, sizeof(*r));
}

int
ab_runrec_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(name[i] == '.' || name[i] == '_' || name[i] == '-' || (name[i] >= '0' && name[i] <= '9') ||
		    (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z')))
			return 0;
	return 1;
}

int
ab_runrec_record_number(const char *base)
{
	size_t n = strlen(base), k = strlen(".intoto.json"), d = 0;
	int num = 0;

	/* four digits at least; more only without a leading zero, as %04d writes them */
	while (base[d] >= '0' && base[d] <= '9' && d < 9)
		num = num * 10 + (base[d++] - '0');
	if (d < 4 || (d > 4 && base[0] == '0') || base[d] != '-' || n <= d + 1 + k ||
	    strcmp(base + n - k, ".intoto.json"))
		return -1;
	return num;
}

int
ab_runrec_next_number(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int max = 0;

	if (!d)
		return 1;
	while ((de = readdir(d))) {
		int n = ab_runrec_record_number(de->d_name);

		if (n > max)
			max = n;
	}
	closedir(d);
	return max + 1;
}

int
ab_runrec_is_run_file(const char *rel)
{
	return !strncmp(rel, AB_RUN_DIR "/", sizeof(AB_RUN_DIR));
}

int
ab_runrec_is_statement(const char *rel)
{
	const char *name, *base;

	if (!ab_runrec_is_run_file(rel))
		return 0;
	name = rel + sizeof(AB_RUN_DIR);
	base = strchr(name, '/');
	if (!base || strchr(base + 1, '/'))
		return 0;
	{
		char *n = ab_strndup(name, (size_t)(base - name));
		int ok = ab_runrec_name_valid(n);

		free(n);
		return ok && ab_runrec_record_number(base + 1) >= 0;
	}
}

/* the value of attribute name in the start tag tag[0..n), as a number; -1 when absent */
static double
attr_num(const char *tag, size_t n, const char *name)
{
	size_t k = strlen(name);

	for (size_t i = 1; i + k + 2 < n; i++) {
		const char *p = tag + i;

		if ((tag[i - 1] == ' ' || tag[i - 1] == '\t' || tag[i - 1] == '\n' || tag[i - 1] == '\r') &&
		    !strncmp(p, name, k) && p[k] == '=' && (p[k + 1] == '"' || p[k + 1] == '\''))
			return strtod(p + k + 2, NULL);
	}
	return -1;
}

/* the start tags <elem ...> with a tests count in text, summed into sum (only the first with first_only); how many */
static int
sum_tags(cJSON *sum, const char *text, size_t len, const char *elem, int first_only)
{
	static const char *const keys[] = {"tests", "failures", "errors", "skipped", "time"};
	double tot[5] = {0};
	size_t el = strlen(elem);
	int found = 0;

	for (size_t i = 0; i + el + 1 < len; i++) {
		const char *t = text + i, *end;

		if (t[0] != '<' || strncmp(t + 1, elem, el) || (t[el + 1] != ' ' && t[el + 1] != '>' &&
		    t[el + 1] != '\t' && t[el + 1] != '\n' && t[el + 1] != '\r' && t[el + 1] != '/'))
			continue;
		end = memchr(t, '>', len - i);
		if (!end)
			break;
		/* an element without counts (a bare <testsuites>) says nothing */
		if (attr_num(t, (size_t)(end - t), "tests") < 0)
			continue;
		for (int k = 0; k < 5; k++) {
			double v = attr_num(t, (size_t)(end - t), keys[k]);

			/* pytest writes "skipped", some writers "skip" */
			if (v < 0 && k == 3)
				v = attr_num(t, (size_t)(end - t), "skip");
			if (v > 0)
				tot[k] += v;
		}
		found++;
		if (first_only)
			break;
	}
	if (found)
		for (int k = 0; k < 5; k++)
			cJSON_AddNumberToObject(sum, keys[k], tot[k]);
	return found;
}

cJSON *
ab_runrec_junit_summary(const char *text, size_t len)
{
	cJSON *sum = cJSON_CreateObject();

	if (sum_tags(sum, text, len, "testsuites", 1) || sum_tags(sum, text, len, "testsuite", 0))
		return sum;
	cJSON_Delete(sum);
	return NULL;
}

void
ab_runrec_named(struct ab_strv *names, struct ab_strv *hexes, const cJSON *stmt)
{
	const cJSON *lists[2], *it;

	lists[0] = ab_json_get(stmt, "subject");
	lists[1] = ab_json_get(ab_json_get(stmt, "predicate"), "byproducts");
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(it, lists[k]) {
			const char *name = ab_json_str(it, "name"), *hex = ab_json_str(ab_json_get(it, "digest"), "sha256");

			if (name && hex) {
				ab_strv_push(names, name);
				ab_strv_push(hexes, hex);
			}
		}
}

int
ab_runrec_sums_append(const char *outdir, const struct ab_runrec_file *files, size_t n)
{
	char *path = ab_path_join(outdir, "SHA256SUMS");
	struct ab_buf b = {0};
	int e = ab_read_file(&b, path);

	if (e == 0) {
		if (b.len && b.s[b.len - 1] != '\n')
			ab_buf_putc(&b, '\n');
		for (size_t i = 0; i < n; i++)
			ab_hash_line(&b, files[i].sha256, files[i].path);
		e = ab_write_file_atomic(path, b.s, b.len);
	}
	ab_buf_free(&b);
	free(path);
	return e;
}

void
ab_runrec_sums_carry(struct ab_buf *b, const char *outdir)
{
	char *path = ab_path_join(outdir, "SHA256SUMS");
	struct ab_buf old = {0};

	ab_quiet++;
	if (ab_path_exists(path) && ab_read_file(&old, path) == 0)
		for (const char *s = old.s; s && *s;) {
			size_t n = strcspn(s, "\n");

			if (n > AB_HEX_LEN + 2 && !strncmp(s + AB_HEX_LEN, "  " AB_RUN_DIR "/", sizeof(AB_RUN_DIR) + 2)) {
				char *rel = ab_strndup(s + AB_HEX_LEN + 2, n - AB_HEX_LEN - 2), *abs = ab_path_join(outdir, rel);
				struct stat st;

				/* a run removed on purpose (its files gone) is not brought back */
				if (lstat(abs, &st) == 0) {
					ab_buf_add(b, s, n);
					ab_buf_putc(b, '\n');
				}
				free(rel);
				free(abs);
			}
			s += n + (s[n] == '\n');
		}
	ab_quiet--;
	ab_buf_free(&old);
	free(path);
}

void
ab_runrec_builds(struct ab_strv *out, const cJSON *build_stmt)
{
	const cJSON *pred = ab_json_get(build_stmt, "predicate"), *it;
	const char *id = ab_json_str(ab_json_get(ab_json_get(pred, "runDetails"), "metadata"), "invocationId");
	size_t start = out->n;

	if (id)
		ab_strv_push(out, id);
	cJSON_ArrayForEach(it, ab_json_get(ab_json_get(ab_json_get(pred, "buildDefinition"), "internalParameters"),
	    "earlierInvocations")) {
		if (out->n - start >= AB_RUN_BUILDS_MAX)
			break;
		if (cJSON_IsString(it) && !ab_strv_has(out, it->valuestring))
			ab_strv_push(out, it->valuestring);
	}
}

char *
ab_runrec_foreign(const cJSON *record, const struct ab_strv *builds)
{
	const char *of = ab_json_str(ab_json_get(ab_json_get(record, "predicate"), "build"), "invocation_id");
	char *shown, *why;

	if (!builds->n || (of && ab_strv_has(builds, of)))
		return NULL;
	shown = ab_shown(of ? of : "(none)");
	why = ab_sprintf("a run of build %s, not of this OUTDIR's (%s%s): a record of another OUTDIR", shown,
	    builds->v[0], builds->n > 1 ? " or an earlier build it kept the runs of" : "");
	free(shown);
	return why;
}

int
ab_runrec_check_members(FILE *out, const struct ab_bundle_members *m, const char *build_stmt)
{
	const struct ab_bundle_member *st = ab_bundle_member(m, build_stmt);
	struct ab_strv builds = {0};
	cJSON *doc = st && st->data.s ? cJSON_ParseWithLength(st->data.s, st->data.len) : NULL;
	int rc = 0;

	ab_runrec_builds(&builds, doc);
	cJSON_Delete(doc);
	for (size_t i = 0; i < m->n && builds.n; i++) {
		char *why;

		if (!ab_runrec_is_statement(m->v[i].name) || !m->v[i].data.s)
			continue;

		doc = cJSON_ParseWithLength(m->v[i].data.s, m->v[i].data.len);
		if (doc && (why = ab_runrec_foreign(doc, &builds))) {
			char *name = ab_shown(m->v[i].name);

			fprintf(out, "%s: %s\n", name, why);
			free(name);
			free(why);
			rc = AB_ECHECK;
		}
		cJSON_Delete(doc);
	}
	ab_strv_free(&builds);
	return rc;
}
