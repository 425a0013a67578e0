/*
 * probe_mimalloc: mimalloc's MIMALLOC_VERBOSE=1 report. Three formats
 * (docs/probes.md):
 *   2.0.9  "mimalloc: option 'decommit_delay': 25", "mimalloc: secure level: 0",
 *          no version line
 *   2.1.x  "mimalloc: option 'purge_delay': 10 " (a unit or a space follows)
 *   3.x    no prefix: "v3.2.8, release (built on ...)",
 *          "option 'arena_reserve': 1048576 KiB", "secure level: 0"
 * The probe program of ab_probe_archive() adds "allocbuild-probe: mi_version=N"
 * on stdout, which is how a 2.x archive's version is known.
 */
#include "probe_impl.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../alloc/allocopts.h"
#include "../alloc/allocver.h"

#define MI_VERSION_MARK "allocbuild-probe: mi_version="

static char *
rtrim_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return ab_strndup(s, n);
}

/* "v3.2.8, release (built on ...)" -> "3.2.8" */
static char *
version_line(const char *l)
{
	size_t n = 1;

	if (l[0] != 'v' || !isdigit((unsigned char)l[1]))
		return NULL;
	while (isdigit((unsigned char)l[n]) || l[n] == '.')
		n++;
	if (l[n] != ',' || n < 6)
		return NULL;
	return ab_strndup(l + 1, n - 1);
}

static void
parse_mi_version(cJSON *rec, const char *out)
{
	const char *m = out ? strstr(out, MI_VERSION_MARK) : NULL;
	char *end, *s;
	long v;

	if (!m)
		return;
	v = strtol(m + strlen(MI_VERSION_MARK), &end, 10);
	if (end == m + strlen(MI_VERSION_MARK))
		return;
	cJSON_AddNumberToObject(rec, "mi_version", (double)v);
	if (!cJSON_HasObjectItem(rec, "version") && (s = ab_mimalloc_version_string(v))) {
		cJSON_AddStringToObject(rec, "version", s);
		cJSON_AddStringToObject(rec, "version_from", "mi_version()");
		free(s);
	}
}

int
ab_probe_mimalloc_parse(cJSON *rec, const char *err, const char *out)
{
	const char *p = err ? err : "";
	cJSON *effective = cJSON_CreateObject(), *messages = cJSON_CreateArray();
	int found = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = ab_strndup(p, n);
		const char *l = line, *q;
		char *v;

		p += n + (p[n] == '\n');
		if (!strncmp(l, "mimalloc: ", 10))
			l += 10;
		/* 3.x: "v3.2.8, release (built on ...)", after "process init" */
		if (!cJSON_HasObjectItem(rec, "version") && (v = version_line(l))) {
			cJSON_AddStringToObject(rec, "version", v);
			cJSON_AddStringToObject(rec, "version_from", "verbose output");
			free(v);
		}
		if (!strncmp(l, "option '", 8) && (q = strstr(l + 8, "': "))) {
			char *name = ab_strndup(l + 8, (size_t)(q - (l + 8)));

			v = rtrim_dup(q + 3, strlen(q + 3));
			cJSON_DeleteItemFromObjectCaseSensitive(effective, name);
			cJSON_AddStringToObject(effective, name, v);
			free(name);
			free(v);
			found = 1;
		} else if (!strncmp(l, "secure level: ", 14) && !cJSON_HasObjectItem(rec, "secure")) {
			cJSON_AddNumberToObject(rec, "secure", atoi(l + 14));
		} else if (!strncmp(l, "debug level : ", 14) && !cJSON_HasObjectItem(rec, "debug")) {
			cJSON_AddNumberToObject(rec, "debug", atoi(l + 14));
		} else if (!strncmp(l, "warning: ", 9) || !strncmp(l, "error: ", 7)) {
			cJSON_AddItemToArray(messages, cJSON_CreateString(line));
		}
		free(line);
	}
	parse_mi_version(rec, out);
	if (!cJSON_HasObjectItem(rec, "version"))
		cJSON_AddNullToObject(rec, "version");
	cJSON_AddItemToObject(rec, "effective", effective);
	cJSON_AddItemToObject(rec, "messages", messages);
	return found;
}

/* MIMALLOC_PURGE_DELAY -> purge_delay; caller frees */
static char *
option_name(const char *var)
{
	char *s = ab_strdup(var + 9);

	for (char *c = s; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return s;
}

/* is there a "warning: <needle>" among the messages? */
static const char *
find_message(const cJSON *messages, const char *needle)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, messages)
		if (cJSON_IsString(m) && strstr(m->valuestring, needle))
			return m->valuestring;
	return NULL;
}

/* the option a deprecated name stands for, from mimalloc's own warning; caller frees */
static char *
legacy_target(const cJSON *messages, const char *name)
{
	char *needle = ab_sprintf("environment option \"mimalloc_%s\" is deprecated -- use \"mimalloc_", name);
	const char *m = find_message(messages, needle);
	char *r = NULL;

	if (m) {
		const char *s = strstr(m, needle) + strlen(needle);

		r = ab_strndup(s, strcspn(s, "\""));
	}
	free(needle);
	return r;
}

/* mimalloc's legacy names (MI_OPTION_LEGACY in options.c of 2.0.9, 2.1.x, 3.x) */
static const char *const legacy_names[][2] = {
	{"reset_delay", "decommit_delay"},
	{"reset_delay", "purge_delay"},
	{"abandoned_page_reset", "abandoned_page_decommit"},
	{"abandoned_page_reset", "abandoned_page_purge"},
	{"eager_region_commit", "arena_eager_commit"},
	{"reset_decommits", "purge_decommits"},
	{"large_os_pages", "allow_large_os_pages"},
	{"limit_os_alloc", "disallow_os_alloc"},
	{"decommit_extend_delay", "purge_extend_delay"},
	{"decommit_extend_delay", "deprecated_purge_extend_delay"},
	{"abandoned_reclaim_on_free", "page_reclaim_on_free"},
};

/*
 * An old name is read only when the new one is not set: is name the old
 * name of a printed option whose new variable is also requested? Returns
 * that variable's suffix (upper case, in env) and the option in *target.
 */
static const char *
ignored_legacy(const cJSON *effective, const struct ab_kvlist *env, const char *name, char **target)
{
	for (size_t i = 0; i < AB_NELEM(legacy_names); i++) {
		if (strcmp(legacy_names[i][0], name) || !ab_json_str(effective, legacy_names[i][1]))
			continue;
		for (size_t j = 0; j < env->n; j++) {
			char *other;
			int same;

			if (strncmp(env->v[j].key, "MIMALLOC_", 9))
				continue;
			other = option_name(env->v[j].key);
			same = !strcmp(other, legacy_names[i][1]);
			free(other);
			if (same) {
				*target = ab_strdup(legacy_names[i][1]);
				return env->v[j].key + 9;
			}
		}
	}
	return NULL;
}

/*
 * The value mimalloc makes of a MIMALLOC_* string (options.c
 * mi_option_init): an empty or boolean-looking value is 1 or 0, a number
 * is decimal, options counted in KiB take K/M/G/T suffixes and plain
 * bytes. Returns 0 when mimalloc would refuse the value.
 */
static int
mi_value(long long *out, const char *s, int kib)
{
	char buf[65], *end;
	size_t len = strlen(s);
	long long v;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)toupper((unsigned char)s[i]);
	buf[len] = 0;
	/* strstr on purpose: mimalloc accepts any substring, "E" means on */
	if (!buf[0] || strstr("1;TRUE;YES;ON", buf)) {
		*out = 1;
		return 1;
	}
	if (strstr("0;FALSE;NO;OFF", buf)) {
		*out = 0;
		return 1;
	}
	v = strtoll(buf, &end, 10);
	if (kib) {
		long long mul = 1;

		if (v < 0)
			v = 0;
		if (*end == 'K')
			end++;
		else if (*end == 'M')
			mul = 1024, end++;
		else if (*end == 'G')
			mul = 1024 * 1024, end++;
		else if (*end == 'T')
			mul = 1024LL * 1024 * 1024, end++;
		else
			v = v / 1024 + (v % 1024 != 0);
		/* mimalloc saturates too; the exact cap does not matter for a comparison */
		v = v > LLONG_MAX / mul ? LLONG_MAX : v * mul;
		if (end[0] == 'I' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
	}
	if (*end)
		return 0;
	*out = v;
	return 1;
}

void
ab_probe_mimalloc_check(cJSON *rec, const struct ab_kvlist *env)
{
	const cJSON *effective = cJSON_GetObjectItemCaseSensitive(rec, "effective");
	const cJSON *messages = cJSON_GetObjectItemCaseSensitive(rec, "messages");
	const char *version = ab_json_str(rec, "version");
	cJSON *overrides = cJSON_AddArrayToObject(rec, "overrides");
	char *vname = version ? ab_sprintf("mimalloc %s", version) : ab_strdup("this mimalloc (version unknown)");

	if (!cJSON_GetObjectItemCaseSensitive(rec, "problems"))
		cJSON_AddArrayToObject(rec, "problems");
	for (size_t i = 0; env && i < env->n; i++) {
		const char *var = env->v[i].key, *want = env->v[i].value ? env->v[i].value : "";
		char *name, *option, *needle, *target;
		const char *got;
		long long a, b;
		int kib;

		if (strncmp(var, "MIMALLOC_", 9) || !var[9])
			continue;
		name = option_name(var);
		option = ab_strdup(name);
		got = ab_json_str(effective, option);
		if (!got) {
			target = legacy_target(messages, name);
			if (target) {
				free(option);
				option = target;
				got = ab_json_str(effective, option);
			}
		}
		if (!got && (got = ignored_legacy(effective, env, name, &target))) {
			ab_probe_add_problem(rec, "ignored_option", var, "runtime",
			    "%s is ignored: it is the old name of option '%s', which MIMALLOC_%s sets", var, target, got);
			ab_probe_add_override(overrides, var, target, "runtime", want, NULL, "ignored");
			free(target);
			goto next;
		}
		if (!got) {
			ab_probe_add_problem(rec, "unknown_option", var, "runtime",
			    "unknown option %s: %s has no option '%s' (it silently ignores it)", var, vname, name);
			ab_probe_add_override(overrides, var, name, "runtime", want, NULL, "unknown");
			goto next;
		}
		if (!strcmp(option, "verbose")) {
			ab_probe_add_override(overrides, var, option, "runtime", want, got, "set_by_probe");
			goto next;
		}
		needle = ab_sprintf("environment option mimalloc_%s has an invalid value", option);
		if (find_message(messages, needle)) {
			ab_probe_add_problem(rec, "invalid", var, "runtime",
			    "invalid value '%s' for %s: mimalloc ignores it and keeps %s", want, var, got);
			ab_probe_add_override(overrides, var, option, "runtime", want, got, "invalid");
			free(needle);
			goto next;
		}
		free(needle);
		kib = strstr(got, "KiB") != NULL || !strcmp(option, "reserve_os_memory");
		b = strtoll(got, NULL, 10);
		if (mi_value(&a, want, kib) && a == b) {
			ab_probe_add_override(overrides, var, option, "runtime", want, got, "ok");
		} else {
			ab_probe_add_problem(rec, "override_mismatch", var, "runtime",
			    "runtime setting %s=%s did not take effect: option '%s' is %s", var, want, option, got);
			ab_probe_add_override(overrides, var, option, "runtime", want, got, "mismatch");
		}
next:
		free(name);
		free(option);
	}
	free(vname);
}

/* ---- the operations of mimalloc's registry row (provenance/alloc/allocreg.h) ---- */

/* this file's registry name */
#define KIND (ab_probe_kind_of(&ab_probe_mimalloc_ops)->name)

static int
run(cJSON **out, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc)
{
	const struct ab_allocator *mi = ab_probe_scan_first(sc, ab_probe_kind_of(&ab_probe_mimalloc_ops));
	struct ab_probe_run r;
	cJSON *rec;

	*out = NULL;
	if (ab_probe_run(&r, req, argv, "MIMALLOC_VERBOSE", "1") < 0)
		return -1;
	rec = ab_probe_new_record(req, KIND, !req->allocator);
	if (!ab_probe_mimalloc_parse(rec, r.err.s, r.out.s) && !req->allocator && !mi) {
		cJSON_Delete(rec);
		ab_probe_run_release(&r);
		return 0; /* not mimalloc */
	}
	ab_probe_complete_from_scan(rec, mi);
	ab_probe_mimalloc_check(rec, &req->env);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "effective")) == 0) {
		ab_probe_no_statistics(rec, KIND, argv, &r);
		if (!mi)
			ab_probe_asked_for(rec, KIND);
	}
	ab_probe_add_run(rec, &r);
	ab_probe_run_release(&r);
	*out = rec;
	return 0;
}

static const char mimalloc_program[] =
    "/* written by allocbuild: let the allocator start up, report its version */\n"
    "#include <stddef.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "extern int mi_version(void);\n"
    "extern void *mi_malloc(size_t size);\n"
    "extern void mi_free(void *p);\n"
    "\n"
    "int\n"
    "main(void)\n"
    "{\n"
    "\tstatic const size_t sizes[] = {8, 100, 5000, 1 << 20};\n"
    "\tvoid *volatile p[4];\n"
    "\n"
    "\tfor (int i = 0; i < 4; i++)\n"
    "\t\tp[i] = mi_malloc(sizes[i]);\n"
    "\tfor (int i = 0; i < 4; i++)\n"
    "\t\tmi_free(p[i]);\n"
    "\tp[0] = malloc(64);\n"
    "\tfree(p[0]);\n"
    "\tprintf(\"allocbuild-probe: mi_version=%d\\n\", mi_version());\n"
    "\treturn 0;\n"
    "}\n";

static void
archive_program(struct ab_buf *b, const char *archive)
{
	(void)archive;
	ab_buf_add(b, mimalloc_program, sizeof(mimalloc_program) - 1);
}

static const char *const archive_libs[] = {"-lpthread", NULL};

/* probe --pid: a MIMALLOC_* variable against its version's options */
static int
pid_setting(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const char *var, const char *value,
    const char *label)
{
	const char *basis;
	const struct ab_alloc_option *o;
	enum ab_opt_answer ans;

	if (!ab_allockind_reads(ab_probe_kind_of(&ab_probe_mimalloc_ops), var))
		return 0;
	ans = ab_allocopts_mimalloc(a->version, var, &basis, &o);
	if (ans == AB_OPT_READ) {
		ab_probe_pid_setting(settings, var, o->name, value, label, "read", NULL);
	} else if (ans == AB_OPT_NOT_READ) {
		char *msg = ab_sprintf("mimalloc %s has no option %s: it ignores it silently", basis, var);

		ab_probe_pid_setting(settings, var, NULL, value, label, "ignored", msg);
		ab_probe_pid_problem(rec, "ignored-setting", "%s", msg);
		free(msg);
	} else {
		ab_probe_pid_setting(settings, var, NULL, value, label, "unchecked",
		    "the mimalloc version is not known, so its options are not");
	}
	return 1;
}

/* its secure level is the one the variant's probe found */
static int
same_build(const struct ab_allocator *a, const cJSON *probe)
{
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(probe, "secure");

	return a->secure < 0 || !cJSON_IsNumber(sec) || sec->valueint == a->secure;
}

static void
print(FILE *f, const cJSON *al)
{
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(al, "secure");

	if (cJSON_IsNumber(sec))
		fprintf(f, ", secure level %d", sec->valueint);
	else
		fputs(", secure level unknown", f);
}

const struct ab_probe_ops ab_probe_mimalloc_ops = {
	.run = run,
	.archive_program = archive_program,
	.archive_libs = archive_libs,
	.pid_setting = pid_setting,
	.same_build = same_build,
	.print = print,
};
