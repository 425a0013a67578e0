#include "allocopts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "allocreg.h"

/* "5.3.0-0-g54eaed", "v2.1.7", "3.2.8" -> {5,3,0}, "2.36" -> {2,36,0}; 0 when there is no X.Y[.Z] at the start */
static int
parse_version(long v[3], const char *s)
{
	char *end;

	if (!s)
		return 0;
	if (*s == 'v')
		s++;
	v[2] = 0;
	for (int i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		v[i] = strtol(s, &end, 10);
		s = end;
		if (i < 2) {
			if (*s != '.')
				return i == 1; /* X.Y: glibc's 2.36, gperftools' 2.10 */
			s++;
		}
	}
	return 1;
}

static int
cmp_version(const long a[3], const long b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

const struct ab_alloc_release *
ab_allocopts_release(const struct ab_alloc_release *releases, const char *version)
{
	long want[3], bv[3] = {0};
	const struct ab_alloc_release *best = NULL;

	if (!releases || !parse_version(want, version))
		return NULL;
	for (const struct ab_alloc_release *r = releases; r->version; r++) {
		long v[3];

		if (!parse_version(v, r->version) || cmp_version(v, want) > 0)
			continue;
		if (!best || cmp_version(v, bv) >= 0) {
			best = r;
			memcpy(bv, v, sizeof(bv));
		}
	}
	return best;
}

enum ab_opt_answer
ab_allocopts_lookup(const struct ab_alloc_release *releases, const char *version, const char *name,
    const char **basis, const struct ab_alloc_option **option)
{
	const struct ab_alloc_release *r = ab_allocopts_release(releases, version);

	if (basis)
		*basis = r ? r->version : NULL;
	if (option)
		*option = NULL;
	if (!r)
		return AB_OPT_UNKNOWN_VERSION;
	for (const struct ab_alloc_option *o = r->options; o->name; o++)
		if (!strcmp(o->name, name) || (*o->alias && !strcmp(o->alias, name))) {
			if (option)
				*option = o;
			return *o->feature ? AB_OPT_NEEDS_FEATURE : AB_OPT_READ;
		}
	return AB_OPT_NOT_READ;
}

enum ab_opt_answer
ab_allocopts_jemalloc(const char *version, const char *name, const char **basis, const char **feature)
{
	const struct ab_alloc_option *o;
	enum ab_opt_answer a = ab_allocopts_lookup(ab_jemalloc_releases, version, name, basis, &o);

	if (feature)
		*feature = a == AB_OPT_NEEDS_FEATURE ? o->feature : NULL;
	return a;
}

/* does MIMALLOC_<upper(name)> spell var? */
static int
spells(const char *var, const char *name)
{
	if (!*name || strncmp(var, "MIMALLOC_", 9))
		return 0;
	var += 9;
	for (; *name; name++, var++)
		if (*var != toupper((unsigned char)*name))
			return 0;
	return *var == '\0';
}

enum ab_opt_answer
ab_allocopts_mimalloc(const char *version, const char *var, const char **basis, const struct ab_alloc_option **option)
{
	const struct ab_alloc_release *r = ab_allocopts_release(ab_mimalloc_releases, version);

	if (basis)
		*basis = r ? r->version : NULL;
	if (option)
		*option = NULL;
	if (!r)
		return AB_OPT_UNKNOWN_VERSION;
	for (const struct ab_alloc_option *o = r->options; o->name; o++)
		if (spells(var, o->name) || spells(var, o->alias)) {
			if (option)
				*option = o;
			return AB_OPT_READ;
		}
	return AB_OPT_NOT_READ;
}

/* jemalloc's conf names in "k:v,k:v" (the syntax is the probe's to judge) */
static void
check_conf(struct ab_strv *w, const char *version, const char *var, const char *conf)
{
	for (const char *p = conf; *p;) {
		size_t n = strcspn(p, ","), k = strcspn(p, ":");
		const char *basis;
		char *name;

		if (k < n) {
			name = ab_strndup(p, k);
			if (ab_allocopts_jemalloc(version, name, &basis, NULL) == AB_OPT_NOT_READ)
				ab_strv_pushf(w, "%s: jemalloc %s has no option '%s' (it reports \"Invalid conf pair\" and "
				    "ignores it)", var, basis, name);
			free(name);
		}
		p += n;
		if (*p == ',')
			p++;
	}
}

void
ab_allocopts_check_jemalloc(struct ab_strv *w, const char *version, const char *conf_var, const char *k,
    const char *value)
{
	if (conf_var && !strcmp(k, "MALLOC_CONF") && strcmp(conf_var, "MALLOC_CONF"))
		ab_strv_pushf(w, "MALLOC_CONF has no effect on this binary: it reads %s", conf_var);
	else if (!strcmp(k, conf_var ? conf_var : "MALLOC_CONF"))
		check_conf(w, version, k, value);
}

void
ab_allocopts_check_mimalloc(struct ab_strv *w, const char *version, const char *conf_var, const char *k,
    const char *value)
{
	const char *basis;

	(void)conf_var;
	(void)value;
	if (!strncmp(k, "MIMALLOC_", 9) && ab_allocopts_mimalloc(version, k, &basis, NULL) == AB_OPT_NOT_READ)
		ab_strv_pushf(w, "mimalloc %s has no option %s: it ignores it silently", basis, k);
}

/* glibc: its MALLOC_*_ variables (a tunable's alias) and the glibc.malloc tunables of GLIBC_TUNABLES */
void
ab_allocopts_check_glibc(struct ab_strv *w, const char *version, const char *conf_var, const char *k,
    const char *value)
{
	const char *basis;

	(void)conf_var;
	if (!strcmp(k, "GLIBC_TUNABLES")) {
		for (const char *p = value; *p;) {
			size_t n = strcspn(p, ":"), e = strcspn(p, "=");
			char *name = ab_strndup(p, e < n ? e : n);

			if (!strncmp(name, "glibc.malloc.", 13) &&
			    ab_allocopts_lookup(ab_glibc_releases, version, name, &basis, NULL) == AB_OPT_NOT_READ)
				ab_strv_pushf(w, "GLIBC_TUNABLES: glibc %s has no tunable %s: it ignores it silently", basis, name);
			free(name);
			p += n;
			if (*p)
				p++;
		}
	} else if (!strncmp(k, "MALLOC_", 7) &&
	    ab_allocopts_lookup(ab_glibc_releases, version, k, &basis, NULL) == AB_OPT_NOT_READ) {
		ab_strv_pushf(w, "glibc %s has no variable %s: it ignores it silently", basis, k);
	}
}

void
ab_allocopts_check_tcmalloc(struct ab_strv *w, const char *version, const char *conf_var, const char *k,
    const char *value)
{
	const char *basis;

	(void)conf_var;
	(void)value;
	if (!strncmp(k, "TCMALLOC_", 9) &&
	    ab_allocopts_lookup(ab_tcmalloc_releases, version, k, &basis, NULL) == AB_OPT_NOT_READ)
		ab_strv_pushf(w, "tcmalloc %s has no variable %s: it ignores it silently", basis, k);
}

void
ab_allocopts_check_env(struct ab_strv *w, const char *kind, const char *version, const char *conf_var, char *const *env)
{
	const struct ab_allockind *ak = kind ? ab_allockind_find(kind) : NULL;

	for (size_t i = 0; ak && ak->check_env && env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *k;

		if (!eq)
			continue;
		k = ab_strndup(env[i], (size_t)(eq - env[i]));
		ak->check_env(w, version, conf_var, k, eq + 1);
		free(k);
	}
}
