#include "sbom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../../lib/version.h"
#include "../record/binprov.h"
#include "../record/fetchrec.h"
#include "../record/manifest.h"
#include "../record/updiffrec.h"
#include "../attest/statement.h"

#define CDX_SPEC "1.6"

/* what an SBOM is made from: the manifests SHA256SUMS lists, typed */
struct bom_in {
	const char *outdir;
	struct ab_binprov bin;
	struct ab_updiffrecs updiff;  /* empty when the build ran no upstream-diff */
	struct ab_fetch_set sources;  /* sources.json's, by id */
};

/* the dependency graph as it is built: ref -> refs, in order, each once */
struct dep {
	char *ref;
	struct ab_strv on;
};
struct deps {
	struct dep *v;
	size_t n;
};

/* an archive or a shared object, by its parts or else by its name
 * (lib*.a, *.so, *.so.N): CycloneDX's "library", else "application" */
static int
is_library(const struct ab_binprov_artifact *a)
{
	const char *base = strrchr(a->path, '/'), *dot;

	if (a->format && !strcmp(a->format, "ar"))
		return 1;
	base = base ? base + 1 : a->path;
	dot = strrchr(base, '.');
	return (!a->format && dot && !strcmp(dot, ".a")) || strstr(base, ".so") != NULL;
}

static struct dep *
dep_of(struct deps *d, const char *ref)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].ref, ref))
			return &d->v[i];
	d->v = ab_realloc(d->v, (d->n + 1) * sizeof(*d->v));
	memset(&d->v[d->n], 0, sizeof(*d->v));
	d->v[d->n].ref = ab_strdup(ref);
	return &d->v[d->n++];
}

static void
dep_add(struct deps *d, const char *ref, const char *on)
{
	struct dep *x = dep_of(d, ref);

	if (on && strcmp(ref, on) && !ab_strv_has(&x->on, on))
		ab_strv_push(&x->on, on);
}

static void
deps_release(struct deps *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].ref);
		ab_strv_free(&d->v[i].on);
	}
	free(d->v);
}

/* ---- purls (https://github.com/package-url/purl-spec) ---- */

/* s percent-encoded into b, keeping what a purl keeps as it is (keep: extra characters) */
static void
put_pct(struct ab_buf *b, const char *s, const char *keep)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(".-_~", c) ||
		    (keep && strchr(keep, c)))
			ab_buf_putc(b, (char)c);
		else
			ab_buf_printf(b, "%%%02X", c);
	}
}

/* a copy of s lowercased (purl's github type) */
static char *
lower(const char *s, size_t n)
{
	char *r = ab_strndup(s, n);

	for (char *p = r; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

/*
 * "OWNER/REPO" of a GitHub URL, and what follows it (rest), or 0: the
 * repository, its git URL, a release asset or a tag's archive
 */
static int
github_repo(char **owner, char **repo, const char **rest, const char *url)
{
	static const char *const prefixes[] = {"https://github.com/", "http://github.com/", "git://github.com/",
	    "ssh://git@github.com/", "git@github.com:"};
	const char *p = NULL, *slash, *end;

	for (size_t i = 0; i < AB_NELEM(prefixes) && !p; i++)
		if (!strncmp(url, prefixes[i], strlen(prefixes[i])))
			p = url + strlen(prefixes[i]);
	if (!p || !(slash = strchr(p, '/')) || slash == p)
		return 0;
	end = slash + 1 + strcspn(slash + 1, "/?#");
	if (end == slash + 1)
		return 0;
	*owner = lower(p, (size_t)(slash - p));
	*repo = lower(slash + 1, (size_t)(end - slash - 1));
	if (strlen(*repo) > 4 && !strcmp(*repo + strlen(*repo) - 4, ".git"))
		(*repo)[strlen(*repo) - 4] = '\0';
	*rest = end;
	return 1;
}

/* the tag of a GitHub release asset (/releases/download/TAG/...) or tag archive (/archive/refs/tags/TAG.tar.gz) */
static char *
github_tag(const char *rest)
{
	static const char *const exts[] = {".tar.gz", ".tar.bz2", ".tar.xz", ".zip", ".tgz"};
	const char *p;

	if (!strncmp(rest, "/releases/download/", 19)) {
		p = rest + 19;
		return strchr(p, '/') ? ab_strndup(p, strcspn(p, "/")) : NULL;
	}
	if (!strncmp(rest, "/archive/refs/tags/", 19)) {
		p = rest + 19;
		for (size_t i = 0; i < AB_NELEM(exts); i++) {
			size_t n = strlen(p), e = strlen(exts[i]);

			if (n > e && !strcmp(p + n - e, exts[i]))
				return ab_strndup(p, n - e);
		}
	}
	return NULL;
}

/* a URL a reader elsewhere can use: not a place of the author's machine */
static int
public_url(const char *url)
{
	return url && strncmp(url, "file:", 5) && strchr(url, ':');
}

/* the first public URL of an archive record, or NULL */
static const char *
archive_url(const struct ab_fetch_record *r)
{
	for (size_t i = 0; i < r->urls.n; i++)
		if (public_url(r->urls.v[i]))
			return r->urls.v[i];
	return NULL;
}

/*
 * The purl of a fetched source, or NULL (a dir source, an archive known
 * only from the author's machine). name and version name a generic one.
 */
static char *
source_purl(const struct ab_fetch_record *r, const char *name, const char *version)
{
	struct ab_buf b = {0};
	char *owner = NULL, *repo = NULL, *tag = NULL;
	const char *rest, *url;

	if (r->kind == AB_FETCH_GIT && r->url && r->commit) {
		if (github_repo(&owner, &repo, &rest, r->url) && (!*rest || !strcmp(rest, "/"))) {
			ab_buf_printf(&b, "pkg:github/%s/%s@%s", owner, repo, r->commit);
		} else if (public_url(r->url)) {
			char *vcs = ab_sprintf("git+%s@%s", r->url, r->commit);

			ab_buf_puts(&b, "pkg:generic/");
			put_pct(&b, name, NULL);
			ab_buf_printf(&b, "@%s?vcs_url=", r->commit);
			put_pct(&b, vcs, ":/");
			free(vcs);
		}
	} else if (r->kind == AB_FETCH_ARCHIVE && r->sha256 && (url = archive_url(r))) {
		if (github_repo(&owner, &repo, &rest, url) && (tag = github_tag(rest))) {
			ab_buf_printf(&b, "pkg:github/%s/%s@", owner, repo);
			put_pct(&b, tag, NULL);
		} else {
			ab_buf_puts(&b, "pkg:generic/");
			put_pct(&b, name, NULL);
			if (version) {
				ab_buf_putc(&b, '@');
				put_pct(&b, version, NULL);
			}
			ab_buf_puts(&b, "?checksum=sha256:");
			ab_buf_puts(&b, r->sha256);
			ab_buf_puts(&b, "&download_url=");
			put_pct(&b, url, ":/");
		}
	}
	free(owner);
	free(repo);
	free(tag);
	return b.s;
}

/* "5.3.0" of jemalloc's "5.3.0-0-g54eaed1d...", NULL for none or the bogus version */
static char *
short_version(const char *v)
{
	if (!v || !*v || !strncmp(v, "0.0.0-", 6))
		return NULL;
	return ab_strndup(v, strcspn(v, "-"));
}

/* ---- CycloneDX ---- */

static void
add_property(cJSON *comp, const char *name, const char *value)
{
	cJSON *props = ab_json_get(comp, "properties"), *p;

	if (!value)
		return;
	if (!props)
		props = cJSON_AddArrayToObject(comp, "properties");
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "name", name);
	cJSON_AddStringToObject(p, "value", value);
	cJSON_AddItemToArray(props, p);
}

static cJSON *
sha256_hashes(const char *hex)
{
	cJSON *a = cJSON_CreateArray(), *h = cJSON_CreateObject();

	cJSON_AddStringToObject(h, "alg", "SHA-256");
	cJSON_AddStringToObject(h, "content", hex);
	cJSON_AddItemToArray(a, h);
	return a;
}

/* a component of type, bom-ref ref (NULL: none), name and version (NULL: none) */
static cJSON *
component(const char *type, const char *ref, const char *name, const char *version)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddStringToObject(c, "type", type);
	if (ref)
		cJSON_AddStringToObject(c, "bom-ref", ref);
	cJSON_AddStringToObject(c, "name", name);
	if (version)
		cJSON_AddStringToObject(c, "version", version);
	return c;
}

/* where a fetched source's bytes are published: the archive with its sha256, the repository */
static void
add_source_refs(cJSON *c, const struct ab_fetch_record *r)
{
	cJSON *refs = cJSON_CreateArray(), *x;
	const char *url = r->kind == AB_FETCH_ARCHIVE ? archive_url(r) : r->kind == AB_FETCH_GIT ? r->url : NULL;

	if (public_url(url)) {
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "type", r->kind == AB_FETCH_ARCHIVE ? "distribution" : "vcs");
		cJSON_AddStringToObject(x, "url", url);
		if (r->kind == AB_FETCH_ARCHIVE)
			cJSON_AddItemToObject(x, "hashes", sha256_hashes(r->sha256));
		else
			cJSON_AddStringToObject(x, "comment", r->commit);
		cJSON_AddItemToArray(refs, x);
	}
	if (cJSON_GetArraySize(refs))
		cJSON_AddItemToObject(c, "externalReferences", refs);
	else
		cJSON_Delete(refs);
}

/* the allocator version found in a variant's allocator archive artifact, or in its first artifact */
static const char *
variant_allocator_version(const struct ab_binprov_variant *v)
{
	for (size_t i = 0; i < v->nartifacts; i++)
		if (v->artifacts[i].allocator_archive && v->artifacts[i].allocator_version)
			return v->artifacts[i].allocator_version;
	return v->nartifacts ? v->artifacts[0].allocator_version : NULL;
}

/* a variant whose own artifact is its allocator archive, built from its source (not vendored) */
static int
builds_allocator(const struct ab_binprov_variant *v)
{
	if (!v->allocator.kind || v->allocator.vendored)
		return 0;
	for (size_t i = 0; i < v->nartifacts; i++)
		if (v->artifacts[i].allocator_archive)
			return 1;
	return 0;
}

static int
is_built(const struct ab_binprov_variant *v)
{
	return strcmp(v->kind, "runtime_of") && (!v->base || !strcmp(v->base, v->label));
}

/* the component of a source, once per source id */
static void
add_source(cJSON *comps, struct ab_strv *done, const struct ab_binprov_variant *v)
{
	const struct ab_fetch_record *r = v->source.pin;
	char *ref, *name, *version = NULL, *purl;
	int lib = builds_allocator(v);
	cJSON *c;

	ref = ab_sprintf("source:%s", v->source.id);
	if (ab_strv_has(done, ref)) {
		free(ref);
		return;
	}
	ab_strv_push(done, ref);
	if (lib) {
		name = ab_strdup(v->allocator.kind);
		version = short_version(variant_allocator_version(v));
	} else {
		const char *url = r->kind == AB_FETCH_GIT ? r->url : r->kind == AB_FETCH_ARCHIVE ? archive_url(r) : NULL;
		char *owner = NULL, *repo = NULL;
		const char *rest;

		if (url && github_repo(&owner, &repo, &rest, url))
			name = ab_strdup(repo);
		else
			name = ab_strdup(v->source.id);
		free(owner);
		free(repo);
	}
	if (!version && r->kind == AB_FETCH_GIT)
		version = ab_strdup_or_null(r->commit);
	c = component(lib ? "library" : "application", ref, name, version);
	if (r->kind == AB_FETCH_ARCHIVE)
		cJSON_AddItemToObject(c, "hashes", sha256_hashes(r->sha256));
	if ((purl = source_purl(r, name, version)))
		cJSON_AddStringToObject(c, "purl", purl);
	add_source_refs(c, r);
	add_property(c, "allocbuild:source", v->source.id);
	add_property(c, "allocbuild:source-kind", r->kind == AB_FETCH_GIT ? "git" : r->kind == AB_FETCH_ARCHIVE ? "archive" : "dir");
	if (r->kind == AB_FETCH_GIT)
		add_property(c, "allocbuild:git-commit", r->commit);
	if (r->kind == AB_FETCH_DIR)
		add_property(c, "allocbuild:dirHash", r->dirhash);
	cJSON_AddItemToArray(comps, c);
	free(purl);
	free(name);
	free(version);
	free(ref);
}

/*
 * The upstream's archive sha256 or git commit: the report's when it read
 * the archive or the commit itself, else the fetch record's of the source
 * whose fresh tree it read (the build's upstream/ID/)
 */
static const char *
upstream_sha256(const struct ab_fetch_record *r, const struct ab_updiffrec *u)
{
	if (u->upstream.archive_sha256)
		return u->upstream.archive_sha256;
	return r && r->kind == AB_FETCH_ARCHIVE ? r->sha256 : NULL;
}

static const char *
upstream_commit(const struct ab_fetch_record *r, const struct ab_updiffrec *u)
{
	if (u->upstream.commit)
		return u->upstream.commit;
	return r && r->kind == AB_FETCH_GIT ? r->commit : NULL;
}

/* the upstream release a vendored tree was checked against, as pedigree.ancestors[0] */
static cJSON *
ancestor(const struct bom_in *in, const struct ab_binprov_variant *v, const struct ab_updiffrec *u)
{
	const struct ab_fetch_record *r = v->allocator.upstream ? ab_fetch_set_get(&in->sources, v->allocator.upstream) : NULL;
	char *version = short_version(u->upstream.version), *purl = NULL;
	cJSON *a;

	if (!version && r && r->kind == AB_FETCH_GIT)
		version = ab_strdup_or_null(r->commit);
	a = component("library", NULL, v->allocator.kind ? v->allocator.kind : "allocator", version);
	if (upstream_sha256(r, u))
		cJSON_AddItemToObject(a, "hashes", sha256_hashes(upstream_sha256(r, u)));
	if (r && (purl = source_purl(r, v->allocator.kind ? v->allocator.kind : v->allocator.upstream, version)))
		cJSON_AddStringToObject(a, "purl", purl);
	if (r)
		add_source_refs(a, r);
	add_property(a, "allocbuild:source", v->allocator.upstream);
	if (r)
		add_property(a, "allocbuild:source-kind", r->kind == AB_FETCH_GIT ? "git" : r->kind == AB_FETCH_ARCHIVE ? "archive" : "dir");
	add_property(a, "allocbuild:git-commit", upstream_commit(r, u));
	add_property(a, "allocbuild:version", u->upstream.version);
	add_property(a, "allocbuild:dirHash", u->upstream.dirhash);
	free(purl);
	free(version);
	return a;
}

/* names of the files of status st, for the notes: "PATH (class), ..." */
static void
put_files(struct ab_buf *b, const struct ab_updiffrec *u, enum ab_updiff_status st)
{
	int any = 0;

	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].status == st) {
			ab_buf_printf(b, "%s%s (%s)", any ? ", " : "", u->files[i].path, u->files[i].cls ? u->files[i].cls : "?");
			any = 1;
		}
}

/* s with every occurrence of what (when not NULL or empty) replaced by with; a new string */
static char *
replace_all(const char *s, const char *what, const char *with)
{
	struct ab_buf b = {0};
	const char *p;
	size_t n = what ? strlen(what) : 0;

	if (!n || !with)
		return ab_strdup(s);
	while ((p = strstr(s, what))) {
		ab_buf_add(&b, s, (size_t)(p - s));
		ab_buf_puts(&b, with);
		s = p + n;
	}
	ab_buf_puts(&b, s);
	return b.s ? b.s : ab_strdup("");
}

static cJSON *
pedigree(const struct bom_in *in, const struct ab_binprov_variant *v, const struct ab_updiffrec *u)
{
	const struct ab_fetch_record *r = v->allocator.upstream ? ab_fetch_set_get(&in->sources, v->allocator.upstream) : NULL;
	cJSON *p = cJSON_CreateObject(), *anc = cJSON_AddArrayToObject(p, "ancestors"), *patches = NULL;
	struct ab_buf notes = {0};
	size_t omitted = 0;

	cJSON_AddItemToArray(anc, ancestor(in, v, u));
	for (size_t i = 0; i < u->nfiles; i++) {
		const struct ab_updiffrec_file *f = &u->files[i];
		cJSON *x;

		if (f->status != AB_UPDIFF_DIFFERS)
			continue;
		if (!patches)
			patches = cJSON_AddArrayToObject(p, "patches");
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "type", "unofficial");
		if (f->diff) {
			cJSON *t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(x, "diff"), "text");

			cJSON_AddStringToObject(t, "contentType", "text/x-diff");
			cJSON_AddStringToObject(t, "content", f->diff);
		} else {
			omitted++;
		}
		cJSON_AddItemToArray(patches, x);
	}
	ab_buf_printf(&notes, "checked by allocbuild upstream-diff against the source %s: %s; verdict: %s",
	    v->allocator.upstream ? v->allocator.upstream : "?", u->summary ? u->summary : "",
	    u->matches ? (u->identical ? "identical to upstream" : "matches upstream") : "differs from upstream");
	if (upstream_sha256(r, u) || upstream_commit(r, u))
		ab_buf_printf(&notes, "; the upstream is %s %s", upstream_sha256(r, u) ? "the archive of sha256" : "git commit",
		    upstream_sha256(r, u) ? upstream_sha256(r, u) : upstream_commit(r, u));
	if (u->candidate.dirhash)
		ab_buf_printf(&notes, "; the vendored tree's dirHash is %s", u->candidate.dirhash);
	{
		struct ab_buf l = {0};

		put_files(&l, u, AB_UPDIFF_ONLY_UPSTREAM);
		if (l.len)
			ab_buf_printf(&notes, "; left out of the vendored copy, not patches: %s", l.s);
		ab_buf_clear(&l);
		put_files(&l, u, AB_UPDIFF_ONLY_CANDIDATE);
		if (l.len)
			ab_buf_printf(&notes, "; only in the vendored copy, not patches: %s", l.s);
		ab_buf_free(&l);
	}
	if (omitted)
		ab_buf_printf(&notes, "; %zu patch%s without its diff: the build did not record it (allocbuild upstream-diff --diff shows it)",
		    omitted, omitted == 1 ? "" : "es");
	for (size_t i = 0; i < u->notes.n; i++) {
		/* the notes name the sides by where the build read them: a place of the author's machine */
		char *n = replace_all(u->notes.v[i], u->upstream.spec, v->allocator.upstream);
		char *m = replace_all(n, u->candidate.spec, v->allocator.vendored);

		ab_buf_printf(&notes, "; %s", m);
		free(n);
		free(m);
	}
	cJSON_AddStringToObject(p, "notes", notes.s);
	ab_buf_free(&notes);
	return p;
}

/*
 * The component of a vendored allocator tree, once per tree (variants of
 * one source with the same tree share it; an overlay makes another);
 * its bom-ref into *ref_out
 */
static void
add_vendored(cJSON *comps, struct ab_strv *done, struct ab_strv *keys, char **ref_out, const struct bom_in *in,
    const struct ab_binprov_variant *v, const struct ab_updiffrec *u)
{
	const struct ab_fetch_record *r = v->allocator.upstream ? ab_fetch_set_get(&in->sources, v->allocator.upstream) : NULL;
	char *key = ab_sprintf("%s\n%s\n%s\n%s", v->source.id ? v->source.id : "", v->allocator.vendored,
	    u->candidate.dirhash, u->upstream.dirhash);
	char *version, *purl = NULL;
	cJSON *c;

	for (size_t i = 0; i < keys->n; i++)
		if (!strcmp(keys->v[i], key)) {
			*ref_out = ab_strdup(done->v[i]);
			cJSON_ArrayForEach(c, comps)
				if (!strcmp(ab_json_str(c, "bom-ref"), done->v[i]))
					add_property(c, "allocbuild:variant", v->label);
			free(key);
			return;
		}
	*ref_out = ab_sprintf("vendored:%s:%s", v->label, v->allocator.vendored);
	ab_strv_push_owned(keys, key);
	ab_strv_push(done, *ref_out);
	version = short_version(u->upstream.version);
	if (!version)
		version = short_version(u->candidate.version);
	c = component("library", *ref_out, v->allocator.kind ? v->allocator.kind : "allocator", version);
	if (r && (purl = source_purl(r, v->allocator.kind ? v->allocator.kind : v->allocator.upstream, version)))
		cJSON_AddStringToObject(c, "purl", purl);
	cJSON_AddItemToObject(c, "pedigree", pedigree(in, v, u));
	add_property(c, "allocbuild:vendored", v->allocator.vendored);
	add_property(c, "allocbuild:vendored-in", v->source.id);
	add_property(c, "allocbuild:dirHash", u->candidate.dirhash);
	add_property(c, "allocbuild:upstream-diff", u->matches ? (u->identical ? "identical" : "matches") : "differs");
	add_property(c, "allocbuild:variant", v->label);
	cJSON_AddItemToArray(comps, c);
	free(purl);
	free(version);
}

/* the ref of the artifact component with this digest, preferring v's own; NULL when none */
static const char *
artifact_by_sha(const struct ab_strv *refs, const struct ab_strv *shas, const char *sha, const char *own_prefix)
{
	const char *any = NULL;

	for (size_t i = 0; sha && i < refs->n; i++)
		if (!strcmp(shas->v[i], sha)) {
			if (own_prefix && !strncmp(refs->v[i], own_prefix, strlen(own_prefix)))
				return refs->v[i];
			if (!any)
				any = refs->v[i];
		}
	return any;
}

static const char *
variant_of_base(const struct ab_binprov_variant *v)
{
	return v->base ? v->base : v->label;
}

static cJSON *
cyclonedx(const struct bom_in *in)
{
	const struct ab_binprov *b = &in->bin;
	cJSON *doc = cJSON_CreateObject(), *meta, *tools, *comps, *deps_json, *root;
	struct ab_strv src_done = {0}, vend_refs = {0}, vend_keys = {0}, art_refs = {0}, art_shas = {0};
	char **vendored_of = ab_calloc(b->nvariants + 1, sizeof(*vendored_of));
	struct deps d = {0};
	char *root_ref = ab_sprintf("recipe:%s", b->recipe_name);

	cJSON_AddStringToObject(doc, "$schema", "http://cyclonedx.org/schema/bom-1.6.schema.json");
	cJSON_AddStringToObject(doc, "bomFormat", "CycloneDX");
	cJSON_AddStringToObject(doc, "specVersion", CDX_SPEC);
	if (b->invocation_id) {
		char *sn = ab_sprintf("urn:uuid:%s", b->invocation_id);

		cJSON_AddStringToObject(doc, "serialNumber", sn);
		free(sn);
	}
	cJSON_AddNumberToObject(doc, "version", 1);
	meta = cJSON_AddObjectToObject(doc, "metadata");
	tools = cJSON_AddArrayToObject(cJSON_AddObjectToObject(meta, "tools"), "components");
	cJSON_AddItemToArray(tools, component("application", NULL, "allocbuild", AB_VERSION));
	root = component("application", root_ref, b->recipe_name, NULL);
	cJSON_AddStringToObject(root, "description", "the variants an allocbuild recipe built (recipe.json)");
	cJSON_AddItemToObject(root, "hashes", sha256_hashes(b->recipe_sha256));
	add_property(root, "allocbuild:recipe-sha256", b->recipe_sha256);
	add_property(root, "allocbuild:invocation-id", b->invocation_id);
	cJSON_AddItemToObject(meta, "component", root);
	comps = cJSON_AddArrayToObject(doc, "components");
	dep_of(&d, root_ref);

	/* sources, and the allocator trees vendored in them */
	for (size_t i = 0; i < b->nvariants; i++) {
		const struct ab_binprov_variant *v = &b->variants[i];
		const struct ab_updiffrec *u = ab_updiffrecs_get(&in->updiff, v->label);

		if (!is_built(v))
			continue;
		if (v->source.id && v->source.pin && !v->source.relink_of) {
			add_source(comps, &src_done, v);
		}
		if (u && v->allocator.vendored) {
			add_vendored(comps, &vend_refs, &vend_keys, &vendored_of[i], in, v, u);
			if (v->source.id && v->source.pin) {
				char *sref = ab_sprintf("source:%s", v->source.id);

				dep_add(&d, sref, vendored_of[i]);
				free(sref);
			}
			dep_of(&d, vendored_of[i]);
		}
	}
	/* the artifacts */
	for (size_t i = 0; i < b->nvariants; i++) {
		const struct ab_binprov_variant *v = &b->variants[i];

		if (!is_built(v))
			continue;
		for (size_t j = 0; j < v->nartifacts; j++) {
			const struct ab_binprov_artifact *a = &v->artifacts[j];
			int lib = a->allocator_archive || is_library(a);
			const char *base = strrchr(a->path, '/');
			char *ref = ab_sprintf("artifact:%s", a->path), *ver = short_version(a->allocator_version);
			cJSON *c = component(lib ? "library" : "application", ref, base ? base + 1 : a->path,
			    a->allocator_archive ? ver : NULL);

			cJSON_AddItemToObject(c, "hashes", sha256_hashes(a->sha256));
			add_property(c, "allocbuild:variant", v->label);
			for (size_t k = 0; k < b->nvariants; k++)
				if (!is_built(&b->variants[k]) && !strcmp(variant_of_base(&b->variants[k]), v->label))
					add_property(c, "allocbuild:runtime-variant", b->variants[k].label);
			add_property(c, "allocbuild:path", a->path);
			add_property(c, "allocbuild:kind", !strcmp(v->kind, "relink") ? "diagnostic relink" : v->kind);
			if (a->allocator_archive)
				add_property(c, "allocbuild:allocator-archive", v->allocator.kind ? v->allocator.kind : "true");
			add_property(c, "allocbuild:allocator-version", a->allocator_version);
			cJSON_AddItemToArray(comps, c);
			ab_strv_push(&art_refs, ref);
			ab_strv_push(&art_shas, a->sha256);
			dep_add(&d, root_ref, ref);
			free(ver);
			free(ref);
		}
	}
	/* what each artifact is made of */
	for (size_t i = 0, at = 0; i < b->nvariants; i++) {
		const struct ab_binprov_variant *v = &b->variants[i];
		char *own, *sref = NULL;
		const char *src = NULL;

		if (!is_built(v))
			continue;
		own = ab_sprintf("artifact:variants/%s/", v->label);
		if (!v->source.id && v->source.relink_of && ab_binprov_variant(b, v->source.relink_of))
			/* a relink is of its from variant's program: its source */
			sref = ab_sprintf("source:%s", ab_binprov_variant(b, v->source.relink_of)->source.id ?
			    ab_binprov_variant(b, v->source.relink_of)->source.id : "");
		else if (v->source.id)
			sref = ab_sprintf("source:%s", v->source.id);
		if (sref) {
			if (ab_strv_has(&src_done, sref))
				src = sref;
		}
		for (size_t j = 0; j < v->nartifacts; j++, at++) {
			const struct ab_binprov_artifact *a = &v->artifacts[j];
			const char *ref = art_refs.v[at];

			if (a->allocator_archive) {
				dep_add(&d, ref, vendored_of[i] ? vendored_of[i] : src);
				continue;
			}
			dep_add(&d, ref, src);
			{
				const char *alloc = artifact_by_sha(&art_refs, &art_shas, v->allocator.archive_sha256, own);

				if (alloc && strcmp(alloc, ref))
					dep_add(&d, ref, alloc);
				else if (vendored_of[i])
					dep_add(&d, ref, vendored_of[i]);
			}
		}
		free(own);
		free(sref);
	}
	for (size_t i = 0; i < src_done.n; i++)
		dep_of(&d, src_done.v[i]);
	deps_json = cJSON_AddArrayToObject(doc, "dependencies");
	for (size_t i = 0; i < d.n; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "ref", d.v[i].ref);
		cJSON_AddItemToObject(x, "dependsOn", ab_json_strv(d.v[i].on.v, d.v[i].on.n));
		cJSON_AddItemToArray(deps_json, x);
	}
	for (size_t i = 0; i < b->nvariants; i++)
		free(vendored_of[i]);
	free(vendored_of);
	deps_release(&d);
	ab_strv_free(&src_done);
	ab_strv_free(&vend_refs);
	ab_strv_free(&vend_keys);
	ab_strv_free(&art_refs);
	ab_strv_free(&art_shas);
	free(root_ref);
	return doc;
}

/* ---- the formats ---- */

static const struct {
	const char *name;
	cJSON *(*make)(const struct bom_in *in);
} formats[] = {
	{"cyclonedx", cyclonedx},
};

const char *const ab_sbom_formats[] = {"cyclonedx", NULL};

static int
read_input(struct bom_in *in, const char *outdir, int verify)
{
	struct ab_manifest_recorded rec = {0};
	cJSON *sources = NULL;
	char *p = NULL;
	int rc;

	memset(in, 0, sizeof(*in));
	in->outdir = outdir;
	p = ab_path_join(outdir, "recipe.json");
	if (!ab_path_exists(p)) {
		ab_error("sbom: '%s' has no recipe.json: not an allocbuild output directory", outdir);
		free(p);
		return AB_EFAIL;
	}
	free(p);
	p = NULL;
	if ((verify && (rc = ab_manifest_verify_reported("sbom", outdir, "no SBOM")) < 0) ||
	    (rc = ab_manifest_recorded_read(&rec, outdir, 0)) < 0)
		goto done;
	rc = AB_EFAIL;
	if (!ab_strv_has(&rec.paths, "provenance/binary-provenance.json")) {
		ab_error("sbom: '%s' has no provenance/binary-provenance.json: run 'allocbuild build' first", outdir);
		goto done;
	}
	if (ab_binprov_read(&in->bin, outdir) < 0)
		goto done;
	if (ab_strv_has(&rec.paths, "provenance/upstream-diff.json") && ab_updiffrecs_read(&in->updiff, outdir) < 0)
		goto done;
	if (ab_strv_has(&rec.paths, "provenance/sources.json")) {
		p = ab_path_join(outdir, "provenance/sources.json");
		if (ab_json_read(&sources, p) < 0)
			goto done;
		if (ab_fetch_set_parse(&in->sources, ab_json_get(sources, "sources")) < 0) {
			ab_error("'%s': sources: not a fetch record for each source id", p);
			goto done;
		}
	}
	rc = 0;
done:
	cJSON_Delete(sources);
	free(p);
	ab_manifest_recorded_release(&rec);
	return rc;
}

static void
release_input(struct bom_in *in)
{
	ab_binprov_release(&in->bin);
	ab_updiffrecs_release(&in->updiff);
	ab_fetch_set_release(&in->sources);
}

int
ab_sbom_make(cJSON **out, const char *outdir, const char *format)
{
	struct bom_in in;
	size_t f = 0;
	int rc;

	*out = NULL;
	if (format) {
		for (f = 0; f < AB_NELEM(formats) && strcmp(formats[f].name, format); f++)
			;
		if (f == AB_NELEM(formats)) {
			ab_error("sbom: unknown format '%s' (cyclonedx)", format);
			return AB_EFAIL;
		}
	}
	if ((rc = read_input(&in, outdir, 1)) == 0)
		*out = formats[f].make(&in);
	release_input(&in);
	return rc;
}

int
ab_sbom_write(const char *outdir, int statement)
{
	struct bom_in in;
	cJSON *doc = NULL, *st = NULL, *subject, *pred, *byp;
	char *dir = ab_path_join(outdir, AB_SBOM_DIR), *path = ab_path_join(outdir, AB_SBOM_DOC), *spath = NULL;
	char hex[AB_HEX_LEN + 1];
	int rc = 0;

	memset(&in, 0, sizeof(in));
	{
		/* an OUTDIR whose build describes no variant (sign's known-answer test) has nothing to list */
		char *bp = ab_path_join(outdir, "provenance/binary-provenance.json");
		cJSON *raw = NULL;
		int none = ab_json_read(&raw, bp) == 0 && !cJSON_GetArraySize(ab_json_get(raw, "variants"));

		cJSON_Delete(raw);
		free(bp);
		if (none)
			goto done;
	}
	if ((rc = read_input(&in, outdir, 0)) < 0)
		goto done;
	rc = AB_EFAIL;
	doc = cyclonedx(&in);
	if (ab_mkdir_p(dir, 0755) < 0 || ab_json_write(path, doc) < 0)
		goto done;
	if (!statement) {
		rc = 0;
		goto done;
	}
	if (ab_hash_file(hex, NULL, path) < 0)
		goto done;
	st = ab_statement_new(AB_SBOM_PREDICATE, &subject);
	for (size_t i = 0; i < in.bin.nvariants; i++)
		if (is_built(&in.bin.variants[i]))
			for (size_t j = 0; j < in.bin.variants[i].nartifacts; j++)
				ab_statement_descriptor(subject, in.bin.variants[i].artifacts[j].path,
				    in.bin.variants[i].artifacts[j].sha256);
	pred = cJSON_AddObjectToObject(st, "predicate");
	cJSON_AddStringToObject(pred, "format", "CycloneDX");
	cJSON_AddStringToObject(pred, "specVersion", CDX_SPEC);
	ab_json_add_str_or_null(pred, "serialNumber", ab_json_str(doc, "serialNumber"));
	byp = cJSON_AddArrayToObject(pred, "byproducts");
	cJSON_AddStringToObject(ab_statement_descriptor(byp, AB_SBOM_DOC, hex), "mediaType", "application/vnd.cyclonedx+json");
	spath = ab_path_join(outdir, AB_SBOM_STATEMENT);
	if (ab_json_write(spath, st) < 0)
		goto done;
	rc = 0;
done:
	release_input(&in);
	cJSON_Delete(doc);
	cJSON_Delete(st);
	free(dir);
	free(path);
	free(spath);
	return rc;
}
