#include "hostprobe.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

#define DEFS "include/jemalloc/internal/jemalloc_internal_defs.h"

const char *const ab_hostprobe_names[] = {"LG_PAGE", "LG_HUGEPAGE", "LG_VADDR", NULL};

/* the configure options that pin each value */
static const char *const pin_options[] = {"--with-lg-page", "--with-lg-hugepage", "--with-lg-vaddr", NULL};

/* the generated header: the build directory's own, else an ExternalProject's; NULL when none */
static char *
find_defs(const char *build_dir)
{
	char *own = ab_path_join(build_dir, DEFS), *pattern, *found = NULL;
	glob_t g;

	if (ab_path_exists(own))
		return own;
	free(own);
	pattern = ab_sprintf("%s/*-prefix/src/*-build/%s", build_dir, DEFS);
	if (glob(pattern, 0, NULL, &g) == 0) {
		if (g.gl_pathc > 0)
			found = ab_strdup(g.gl_pathv[0]);
		globfree(&g);
	}
	free(pattern);
	return found;
}

/* "#define NAME VALUE" lines into rec */
static void
parse_defs(cJSON *rec, const char *text)
{
	for (size_t i = 0; ab_hostprobe_names[i]; i++)
		cJSON_AddNullToObject(rec, ab_hostprobe_names[i]);
	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, "\n");

		if (!strncmp(s, "#define ", 8)) {
			const char *name = s + 8;
			size_t nl = strcspn(name, " \t\n");

			for (size_t i = 0; ab_hostprobe_names[i]; i++) {
				char *end;
				long v;

				if (strlen(ab_hostprobe_names[i]) != nl || strncmp(name, ab_hostprobe_names[i], nl))
					continue;
				v = strtol(name + nl, &end, 10);
				if (end != name + nl && (*end == '\n' || *end == '\0' || *end == ' '))
					cJSON_ReplaceItemInObject(rec, ab_hostprobe_names[i], cJSON_CreateNumber((double)v));
			}
		}
		s += n + (s[n] == '\n');
	}
}

/* the options of config.log's configure line ("  $ /path/configure ARGS") that pin a value */
static void
parse_pins(cJSON *pinned, const char *log)
{
	for (const char *s = log; s && *s;) {
		size_t n = strcspn(s, "\n");

		if (!strncmp(s, "  $ ", 4)) {
			char *line = ab_strndup(s, n);

			for (char *w = strtok(line, " "); w; w = strtok(NULL, " "))
				for (size_t i = 0; pin_options[i]; i++)
					if (!strncmp(w, pin_options[i], strlen(pin_options[i])) && w[strlen(pin_options[i])] == '=')
						cJSON_AddItemToArray(pinned, cJSON_CreateString(w));
			free(line);
			return;
		}
		s += n + (s[n] == '\n');
	}
}

int
ab_hostprobe_jemalloc(cJSON **out, const char *build_dir)
{
	char *defs = find_defs(build_dir), *log;
	struct ab_buf b = {0};
	size_t n = strlen(build_dir);
	cJSON *rec;

	*out = NULL;
	if (!defs)
		return 0;
	if (ab_read_file(&b, defs) < 0) {
		free(defs);
		return AB_EFAIL;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "header", !strncmp(defs, build_dir, n) && defs[n] == '/' ? defs + n + 1 : defs);
	parse_defs(rec, b.s);
	ab_buf_free(&b);
	/* config.log is in the directory configure ran in, three levels above the header */
	log = ab_strndup(defs, strlen(defs) - strlen(DEFS));
	{
		char *path = ab_sprintf("%sconfig.log", log);

		if (ab_path_exists(path) && ab_read_file(&b, path) == 0)
			parse_pins(cJSON_AddArrayToObject(rec, "pinned"), b.s);
		else
			cJSON_AddArrayToObject(rec, "pinned");
		free(path);
	}
	ab_buf_free(&b);
	free(log);
	free(defs);
	*out = rec;
	return 0;
}

static char *
value_str(const cJSON *rec, const char *name)
{
	const cJSON *v = ab_json_get(rec, name);

	if (!rec)
		return ab_strdup("not recorded");
	return cJSON_IsNumber(v) ? ab_sprintf("%d", v->valueint) : ab_strdup("undefined");
}

cJSON *
ab_hostprobe_diff(const cJSON *a, const cJSON *b)
{
	cJSON *d = cJSON_CreateArray();

	if (!a && !b)
		return d;
	for (size_t i = 0; ab_hostprobe_names[i]; i++) {
		char *x = value_str(a, ab_hostprobe_names[i]), *y = value_str(b, ab_hostprobe_names[i]);

		if (strcmp(x, y)) {
			char *line = ab_sprintf("%s: %s -> %s", ab_hostprobe_names[i], x, y);

			cJSON_AddItemToArray(d, cJSON_CreateString(line));
			free(line);
		}
		free(x);
		free(y);
	}
	return d;
}
