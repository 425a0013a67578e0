#include "places.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonio.h"
#include "util.h"

void
ab_places_init(struct ab_places *p, const char *outdir)
{
	char buf[PATH_MAX];
	const char *home = getenv("HOME");

	memset(p, 0, sizeof(*p));
	if (outdir) {
		p->outdir_abs = ab_path_absolute(outdir);
		p->outdir_real = realpath(outdir, NULL);
	}
	if (getcwd(buf, sizeof(buf)))
		p->cwd = ab_strdup(buf);
	if (home && home[0] == '/')
		p->home = ab_strdup(home);
}

void
ab_places_release(struct ab_places *p)
{
	free((char *)p->outdir_abs);
	free((char *)p->outdir_real);
	free((char *)p->cwd);
	free((char *)p->home);
	memset(p, 0, sizeof(*p));
}

int
ab_places_any(const struct ab_places *p)
{
	return p->outdir_abs || p->outdir_real || p->cwd || p->home;
}

cJSON *
ab_places_json(const struct ab_places *p)
{
	cJSON *o = cJSON_CreateObject();

	if (p->outdir_abs)
		cJSON_AddStringToObject(o, "outdir", p->outdir_abs);
	if (p->outdir_real)
		cJSON_AddStringToObject(o, "outdir_real", p->outdir_real);
	if (p->cwd)
		cJSON_AddStringToObject(o, "cwd", p->cwd);
	if (p->home)
		cJSON_AddStringToObject(o, "home", p->home);
	return o;
}

static const char *
absolute_or_null(const cJSON *doc, const char *key)
{
	const cJSON *v = ab_json_get(doc, key);

	return cJSON_IsString(v) && v->valuestring[0] == '/' ? ab_strdup(v->valuestring) : NULL;
}

void
ab_places_parse(struct ab_places *p, const cJSON *doc)
{
	p->outdir_abs = absolute_or_null(doc, "outdir");
	p->outdir_real = absolute_or_null(doc, "outdir_real");
	p->cwd = absolute_or_null(doc, "cwd");
	p->home = absolute_or_null(doc, "home");
}

/* does a path end before c (a component's last character was the one before)? */
static int
path_ends(char c)
{
	return !(c == '.' || c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z'));
}

/* the length of place q at s, 0 when it is not there */
static size_t
place_at(const char *s, const char *q)
{
	size_t n = q ? strlen(q) : 0;

	return n > 1 && !strncmp(s, q, n) && path_ends(s[n]) ? n : 0;
}

char *
ab_places_hide(const struct ab_places *ps, size_t n, const char *s)
{
	struct ab_buf b = {0};

	while (*s) {
		const char *as = NULL;
		size_t len = 0;

		for (size_t i = 0; i < n; i++) {
			const struct {
				const char *path, *as;
			} places[] = {{ps[i].outdir_abs, "OUTDIR"}, {ps[i].outdir_real, "OUTDIR"}, {ps[i].cwd, "."},
			    {ps[i].home, "~"}};

			for (size_t j = 0; j < AB_NELEM(places); j++) {
				size_t k = place_at(s, places[j].path);

				if (k > len) {
					len = k;
					as = places[j].as;
				}
			}
		}
		if (len) {
			ab_buf_puts(&b, as);
			s += len;
		} else {
			ab_buf_putc(&b, *s++);
		}
	}
	return b.s ? ab_buf_detach(&b) : ab_strdup("");
}

void
ab_places_hide_json(const struct ab_places *ps, size_t n, cJSON *doc)
{
	cJSON *it;

	if (!doc)
		return;
	if (cJSON_IsString(doc) && doc->valuestring && strchr(doc->valuestring, '/')) {
		char *h = ab_places_hide(ps, n, doc->valuestring);

		if (strcmp(h, doc->valuestring))
			cJSON_SetValuestring(doc, h);
		free(h);
		return;
	}
	cJSON_ArrayForEach(it, doc)
		ab_places_hide_json(ps, n, it);
}
