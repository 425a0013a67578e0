#include "allocopts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"

/* "5.3.0-0-g54eaed", "v2.1.7", "3.2.8" -> {5,3,0}; 0 when there is no X.Y.Z at the start */
static int
parse_version(long v[3], const char *s)
{
	char *end;

	if (!s)
		return 0;
	if (*s == 'v')
		s++;
	for (int i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		v[i] = strtol(s, &end, 10);
		s = end;
		if (i < 2) {
			if (*s != '.')
				return 0;
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

/* the index of the latest release at or before version among n entries of versions, or -1 */
static long
pick(const char *version, const char *(*name_of)(size_t), size_t n)
{
	long want[3], best = -1, bv[3] = {0};

	if (!parse_version(want, version))
		return -1;
	for (size_t i = 0; i < n; i++) {
		long v[3];

		if (!parse_version(v, name_of(i)) || cmp_version(v, want) > 0)
			continue;
		if (best < 0 || cmp_version(v, bv) >= 0) {
			best = (long)i;
			memcpy(bv, v, sizeof(bv));
		}
	}
	return best;
}

static size_t
count_je(void)
{
	size_t n = 0;

	while (ab_jemalloc_releases[n].version)
		n++;
	return n;
}

static size_t
count_mi(void)
{
	size_t n = 0;

	while (ab_mimalloc_releases[n].version)
		n++;
	return n;
}

static const char *
je_name(size_t i)
{
	return ab_jemalloc_releases[i].version;
}

static const char *
mi_name(size_t i)
{
	return ab_mimalloc_releases[i].version;
}

const struct ab_jemalloc_release *
ab_allocopts_jemalloc_release(const char *version)
{
	long i = pick(version, je_name, count_je());

	return i < 0 ? NULL : &ab_jemalloc_releases[i];
}

const struct ab_mimalloc_release *
ab_allocopts_mimalloc_release(const char *version)
{
	long i = pick(version, mi_name, count_mi());

	return i < 0 ? NULL : &ab_mimalloc_releases[i];
}

enum ab_opt_answer
ab_allocopts_jemalloc(const char *version, const char *name, const char **basis, const char **feature)
{
	const struct ab_jemalloc_release *r = ab_allocopts_jemalloc_release(version);

	if (basis)
		*basis = r ? r->version : NULL;
	if (feature)
		*feature = NULL;
	if (!r)
		return AB_OPT_UNKNOWN_VERSION;
	for (const struct ab_jemalloc_option *o = r->options; o->name; o++) {
		if (strcmp(o->name, name))
			continue;
		if (!*o->feature)
			return AB_OPT_READ;
		if (feature)
			*feature = o->feature;
		return AB_OPT_NEEDS_FEATURE;
	}
	return AB_OPT_NOT_READ;
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
ab_allocopts_mimalloc(const char *version, const char *var, const char **basis,
    const struct ab_mimalloc_option **option)
{
	const struct ab_mimalloc_release *r = ab_allocopts_mimalloc_release(version);

	if (basis)
		*basis = r ? r->version : NULL;
	if (option)
		*option = NULL;
	if (!r)
		return AB_OPT_UNKNOWN_VERSION;
	for (const struct ab_mimalloc_option *o = r->options; o->name; o++)
		if (spells(var, o->name) || spells(var, o->legacy)) {
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
ab_allocopts_check_env(struct ab_strv *w, const char *kind, const char *version, const char *conf_var, char *const *env)
{
	for (size_t i = 0; kind && env && env[i]; i++) {
		const char *eq = strchr(env[i], '='), *basis;
		char *k;

		if (!eq)
			continue;
		k = ab_strndup(env[i], (size_t)(eq - env[i]));
		if (!strcmp(kind, "jemalloc") && conf_var && !strcmp(k, "MALLOC_CONF") && strcmp(conf_var, "MALLOC_CONF"))
			ab_strv_pushf(w, "MALLOC_CONF has no effect on this binary: it reads %s", conf_var);
		else if (!strcmp(kind, "jemalloc") && !strcmp(k, conf_var ? conf_var : "MALLOC_CONF"))
			check_conf(w, version, k, eq + 1);
		else if (!strcmp(kind, "mimalloc") && !strncmp(k, "MIMALLOC_", 9) &&
		    ab_allocopts_mimalloc(version, k, &basis, NULL) == AB_OPT_NOT_READ)
			ab_strv_pushf(w, "mimalloc %s has no option %s: it ignores it silently", basis, k);
		free(k);
	}
}
