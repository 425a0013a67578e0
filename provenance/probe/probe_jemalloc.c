/*
 * probe_jemalloc: jemalloc's stats_print general section and its
 * "<jemalloc>: ..." conf diagnostics (formats: docs/probes.md).
 */
#include "probe_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../alloc/allocopts.h"
#include "../alloc/allocver.h"
#include "probe.h"

#define STATS_BEGIN "___ Begin jemalloc statistics ___"
#define STATS_END "--- End jemalloc statistics ---"
#define STATS_SWITCHES "stats_print:true,stats_print_opts:mdablxeh"
/* this file's registry name */
#define KIND (ab_probe_kind_of(&ab_probe_jemalloc_ops)->name)

static int
is_key_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

enum conf_status
ab_probe_jemalloc_conf_split(const char *s, struct ab_strv *keys, struct ab_strv *values)
{
	const char *p = s;

	while (*p) {
		const char *k = p, *v;

		while (is_key_char((unsigned char)*p))
			p++;
		if (*p == '\0')
			return CONF_ENDS_WITH_KEY;
		if (*p != ':')
			return CONF_MALFORMED;
		v = ++p;
		p += strcspn(p, ",");
		if (keys)
			ab_strv_push_owned(keys, ab_strndup(k, (size_t)(v - 1 - k)));
		if (values)
			ab_strv_push_owned(values, ab_strndup(v, (size_t)(p - v)));
		if (*p == ',') {
			p++;
			if (*p == '\0')
				return CONF_ENDS_WITH_COMMA;
		}
	}
	return CONF_OK;
}

char *
ab_probe_jemalloc_conf(const char *requested)
{
	if (!requested || !*requested)
		return ab_strdup(STATS_SWITCHES);
	/*
	 * Append, so the switches win over the request. A malformed request
	 * would make jemalloc stop reading before the switches ("Malformed
	 * conf string"), so then they go first: the request's own errors are
	 * still printed exactly as they would be on their own.
	 */
	if (ab_probe_jemalloc_conf_split(requested, NULL, NULL) == CONF_OK)
		return ab_sprintf("%s,%s", requested, STATS_SWITCHES);
	return ab_sprintf("%s,%s", STATS_SWITCHES, requested);
}

static char *
trim_dup(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return ab_strndup(s, n);
}

/* `"text"` -> text (to the last quote), `30 (arenas.x: 30)` -> 30 */
static char *
stat_value(const char *v, size_t n)
{
	while (n && *v == ' ')
		v++, n--;
	if (n && *v == '"') {
		const char *q = v + n;

		while (q > v + 1 && q[-1] != '"')
			q--;
		if (q > v + 1)
			return ab_strndup(v + 1, (size_t)(q - 1 - (v + 1)));
		return trim_dup(v + 1, n - 1);
	}
	return ab_strndup(v, strcspn(v, " \r\n") < n ? strcspn(v, " \r\n") : n);
}

static void
add_number(cJSON *rec, const char *key, const char *v)
{
	char *end;
	double d = strtod(v, &end);

	if (end != v)
		cJSON_AddNumberToObject(rec, key, d);
}

int
ab_probe_jemalloc_parse(cJSON *rec, const char *err)
{
	const char *p = err ? err : "";
	cJSON *config = NULL, *effective = NULL, *messages = cJSON_CreateArray();
	int in_stats = 0, found = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = ab_strndup(p, n);

		p += n + (p[n] == '\n');
		if (!strncmp(line, "<jemalloc>: ", 12)) {
			cJSON_AddItemToArray(messages, cJSON_CreateString(line));
		} else if (strstr(line, STATS_BEGIN)) {
			in_stats = found = 1;
			if (!config) {
				config = cJSON_AddObjectToObject(rec, "config");
				effective = cJSON_AddObjectToObject(rec, "effective");
			}
		} else if (strstr(line, STATS_END)) {
			in_stats = 0;
		} else if (in_stats) {
			const char *l = line + strspn(line, " ");
			const char *colon = strstr(l, ": ");

			if (colon) {
				size_t kl = (size_t)(colon - l);
				const char *v = colon + 2;
				char *val = stat_value(v, strlen(v));
				char *key = ab_strndup(l, kl);

				if (!strncmp(key, "config.", 7)) {
					cJSON_DeleteItemFromObjectCaseSensitive(config, key + 7);
					cJSON_AddStringToObject(config, key + 7, val);
				} else if (!strncmp(key, "opt.", 4)) {
					cJSON_DeleteItemFromObjectCaseSensitive(effective, key + 4);
					cJSON_AddStringToObject(effective, key + 4, val);
				} else if (!strcmp(key, "Version") && !cJSON_HasObjectItem(rec, "version")) {
					cJSON_AddStringToObject(rec, "version", val);
				} else if (!strcmp(key, "Quantum size") && !cJSON_HasObjectItem(rec, "quantum")) {
					add_number(rec, "quantum", val);
				} else if (!strcmp(key, "Page size") && !cJSON_HasObjectItem(rec, "page")) {
					add_number(rec, "page", val);
				}
				free(key);
				free(val);
			}
		}
		free(line);
	}
	if (found) {
		const char *v = ab_json_str(rec, "version");
		const char *mc = ab_json_str(config, "malloc_conf");

		cJSON_AddBoolToObject(rec, "bogus_version", ab_jemalloc_version_is_bogus(v));
		if (mc && *mc)
			cJSON_AddStringToObject(rec, "build_time", mc);
		else
			cJSON_AddNullToObject(rec, "build_time");
	}
	cJSON_AddItemToObject(rec, "messages", messages);
	return found;
}

/* the same setting in jemalloc's terms: "12" = "0xc", "30" = "30" */
static int
values_equal(const char *a, const char *b)
{
	char *ea, *eb;
	long long la, lb;
	double da, db;

	if (!strcmp(a, b))
		return 1;
	errno = 0;
	la = strtoll(a, &ea, 0);
	lb = strtoll(b, &eb, 0);
	if (!errno && *a && *b && !*ea && !*eb)
		return la == lb;
	if (*a == '-' || *b == '-')
		return 0;
	errno = 0;
	{
		unsigned long long ua = strtoull(a, &ea, 0), ub = strtoull(b, &eb, 0);

		if (!errno && *a && *b && !*ea && !*eb)
			return ua == ub;
	}
	da = strtod(a, &ea);
	db = strtod(b, &eb);
	if (*a && *b && !*ea && !*eb)
		return da == db;
	return 0;
}

struct conf_source {
	const char *origin;       /* "build" or "runtime" */
	const char *text;         /* the conf string, NULL when none */
	struct ab_strv keys, values;
	char *used;               /* pairs already tied to a message */
	enum conf_status status;
	int status_reported;
};

static void
source_init(struct conf_source *s, const char *origin, const char *text)
{
	memset(s, 0, sizeof(*s));
	s->origin = origin;
	s->text = text && *text ? text : NULL;
	if (s->text)
		s->status = ab_probe_jemalloc_conf_split(s->text, &s->keys, &s->values);
	s->used = ab_calloc(s->keys.n + 1, 1);
}

static void
source_release(struct conf_source *s)
{
	ab_strv_free(&s->keys);
	ab_strv_free(&s->values);
	free(s->used);
}

/* index of an unused pair "k:v" equal to setting, or -1 */
static ssize_t
source_find(const struct conf_source *s, const char *setting)
{
	for (size_t i = 0; i < s->keys.n; i++) {
		size_t kl = strlen(s->keys.v[i]);

		if (!s->used[i] && !strncmp(setting, s->keys.v[i], kl) && setting[kl] == ':' &&
		    !strcmp(setting + kl + 1, s->values.v[i]))
			return (ssize_t)i;
	}
	return -1;
}

static const char *
where(const cJSON *rec, const char *origin)
{
	const char *var = ab_json_str(rec, "conf_var");

	if (!strcmp(origin, "build"))
		return "baked in at build time (config.malloc_conf)";
	/* a prefixed jemalloc reads PREFIX_MALLOC_CONF: name the variable it really read */
	if (!strcmp(origin, "runtime"))
		return var && !strcmp(var, "_RJEM_MALLOC_CONF") ? "in the runtime _RJEM_MALLOC_CONF" :
		    "in the runtime MALLOC_CONF";
	return "from another source (the program's malloc_conf or /etc/malloc.conf)";
}

static void
check_malformed(cJSON *rec, struct conf_source *src, size_t nsrc, enum conf_status st, const char *what)
{
	for (size_t i = 0; i < nsrc; i++) {
		struct conf_source *s = &src[i];

		/* jemalloc reads each string twice and complains each time: report once */
		if (s->text && s->status == st) {
			if (!s->status_reported)
				ab_probe_add_problem(rec, "malformed", s->text, s->origin, "malformed %s '%s': %s",
				    !strcmp(s->origin, "build") ? "build-time config.malloc_conf" : "runtime MALLOC_CONF",
				    s->text, what);
			s->status_reported = 1;
			return;
		}
	}
}

/* "Invalid conf pair: k:v" and friends; returns 0 when line is not one */
static int
check_conf_error(cJSON *rec, struct conf_source *src, size_t nsrc, const char *msg)
{
	static const char *const reasons[] = {
		"Invalid conf pair", "Invalid conf value", "Out-of-range conf value",
		"Invalid settings for slab_sizes", "Invalid settings for bin_shards", "Error setting dss",
		"No getcpu support", "No THP support", "No high resolution timer support",
	};
	const char *sep = strstr(msg, ": ");
	const char *setting, *origin = "other";
	int known = 0;

	if (!sep)
		return 0;
	for (size_t i = 0; i < AB_NELEM(reasons); i++)
		if ((size_t)(sep - msg) == strlen(reasons[i]) && !strncmp(msg, reasons[i], strlen(reasons[i])))
			known = 1;
	if (!known)
		return 0;
	setting = sep + 2;
	for (size_t i = 0; i < nsrc; i++) {
		ssize_t j = source_find(&src[i], setting);

		if (j >= 0) {
			src[i].used[j] = 1;
			origin = src[i].origin;
			break;
		}
	}
	ab_probe_add_problem(rec, !strncmp(msg, "Out-of-range", 12) ? "out_of_range" : "invalid", setting,
	    origin, "%s setting '%s' %s: %.*s", !strncmp(msg, "Out-of-range", 12) ? "out-of-range" : "invalid",
	    setting, where(rec, origin), (int)(sep - msg), msg);
	return 1;
}

static void
add_override(cJSON *rec, cJSON *overrides, struct conf_source *s, size_t i)
{
	const char *key = s->keys.v[i], *want = s->values.v[i];
	const char *got = ab_json_str(cJSON_GetObjectItemCaseSensitive(rec, "effective"), key);
	const char *status;

	if (s->used[i])
		status = "invalid";
	else if (!strcmp(key, "stats_print") || !strcmp(key, "stats_print_opts"))
		status = "set_by_probe";
	else if (!got)
		status = "not_readable";
	else if (values_equal(want, got))
		status = "ok";
	else {
		char *setting = ab_sprintf("%s:%s", key, want);

		status = "mismatch";
		ab_probe_add_problem(rec, "override_mismatch", setting, s->origin,
		    "%s setting '%s:%s' did not take effect: opt.%s is %s",
		    !strcmp(s->origin, "build") ? "build-time" : "runtime", key, want, key, got);
		free(setting);
	}
	ab_probe_add_override(overrides, key, NULL, s->origin, want, got, status);
}

/* is key set again later in s, or in a later source? */
static int
overridden_later(struct conf_source *src, size_t nsrc, size_t si, size_t i)
{
	const char *key = src[si].keys.v[i];

	for (size_t j = i + 1; j < src[si].keys.n; j++)
		if (!strcmp(src[si].keys.v[j], key))
			return 1;
	for (size_t s = si + 1; s < nsrc; s++)
		for (size_t j = 0; j < src[s].keys.n; j++)
			if (!strcmp(src[s].keys.v[j], key) && !src[s].used[j])
				return 1;
	return 0;
}

void
ab_probe_jemalloc_check(cJSON *rec, const char *requested_conf)
{
	struct conf_source src[2];
	const cJSON *messages = cJSON_GetObjectItemCaseSensitive(rec, "messages");
	const cJSON *m;
	cJSON *overrides;

	if (!cJSON_GetObjectItemCaseSensitive(rec, "problems"))
		cJSON_AddArrayToObject(rec, "problems");
	/* jemalloc reads config.malloc_conf first, MALLOC_CONF last */
	source_init(&src[0], "build", ab_json_str(rec, "build_time"));
	source_init(&src[1], "runtime", requested_conf);
	cJSON_ArrayForEach(m, messages) {
		const char *msg = cJSON_IsString(m) ? m->valuestring + 12 : "";

		if (!strcmp(msg, "Conf string ends with key"))
			check_malformed(rec, src, 2, CONF_ENDS_WITH_KEY, "conf string ends with key");
		else if (!strcmp(msg, "Conf string ends with comma"))
			check_malformed(rec, src, 2, CONF_ENDS_WITH_COMMA, "conf string ends with comma");
		else if (!strcmp(msg, "Malformed conf string"))
			check_malformed(rec, src, 2, CONF_MALFORMED, "malformed conf string");
		else
			check_conf_error(rec, src, 2, msg);
	}
	/* what the statistics say was set, against what was asked for */
	if (cJSON_GetObjectItemCaseSensitive(rec, "effective")) {
		overrides = cJSON_AddArrayToObject(rec, "overrides");
		for (size_t s = 0; s < 2; s++)
			for (size_t i = 0; i < src[s].keys.n; i++)
				if (!overridden_later(src, 2, s, i))
					add_override(rec, overrides, &src[s], i);
	}
	source_release(&src[0]);
	source_release(&src[1]);
}

/* the problem of jemalloc's own about setting, or NULL */
static cJSON *
problem_for(cJSON *rec, const char *setting)
{
	cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(rec, "problems")) {
		const char *s = ab_json_str(p, "setting");

		if (s && !strcmp(s, setting))
			return p;
	}
	return NULL;
}

/* jemalloc's message about setting ("<jemalloc>: Invalid conf pair: k:v"), or NULL */
static const char *
jemalloc_line(const cJSON *rec, const char *setting)
{
	const cJSON *m;
	size_t n = strlen(setting);

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(rec, "messages")) {
		size_t k = cJSON_IsString(m) ? strlen(m->valuestring) : 0;

		if (k > n + 2 && !strcmp(m->valuestring + k - n, setting) && !strncmp(m->valuestring + k - n - 2, ": ", 2))
			return m->valuestring;
	}
	return NULL;
}

/* check the pairs of one conf string (origin "build" or "runtime") against version */
static int
bundled_check(cJSON *rec, const char *conf, const char *origin, const char *version, const char *from)
{
	struct ab_strv keys = {0}, values = {0};
	int lacking = 0;

	if (!conf)
		return 0;
	(void)ab_probe_jemalloc_conf_split(conf, &keys, &values);
	for (size_t i = 0; i < keys.n; i++) {
		const char *basis = NULL;
		char *setting, *why;
		cJSON *p, *m;

		if (ab_allocopts_jemalloc(version, keys.v[i], &basis, NULL) != AB_OPT_NOT_READ)
			continue;
		lacking++;
		setting = ab_sprintf("%s:%s", keys.v[i], values.v[i]);
		why = ab_sprintf("jemalloc %s (%s) has no option '%s'", basis ? basis : version, from, keys.v[i]);
		if ((p = problem_for(rec, setting)) && (m = cJSON_GetObjectItemCaseSensitive(p, "message")) &&
		    cJSON_IsString(m)) {
			/* what the problem says, with jemalloc's own line as it printed it, then why */
			const char *line = jemalloc_line(rec, setting), *cut = strrchr(m->valuestring, ':');
			char *msg = ab_sprintf("%.*s: %s; %s", cut ? (int)(cut - m->valuestring) : (int)strlen(m->valuestring),
			    m->valuestring, line ? line : "", why);

			cJSON_SetValuestring(m, msg);
			free(msg);
		} else if (!p) {
			ab_probe_add_problem(rec, "unknown_option", setting, origin, "setting '%s' %s: %s", setting,
			    where(rec, origin), why);
		}
		free(why);
		free(setting);
	}
	ab_strv_free(&keys);
	ab_strv_free(&values);
	return lacking;
}

int
ab_probe_jemalloc_bundled(cJSON *rec, const char *version, const char *from)
{
	const char *v = ab_json_str(rec, "version");
	const char *var = ab_json_str(rec, "conf_var");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(rec, "requested");
	int n;

	if (!v || ab_jemalloc_version_is_bogus(v)) {
		if (v)
			cJSON_AddStringToObject(rec, "binary_version", v);
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "version");
		cJSON_AddStringToObject(rec, "version", version);
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "version_from");
		cJSON_AddStringToObject(rec, "version_from", from);
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "bogus_version");
		cJSON_AddBoolToObject(rec, "bogus_version", 0);
	}
	n = bundled_check(rec, ab_json_str(rec, "build_time"), "build", version, from);
	n += bundled_check(rec, ab_json_str(ab_json_get(req, "env"), var ? var : "MALLOC_CONF"), "runtime", version,
	    from);
	ab_probe_finish(rec);
	return n;
}

int
ab_probe_result_bundled(struct ab_probe_result *r, const char *version, const char *from)
{
	int n;

	if (!r->allocator || strcmp(r->allocator, KIND))
		return 0; /* another allocator than the crate's jemalloc */
	n = ab_probe_jemalloc_bundled(r->report, version, from);

	ab_probe_result_read(r);
	return n;
}

/* ---- the operations of jemalloc's registry row (provenance/alloc/allocreg.h) ---- */

static int
run(cJSON **out, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc)
{
	const struct ab_allocator *je = ab_probe_scan_first(sc, ab_probe_kind_of(&ab_probe_jemalloc_ops));
	const char *var, *want_conf;
	struct ab_probe_run r;
	char *conf, status[128];
	cJSON *rec;
	int error;

	var = je ? je->conf_var : "MALLOC_CONF";
	want_conf = ab_probe_kv_get(&req->env, var);
	conf = ab_probe_jemalloc_conf(want_conf);
	error = ab_probe_run(&r, req, argv, var, conf);
	free(conf);
	*out = NULL;
	if (error < 0)
		return -1;
	rec = ab_probe_new_record(req, KIND, !req->allocator);
	/* "<jemalloc>: ..." lines without statistics: still jemalloc (abort_conf:true) */
	if (!ab_probe_jemalloc_parse(rec, r.err.s) && !req->allocator && !je &&
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "messages")) == 0) {
		cJSON_Delete(rec);
		ab_probe_run_release(&r);
		return 0; /* not jemalloc */
	}
	if (je && *je->prefix) {
		cJSON_AddStringToObject(rec, "prefix", je->prefix);
		cJSON_AddStringToObject(rec, "conf_var", var);
	}
	ab_probe_jemalloc_check(rec, want_conf);
	if (!cJSON_HasObjectItem(rec, "effective")) {
		ab_proc_describe(status, sizeof(status), &r.res);
		if (!r.res.timed_out && r.err.s && strstr(r.err.s, "<jemalloc>: Abort (abort_conf:true)"))
			ab_probe_add_problem(rec, "no_statistics", NULL, NULL, "no jemalloc statistics from '%s' (%s): "
			    "jemalloc aborted on an invalid setting (abort_conf:true)", argv[0], status);
		else
			ab_probe_no_statistics(rec, KIND, argv, &r);
		if (!je && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "messages")) == 0)
			ab_probe_asked_for(rec, KIND);
	}
	ab_probe_complete_from_scan(rec, je);
	ab_probe_add_run(rec, &r);
	ab_probe_run_release(&r);
	*out = rec;
	return 0;
}

/* a prefixed jemalloc reads PREFIX_MALLOC_CONF only */
static void
scan_problems(cJSON *rec, const struct ab_probe_scan *sc, const struct ab_probe_req *req)
{
	const struct ab_allocator *je = ab_probe_scan_first(sc, ab_probe_kind_of(&ab_probe_jemalloc_ops));
	int plain = 0;

	if (!je || !*je->prefix || !ab_probe_kv_get(&req->env, "MALLOC_CONF"))
		return;
	for (size_t i = 0; i < sc->al.n; i++)
		plain |= !strcmp(sc->al.v[i].kind, KIND) && !*sc->al.v[i].prefix;
	if (!plain)
		ab_probe_add_problem(rec, "ignored", "MALLOC_CONF", "runtime",
		    "MALLOC_CONF has no effect on this binary: it reads %s", je->conf_var);
}

static const char jemalloc_program[] =
    "/* written by allocbuild: let the allocator start up, then exit */\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "int\n"
    "main(void)\n"
    "{\n"
    "\tstatic const size_t sizes[] = {8, 100, 5000, 1 << 20};\n"
    "\tvoid *volatile p[4];\n"
    "\n"
    "\tfor (int i = 0; i < 4; i++)\n"
    "\t\tp[i] = malloc(sizes[i]);\n"
    "\tfor (int i = 0; i < 4; i++)\n"
    "\t\tfree(p[i]);\n"
    "\tputs(\"allocbuild-probe: ok\");\n"
    "\treturn 0;\n"
    "}\n";

/*
 * The probe program for an archive. A jemalloc built with a symbol prefix
 * (--with-jemalloc-prefix, as Rust's crates build it) does not replace
 * malloc: the program calls the prefixed functions, so that the archive is
 * linked in and reports.
 */
static void
archive_program(struct ab_buf *b, const char *archive)
{
	struct ab_allocators al = {0};

	ab_report_mute();
	(void)ab_allocscan_file(&al, archive, 0);
	ab_report_unmute();
	for (size_t i = 0; i < al.n && !b->s; i++)
		if (!strcmp(al.v[i].kind, KIND) && *al.v[i].prefix) {
			const char *px = al.v[i].prefix;

			ab_buf_printf(b, "/* the archive's jemalloc has the symbol prefix '%s' */\n"
			    "#include <stddef.h>\n"
			    "void *%smalloc(size_t);\nvoid %sfree(void *);\n"
			    "#define malloc(n) %smalloc(n)\n#define free(p) %sfree(p)\n", px, px, px, px, px);
		}
	ab_allocators_release(&al);
	ab_buf_add(b, jemalloc_program, sizeof(jemalloc_program) - 1);
}

static const char *const archive_libs[] = {"-lpthread", "-ldl", "-lm", NULL};

/* probe --pid: the variable a jemalloc reads (MALLOC_CONF, or its prefix's): each pair against its version */
static int
pid_setting(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const char *var, const char *value,
    const char *label)
{
	struct ab_strv keys = {0}, values = {0};
	enum conf_status st;

	if (!a->conf_var || strcmp(a->conf_var, var))
		return 0;
	st = ab_probe_jemalloc_conf_split(value, &keys, &values);
	for (size_t i = 0; i < keys.n; i++) {
		const char *basis, *feature;
		enum ab_opt_answer ans = ab_allocopts_jemalloc(a->version, keys.v[i], &basis, &feature);
		char *msg = NULL;

		switch (ans) {
		case AB_OPT_READ:
			ab_probe_pid_setting(settings, var, keys.v[i], values.v[i], label, "read", NULL);
			break;
		case AB_OPT_NEEDS_FEATURE:
			msg = ab_sprintf("jemalloc %s reads '%s' only when built with --enable-%s", basis, keys.v[i], feature);
			ab_probe_pid_setting(settings, var, keys.v[i], values.v[i], label, "read if built with it", msg);
			break;
		case AB_OPT_NOT_READ:
			msg = ab_sprintf("jemalloc %s has no option '%s': it reports \"Invalid conf pair: %s:%s\" and "
			    "ignores it", basis, keys.v[i], keys.v[i], values.v[i]);
			ab_probe_pid_setting(settings, var, keys.v[i], values.v[i], label, "invalid", msg);
			ab_probe_pid_problem(rec, "invalid-setting", "%s: %s", var, msg);
			break;
		case AB_OPT_UNKNOWN_VERSION:
			ab_probe_pid_setting(settings, var, keys.v[i], values.v[i], label, "unchecked",
			    "the jemalloc version is not known, so its options are not");
			break;
		}
		free(msg);
	}
	if (st == CONF_ENDS_WITH_KEY || st == CONF_ENDS_WITH_COMMA || st == CONF_MALFORMED) {
		static const char *const why[] = {"", "Conf string ends with key", "Conf string ends with comma",
		    "Malformed conf string"};

		ab_probe_pid_setting(settings, var, NULL, value, label, "invalid", why[st]);
		ab_probe_pid_problem(rec, "invalid-setting", "%s='%s': jemalloc says \"%s\"", var, value, why[st]);
	}
	ab_strv_free(&keys);
	ab_strv_free(&values);
	return 1;
}

/* its baked config.malloc_conf is the one the variant's probe found */
static int
same_build(const struct ab_allocator *a, const cJSON *probe)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(probe, "config");
	const char *baked = ab_json_str(cfg, "malloc_conf");

	return !a->baked_conf || (baked && !strcmp(a->baked_conf, baked));
}

static void
print(FILE *f, const cJSON *al)
{
	const char *baked = ab_json_str(al, "baked_conf"), *var = ab_json_str(al, "conf_var");

	fprintf(f, ", reads %s, config.malloc_conf %s%s%s", var ? var : "?", baked ? "\"" : "", baked ? baked : "unknown",
	    baked ? "\"" : "");
}

const struct ab_probe_ops ab_probe_jemalloc_ops = {
	.run = run,
	.scan_problems = scan_problems,
	.archive_program = archive_program,
	.archive_libs = archive_libs,
	.pid_setting = pid_setting,
	.same_build = same_build,
	.print = print,
};
