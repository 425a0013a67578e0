#include "challenge.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../record/bundle.h"
#include "../attest/keys.h"
#include "../record/cmdsrec.h"
#include "../record/rebuildrec.h"
#include "../record/repro.h"
#include "../record/stmtrec.h"
#include "../record/toolchain.h"

/* a statement or build-commands.json of a build: far under this */
#define MANIFEST_MAX ((size_t)64 << 20)
/* digests as the tables show them (rebuild's width) */
#define SHORT 12

/* the records of one artifact that rebuilt the same digest (hex NULL: the artifact is not in their record) */
struct group {
	char *hex;
	size_t *recs;
	size_t n;
	struct ab_strv causes;
};

struct artifact {
	char *path, *label;
	char original[AB_HEX_LEN + 1];
	struct group *groups; /* the original's first when any record got it */
	size_t ngroups;
	size_t identical;     /* records with the original digest */
	size_t independent;   /* rebuilders among them */
	size_t signers;       /* the keys that verified their records */
};

struct ab_challenge {
	char *input;
	char statement_hex[AB_HEX_LEN + 1];
	struct ab_cmdsrec cmds;      /* the original's build-commands.json, typed */
	struct ab_rebuildrec *recs;  /* the records counted, their comparisons typed (provenance/record/rebuildrec.h) */
	size_t nrecs, ngiven, nkeys;
	struct ab_strv refused;      /* "FILE: why" of each refused record */
	struct artifact *arts;
	size_t narts;
	size_t quorum;
};

static const char *
shown_hex(const char *hex)
{
	return hex ? hex : "(not rebuilt)";
}

/* one file of the build into b: 0, or AB_EFAIL reported */
static int
read_build_file(struct ab_buf *b, const char *input, int bundle, const char *rel)
{
	char *p;
	int e;

	if (bundle) {
		e = ab_bundle_read(b, input, rel, MANIFEST_MAX);
		if (e > 0)
			ab_error("'%s' has no %s: not the evidence bundle of a build", input, rel);
		return e == 0 ? 0 : AB_EFAIL;
	}
	p = ab_path_join(input, rel);
	e = ab_path_exists(p) ? ab_read_file_max(b, p, MANIFEST_MAX) : 1;
	if (e > 0)
		ab_error("'%s' has no %s: not a built OUTDIR", input, rel);
	free(p);
	return e == 0 ? 0 : AB_EFAIL;
}

/* the build's identity, artifacts (its statement's subject, into *names) and toolchains */
static int
read_build(struct ab_challenge *c, cJSON **st, struct ab_stmtrec *names)
{
	struct ab_buf s = {0}, cmds = {0};
	struct stat sb;
	cJSON *commands = NULL;
	char *file = NULL;
	int bundle, e = AB_EFAIL;

	if (stat(c->input, &sb) < 0) {
		ab_error_errno("cannot read '%s'", c->input);
		return AB_EFAIL;
	}
	bundle = !S_ISDIR(sb.st_mode);
	if (read_build_file(&s, c->input, bundle, "provenance/provenance.intoto.json") < 0 ||
	    read_build_file(&cmds, c->input, bundle, "provenance/build-commands.json") < 0)
		goto done;
	ab_hash_buf(c->statement_hex, s.s ? s.s : "", s.len);
	*st = cJSON_ParseWithLength(s.s ? s.s : "", s.len);
	ab_stmtrec_read(names, *st);
	commands = cJSON_ParseWithLength(cmds.s ? cmds.s : "", cmds.len);
	if (!*st || !names->lists[AB_STMTREC_SUBJECT].array || !commands) {
		ab_error("'%s': its statement or build-commands.json is not JSON", c->input);
		goto done;
	}
	file = ab_path_join(c->input, "provenance/build-commands.json");
	e = ab_cmdsrec_parse(&c->cmds, commands, file);
done:
	free(file);
	cJSON_Delete(commands);
	ab_buf_free(&s);
	ab_buf_free(&cmds);
	return e;
}

/* the tools of variant label in the original's build-commands.json, or NULL */
static const struct ab_toolchain *
original_tools(const struct ab_challenge *c, const char *label)
{
	const struct ab_cmdsrec_variant *v = label ? ab_cmdsrec_variant(&c->cmds, label) : NULL;

	return v && v->tools_ok ? &v->tools : NULL;
}

/* the entry for path in a record's comparison, or NULL */
static const struct ab_repro_artifact *
record_artifact(const struct ab_repro_result *cmp, const char *path)
{
	for (size_t i = 0; i < cmp->n; i++)
		if (cmp->artifacts[i].path && !strcmp(cmp->artifacts[i].path, path))
			return &cmp->artifacts[i];
	return NULL;
}

/* why record r got another digest: what its record names, else its toolchain against the original's */
static void
add_causes(struct group *g, const struct ab_challenge *c, const struct ab_rebuildrec *r,
    const struct ab_repro_artifact *entry, const char *label)
{
	static const struct ab_strv none;
	const struct ab_strv *causes = entry ? &entry->likely_causes : &none;
	struct ab_strv diff = {0};

	if (!causes->n) {
		const struct ab_toolchain *mine = ab_rebuildrec_tools_of(r, label), *theirs = original_tools(c, label);

		/* toolchains that are not records explain nothing */
		if (mine && theirs)
			ab_toolchain_diff(&diff, theirs, mine);
	}
	for (size_t i = 0; i < causes->n; i++)
		if (strcmp(causes->v[i], "?") && !ab_strv_has(&g->causes, causes->v[i]))
			ab_strv_push(&g->causes, causes->v[i]);
	for (size_t i = 0; i < diff.n; i++)
		if (!ab_strv_has(&g->causes, diff.v[i]))
			ab_strv_push(&g->causes, diff.v[i]);
	ab_strv_free(&diff);
}

/* the rebuilder a record counts for: its key when checked, else its host */
static const char *
identity(const struct ab_rebuildrec *r)
{
	return r->signer ? r->signer : r->host;
}

static void
place(struct artifact *a, const struct ab_challenge *c, size_t ri)
{
	const struct ab_rebuildrec *r = &c->recs[ri];
	const struct ab_repro_artifact *entry = record_artifact(&r->cmp, a->path);
	const char *hex = entry ? entry->rebuilt_sha256 : NULL;
	struct group *g = NULL;

	if (hex && !*hex)
		hex = NULL;
	if (!a->label && entry && entry->label)
		a->label = ab_strdup(entry->label);
	for (size_t i = 0; i < a->ngroups && !g; i++)
		if (hex ? a->groups[i].hex && !strcmp(a->groups[i].hex, hex) : !a->groups[i].hex)
			g = &a->groups[i];
	if (!g) {
		a->groups = realloc(a->groups, (a->ngroups + 1) * sizeof(*a->groups));
		if (!a->groups)
			abort();
		g = &a->groups[a->ngroups++];
		memset(g, 0, sizeof(*g));
		g->hex = ab_strdup_or_null(hex);
	}
	g->recs = realloc(g->recs, (g->n + 1) * sizeof(*g->recs));
	if (!g->recs)
		abort();
	g->recs[g->n++] = ri;
	if (hex && !strcmp(hex, a->original)) {
		int seen = 0, key_seen = 0;

		for (size_t i = 0; i + 1 < g->n; i++) {
			const struct ab_rebuildrec *o = &c->recs[g->recs[i]];

			seen |= !strcmp(identity(o), identity(r));
			key_seen |= r->signer && o->signer && !strcmp(o->signer, r->signer);
		}
		a->identical++;
		a->independent += !seen;
		a->signers += r->signer && !key_seen;
	} else {
		add_causes(g, c, r, entry, entry ? entry->label : NULL);
	}
}

/* the original's group first, the others in the order met */
static void
order_groups(struct artifact *a)
{
	for (size_t i = 1; i < a->ngroups; i++)
		if (a->groups[i].hex && !strcmp(a->groups[i].hex, a->original)) {
			struct group t = a->groups[i];

			memmove(&a->groups[1], &a->groups[0], i * sizeof(*a->groups));
			a->groups[0] = t;
		}
}

static void
tabulate(struct ab_challenge *c, const struct ab_stmtrec_list *subject)
{
	c->arts = ab_calloc(subject->n + 1, sizeof(*c->arts));
	for (size_t k = 0; k < subject->n; k++) {
		struct artifact *a = &c->arts[c->narts];
		const char *name = subject->v[k].name, *hex = subject->v[k].sha256;

		if (!name || !hex || strlen(hex) != AB_HEX_LEN)
			continue;
		a->path = ab_strdup(name);
		memcpy(a->original, hex, AB_HEX_LEN + 1);
		for (size_t i = 0; i < c->nrecs; i++)
			place(a, c, i);
		order_groups(a);
		c->narts++;
	}
}

/* read every record: AB_EFAIL when one is bad input (each reported), AB_ECHECK when one was refused */
static int
read_records(struct ab_challenge *c, const struct ab_challenge_opts *o)
{
	int rc = 0;

	c->recs = calloc(o->nrecords + 1, sizeof(*c->recs));
	if (!c->recs)
		abort();
	for (size_t i = 0; i < o->nrecords; i++) {
		struct ab_rebuildrec *r = &c->recs[c->nrecs];
		struct ab_strv why = {0};
		int e = ab_rebuildrec_read(r, o->records[i], o->keys, o->nkeys, &why);

		if (e == 0 && strcmp(r->original, c->statement_hex)) {
			char quoted[AB_HEX_LEN + 3];

			snprintf(quoted, sizeof(quoted), "\"%s\"", r->original);
			ab_rebuildrec_error(r, quoted, "predicate.original.statement_sha256: a rebuild of another "
			    "build (statement sha256 %s), not of '%s' (%s)", r->original, c->input, c->statement_hex);
			e = AB_EFAIL;
		}
		if (e == AB_ECHECK) {
			for (size_t k = 0; k < why.n; k++) {
				ab_error("%s:1:1: %s: not counted", o->records[i], why.v[k]);
				ab_strv_pushf(&c->refused, "%s: %s", o->records[i], why.v[k]);
			}
			if (rc == 0)
				rc = AB_ECHECK;
		}
		if (e == AB_EFAIL)
			rc = AB_EFAIL;
		if (e == 0)
			c->nrecs++;
		else
			ab_rebuildrec_release(r);
		ab_strv_free(&why);
	}
	return rc;
}

int
ab_challenge_make(struct ab_challenge **out, const char *input, const struct ab_challenge_opts *o)
{
	struct ab_challenge *c = calloc(1, sizeof(*c));
	struct ab_stmtrec names;
	cJSON *st = NULL;
	int e;

	if (!c)
		abort();
	*out = NULL;
	c->input = ab_strdup(input);
	c->ngiven = o->nrecords;
	c->nkeys = o->nkeys;
	c->quorum = o->quorum ? o->quorum : o->nrecords;
	e = read_build(c, &st, &names);
	if (e == 0)
		e = read_records(c, o);
	if (e != AB_EFAIL)
		tabulate(c, &names.lists[AB_STMTREC_SUBJECT]);
	ab_stmtrec_release(&names);
	cJSON_Delete(st);
	if (e == AB_EFAIL) {
		ab_challenge_free(c);
		return AB_EFAIL;
	}
	*out = c;
	return e;
}

int
ab_challenge_verdict(const struct ab_challenge *c)
{
	if (c->refused.n)
		return AB_ECHECK;
	for (size_t i = 0; i < c->narts; i++)
		if (c->arts[i].independent < c->quorum)
			return AB_ECHECK;
	return 0;
}

/* "HOST (FILE)" of record i, names escaped as shown */
static char *
who(const struct ab_challenge *c, size_t i)
{
	char *h = ab_shown(c->recs[i].host), *f = ab_shown(c->recs[i].file);
	char *s = ab_sprintf("%s (%s)", h, f);

	free(h);
	free(f);
	return s;
}

static void
print_whos(FILE *f, const struct ab_challenge *c, const struct group *g, const char *sep)
{
	for (size_t k = 0; k < g->n; k++) {
		char *w = who(c, g->recs[k]);

		fprintf(f, "%s%s", k ? sep : "", w);
		free(w);
	}
}

static void
print_causes(FILE *f, const struct group *g)
{
	for (size_t k = 0; k < g->causes.n; k++) {
		char *s = ab_shown(g->causes.v[k]);

		fprintf(f, "%s%s", k ? "; " : "; likely cause: ", s);
		free(s);
	}
}

/* "2 of 3 identical", with the rebuilders when some gave several records */
static void
print_count(FILE *f, const struct ab_challenge *c, const struct artifact *a)
{
	fprintf(f, "%zu of %zu identical", a->identical, c->nrecs);
	if (a->independent != a->identical)
		fprintf(f, " (%zu independent rebuilder%s)", a->independent, a->independent == 1 ? "" : "s");
}

static size_t
npassed(const struct ab_challenge *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->narts; i++)
		n += c->arts[i].independent >= c->quorum;
	return n;
}

void
ab_challenge_print(FILE *f, const struct ab_challenge *c)
{
	char *in = ab_shown(c->input);

	fprintf(f, "challenge of %s (statement %.*s): %zu record%s, quorum %zu, signatures %s\n", in, SHORT,
	    c->statement_hex, c->nrecs, c->nrecs == 1 ? "" : "s", c->quorum,
	    c->nkeys ? "checked" : "not checked (no --key)");
	if (!c->nkeys)
		fprintf(f, "WARNING: %s: the counts below are of host names, not of rebuilders (--key PUB.pem)\n",
		    AB_CHALLENGE_UNSIGNED);
	free(in);
	for (size_t i = 0; i < c->narts; i++) {
		const struct artifact *a = &c->arts[i];
		char *p = ab_shown(a->path);

		fprintf(f, "%s\n  original   %.*s\n  ", p, SHORT, a->original);
		free(p);
		print_count(f, c, a);
		for (size_t j = 0; j < a->ngroups; j++) {
			const struct group *g = &a->groups[j];

			if (g->hex && !strcmp(g->hex, a->original)) {
				fputs(": ", f);
				print_whos(f, c, g, ", ");
				continue;
			}
			fprintf(f, "\n  differs    %.*s: ", g->hex ? SHORT : (int)strlen(shown_hex(NULL)), shown_hex(g->hex));
			print_whos(f, c, g, ", ");
			print_causes(f, g);
		}
		fputc('\n', f);
	}
	fprintf(f, "%zu of %zu artifacts reproduced by at least %zu independent rebuilder%s", npassed(c), c->narts,
	    c->quorum, c->quorum == 1 ? "" : "s");
	if (c->refused.n)
		fprintf(f, "; %zu record%s refused (bad signature)", c->refused.n, c->refused.n == 1 ? "" : "s");
	if (!c->nkeys)
		fputs(" (by host name: signatures not checked)", f);
	fputc('\n', f);
}

/* a markdown table cell: shown, its pipes escaped */
static void
md_cell(struct ab_buf *b, const char *s)
{
	char *t = ab_shown(s);

	for (const char *p = t; *p; p++) {
		if (*p == '|')
			ab_buf_add(b, "\\", 1);
		ab_buf_add(b, p, 1);
	}
	free(t);
}

static void
md_count(struct ab_buf *b, const struct ab_challenge *c, const struct artifact *a)
{
	ab_buf_printf(b, "%zu of %zu identical", a->identical, c->nrecs);
	if (a->independent != a->identical)
		ab_buf_printf(b, " (%zu independent rebuilder%s)", a->independent, a->independent == 1 ? "" : "s");
}

void
ab_challenge_md(struct ab_buf *b, const struct ab_challenge *c)
{
	ab_buf_printf(b, "%zu rebuild record%s held against this build (statement `%.*s`), signatures %s; "
	    "quorum %zu independent rebuilder%s: %zu of %zu artifacts reproduced.\n\n", c->nrecs,
	    c->nrecs == 1 ? "" : "s", SHORT, c->statement_hex, c->nkeys ? "checked" : "not checked",
	    c->quorum, c->quorum == 1 ? "" : "s", npassed(c), c->narts);
	if (!c->nkeys)
		ab_buf_printf(b, "> **Warning**: %s: the counts below are of host names, not of rebuilders "
		    "(`--rebuilt-key PUB.pem`).\n\n", AB_CHALLENGE_UNSIGNED);
	ab_buf_puts(b, "| artifact | original | rebuilders | other digests |\n|---|---|---|---|\n");
	for (size_t i = 0; i < c->narts; i++) {
		const struct artifact *a = &c->arts[i];
		int first = 1;

		ab_buf_puts(b, "| ");
		md_cell(b, a->path);
		ab_buf_printf(b, " | `%.*s` | ", SHORT, a->original);
		md_count(b, c, a);
		ab_buf_puts(b, " | ");
		for (size_t j = 0; j < a->ngroups; j++) {
			const struct group *g = &a->groups[j];

			if (g->hex && !strcmp(g->hex, a->original))
				continue;
			ab_buf_printf(b, "%s`%.*s`: ", first ? "" : "<br>", g->hex ? SHORT : (int)strlen(shown_hex(NULL)),
			    shown_hex(g->hex));
			first = 0;
			for (size_t k = 0; k < g->n; k++) {
				ab_buf_puts(b, k ? ", " : "");
				md_cell(b, c->recs[g->recs[k]].host);
			}
			for (size_t k = 0; k < g->causes.n; k++) {
				ab_buf_puts(b, k ? "; " : "; likely cause: ");
				md_cell(b, g->causes.v[k]);
			}
		}
		ab_buf_puts(b, first ? "– |\n" : " |\n");
	}
	ab_buf_puts(b, "\nRebuilders: ");
	for (size_t i = 0; i < c->nrecs; i++) {
		ab_buf_puts(b, i ? "; " : "");
		md_cell(b, c->recs[i].host);
		ab_buf_puts(b, " (");
		{
			/* the record by its file's name: the path given is a place of the author's machine */
			const char *base = strrchr(c->recs[i].file, '/');

			md_cell(b, base ? base + 1 : c->recs[i].file);
		}
		if (c->recs[i].signer)
			ab_buf_printf(b, ", key `%.*s`", SHORT, c->recs[i].signer);
		ab_buf_puts(b, ")");
	}
	ab_buf_puts(b, ".\n");
}

size_t
ab_challenge_label_signers(const struct ab_challenge *c, const char *label, size_t *n)
{
	size_t least = 0;

	*n = 0;
	for (size_t i = 0; i < c->narts; i++) {
		if (!c->arts[i].label || strcmp(c->arts[i].label, label))
			continue;
		if (!(*n)++ || c->arts[i].signers < least)
			least = c->arts[i].signers;
	}
	return least;
}

int
ab_challenge_checked(const struct ab_challenge *c)
{
	return c->nkeys > 0;
}

size_t
ab_challenge_quorum(const struct ab_challenge *c)
{
	return c->quorum;
}

void
ab_challenge_tally(struct ab_challenge_tally *t, const struct ab_challenge *c)
{
	struct ab_strv keys = {0};

	memset(t, 0, sizeof(*t));
	t->artifacts = c->narts;
	for (size_t i = 0; i < c->narts; i++) {
		const struct artifact *a = &c->arts[i];

		t->reproduced += a->signers > 0;
		t->differ += a->identical < c->nrecs;
		t->quorum_met += a->independent >= c->quorum;
	}
	for (size_t i = 0; i < c->nrecs; i++)
		if (c->recs[i].signer && !ab_strv_has(&keys, c->recs[i].signer))
			ab_strv_push(&keys, c->recs[i].signer);
	t->keys = keys.n;
	ab_strv_free(&keys);
}

size_t
ab_challenge_nrecords(const struct ab_challenge *c)
{
	return c->nrecs;
}

const struct ab_rebuildrec *
ab_challenge_record(const struct ab_challenge *c, size_t i)
{
	return &c->recs[i];
}

cJSON *
ab_challenge_json(const struct ab_challenge *c)
{
	cJSON *d = cJSON_CreateObject(), *recs, *arts, *warn;

	cJSON_AddStringToObject(d, "_type", "https://allocbuild.dev/challenge/v1");
	cJSON_AddStringToObject(d, "input", c->input);
	cJSON_AddStringToObject(d, "statement_sha256", c->statement_hex);
	cJSON_AddNumberToObject(d, "quorum", (double)c->quorum);
	cJSON_AddBoolToObject(d, "signatures_checked", c->nkeys > 0);
	warn = cJSON_AddArrayToObject(d, "warnings");
	if (!c->nkeys)
		cJSON_AddItemToArray(warn, cJSON_CreateString(AB_CHALLENGE_UNSIGNED));
	recs = cJSON_AddArrayToObject(d, "records");
	for (size_t i = 0; i < c->nrecs; i++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "file", c->recs[i].file);
		cJSON_AddStringToObject(r, "sha256", c->recs[i].sha256);
		cJSON_AddStringToObject(r, "host", c->recs[i].host);
		ab_json_add_str_or_null(r, "signer", c->recs[i].signer);
		cJSON_AddBoolToObject(r, "enveloped", c->recs[i].enveloped);
		cJSON_AddItemToArray(recs, r);
	}
	cJSON_AddItemToObject(d, "refused", ab_json_strv(c->refused.v, c->refused.n));
	arts = cJSON_AddArrayToObject(d, "artifacts");
	for (size_t i = 0; i < c->narts; i++) {
		const struct artifact *a = &c->arts[i];
		cJSON *o = cJSON_CreateObject(), *gs;

		cJSON_AddStringToObject(o, "path", a->path);
		ab_json_add_str_or_null(o, "label", a->label);
		cJSON_AddStringToObject(o, "original_sha256", a->original);
		cJSON_AddNumberToObject(o, "identical", (double)a->identical);
		cJSON_AddNumberToObject(o, "independent", (double)a->independent);
		cJSON_AddNumberToObject(o, "signers", (double)a->signers);
		cJSON_AddBoolToObject(o, "quorum_met", a->independent >= c->quorum);
		gs = cJSON_AddArrayToObject(o, "groups");
		for (size_t j = 0; j < a->ngroups; j++) {
			const struct group *g = &a->groups[j];
			cJSON *go = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(go, "records");

			ab_json_add_str_or_null(go, "sha256", g->hex);
			cJSON_AddBoolToObject(go, "identical", g->hex && !strcmp(g->hex, a->original));
			for (size_t k = 0; k < g->n; k++)
				cJSON_AddItemToArray(files, cJSON_CreateString(c->recs[g->recs[k]].file));
			cJSON_AddItemToObject(go, "likely_causes", ab_json_strv(g->causes.v, g->causes.n));
			cJSON_AddItemToArray(gs, go);
		}
		cJSON_AddItemToArray(arts, o);
	}
	cJSON_AddBoolToObject(d, "ok", ab_challenge_verdict(c) == 0);
	return d;
}

void
ab_challenge_free(struct ab_challenge *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->narts; i++) {
		for (size_t j = 0; j < c->arts[i].ngroups; j++) {
			free(c->arts[i].groups[j].hex);
			free(c->arts[i].groups[j].recs);
			ab_strv_free(&c->arts[i].groups[j].causes);
		}
		free(c->arts[i].groups);
		free(c->arts[i].path);
		free(c->arts[i].label);
	}
	free(c->arts);
	for (size_t i = 0; i < c->nrecs; i++)
		ab_rebuildrec_release(&c->recs[i]);
	free(c->recs);
	ab_strv_free(&c->refused);
	ab_cmdsrec_release(&c->cmds);
	free(c->input);
	free(c);
}
