/*
 * probe_tcmalloc: gperftools' tcmalloc (docs/probes.md, "tcmalloc"). Its
 * settings are TCMALLOC_* variables, read once at start; it prints nothing
 * of them, so the probe asks it through its MallocExtension C API
 * (MallocExtension_GetNumericProperty) at the program's exit and prints
 *
 *   allocbuild-probe: tcmalloc version=gperftools 2.10
 *   allocbuild-probe: tcmalloc tcmalloc.max_total_thread_cache_bytes=33554432
 *
 * on stderr: a program that holds a shared libtcmalloc gets a small helper
 * preloaded (compiled here, found by dlsym); the probe program of an
 * archive calls the API itself. A setting that no property shows
 * (TCMALLOC_RELEASE_RATE, TCMALLOC_SAMPLE_PARAMETER) is checked against its
 * version's variables only, with the status "read".
 */
#include "probe_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/atomic.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../alloc/allocopts.h"

#define KIND (ab_probe_kind_of(&ab_probe_tcmalloc_ops)->name)
#define MARK "allocbuild-probe: tcmalloc "

/* the variables whose value a numeric property shows */
static const struct {
	const char *var, *property;
	int boolean; /* read as gperftools' StringToBool: the first character one of tTyY1 */
} shown[] = {
	{"TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES", "tcmalloc.max_total_thread_cache_bytes", 0},
	{"TCMALLOC_AGGRESSIVE_DECOMMIT", "tcmalloc.aggressive_memory_decommit", 1},
	{"TCMALLOC_HEAP_LIMIT_MB", "tcmalloc.heap_limit_mb", 0},
};

/* the report, as the helper and the archive's program both print it (GET: how the API is reached) */
#define REPORT_BODY \
    "\tstatic const char *const props[] = {\"tcmalloc.max_total_thread_cache_bytes\",\n" \
    "\t\t\"tcmalloc.aggressive_memory_decommit\", \"tcmalloc.heap_limit_mb\",\n" \
    "\t\t\"generic.current_allocated_bytes\", \"generic.heap_size\"};\n" \
    "\tsize_t v;\n" \
    "\n" \
    "\tif (!get)\n" \
    "\t\treturn;\n" \
    "\tif (ver)\n" \
    "\t\tfprintf(stderr, \"" MARK "version=%s\\n\", ver(NULL, NULL, NULL));\n" \
    "\tfor (unsigned i = 0; i < sizeof(props) / sizeof(props[0]); i++)\n" \
    "\t\tif (get(props[i], &v))\n" \
    "\t\t\tfprintf(stderr, \"" MARK "%s=%zu\\n\", props[i], v);\n"

static const char helper_program[] =
    "/* written by allocbuild: preloaded, reports tcmalloc's properties at exit */\n"
    "#define _GNU_SOURCE\n"
    "#include <dlfcn.h>\n"
    "#include <stddef.h>\n"
    "#include <stdio.h>\n"
    "\n"
    "__attribute__((destructor)) static void\n"
    "report(void)\n"
    "{\n"
    "\tint (*get)(const char *, size_t *) = (int (*)(const char *, size_t *))dlsym(RTLD_DEFAULT,\n"
    "\t    \"MallocExtension_GetNumericProperty\");\n"
    "\tconst char *(*ver)(int *, int *, const char **) = (const char *(*)(int *, int *, const char **))dlsym(\n"
    "\t    RTLD_DEFAULT, \"tc_version\");\n"
    REPORT_BODY
    "}\n";

static const char archive_source[] =
    "/* written by allocbuild: let tcmalloc start up, report its properties */\n"
    "#include <stddef.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "extern int MallocExtension_GetNumericProperty(const char *property, size_t *value);\n"
    "extern const char *tc_version(int *major, int *minor, const char **patch);\n"
    "\n"
    "int\n"
    "main(void)\n"
    "{\n"
    "\tint (*get)(const char *, size_t *) = MallocExtension_GetNumericProperty;\n"
    "\tconst char *(*ver)(int *, int *, const char **) = tc_version;\n"
    "\tstatic const size_t sizes[] = {8, 100, 5000, 1 << 20};\n"
    "\tvoid *volatile p[4];\n"
    "\n"
    "\tfor (int i = 0; i < 4; i++)\n"
    "\t\tp[i] = malloc(sizes[i]);\n"
    "\tfor (int i = 0; i < 4; i++)\n"
    "\t\tfree(p[i]);\n"
    "\t{\n"
    REPORT_BODY
    "\t}\n"
    "\treturn 0;\n"
    "}\n";

int
ab_probe_tcmalloc_parse(cJSON *rec, const char *err)
{
	cJSON *eff = cJSON_CreateObject();
	int found = 0;

	for (const char *l = err ? err : ""; *l;) {
		size_t len = strcspn(l, "\n");

		if (len > sizeof(MARK) - 1 && !strncmp(l, MARK, sizeof(MARK) - 1)) {
			const char *kv = l + sizeof(MARK) - 1;
			size_t k = strcspn(kv, "=");

			if (k < len - (sizeof(MARK) - 1)) {
				char *key = ab_strndup(kv, k), *v = ab_strndup(kv + k + 1, len - (sizeof(MARK) - 1) - k - 1);

				if (!strcmp(key, "version") && !cJSON_HasObjectItem(rec, "version")) {
					const char *num = strncmp(v, "gperftools ", 11) ? v : v + 11;

					cJSON_AddStringToObject(rec, "version", num);
					cJSON_AddStringToObject(rec, "version_from", "tc_version()");
				} else if (strcmp(key, "version")) {
					cJSON_DeleteItemFromObjectCaseSensitive(eff, key);
					cJSON_AddStringToObject(eff, key, v);
				}
				found = 1;
				free(key);
				free(v);
			}
		}
		l += len;
		if (*l)
			l++;
	}
	cJSON_AddItemToObject(rec, "effective", eff);
	return found;
}

/* each requested TCMALLOC_* variable against its version's variables and the properties shown */
static void
check(cJSON *rec, const struct ab_kvlist *env)
{
	const struct ab_allockind *self = ab_probe_kind_of(&ab_probe_tcmalloc_ops);
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effective");
	const char *version = ab_json_str(rec, "version"), *basis;
	cJSON *overrides = cJSON_AddArrayToObject(rec, "overrides");

	for (size_t i = 0; i < env->n; i++) {
		const char *var = env->v[i].key, *want = env->v[i].value ? env->v[i].value : "", *prop = NULL, *got;
		int boolean = 0;
		char expect[32];

		if (!ab_allockind_reads(self, var))
			continue;
		if (ab_allocopts_lookup(ab_tcmalloc_releases, version, var, &basis, NULL) == AB_OPT_NOT_READ) {
			ab_probe_add_problem(rec, "unknown_option", var, "runtime",
			    "unknown variable %s: tcmalloc %s does not read it (it silently ignores it)", var, basis);
			ab_probe_add_override(overrides, var, NULL, "runtime", want, NULL, "unknown");
			continue;
		}
		for (size_t s = 0; s < AB_NELEM(shown); s++)
			if (!strcmp(shown[s].var, var)) {
				prop = shown[s].property;
				boolean = shown[s].boolean;
			}
		if (!prop) {
			ab_probe_add_override(overrides, var, NULL, "runtime", want, NULL, "read");
			continue;
		}
		got = ab_json_str(eff, prop);
		if (boolean)
			snprintf(expect, sizeof(expect), "%d", strchr("tTyY1", *want) != NULL);
		else
			snprintf(expect, sizeof(expect), "%llu", strtoull(want, NULL, 10));
		if (got && !strcmp(got, expect)) {
			ab_probe_add_override(overrides, var, prop, "runtime", want, got, "ok");
			continue;
		}
		ab_probe_add_problem(rec, "override_mismatch", var, "runtime",
		    "runtime setting %s=%s did not take effect: %s is %s", var, want, prop, got ? got : "not reported");
		ab_probe_add_override(overrides, var, prop, "runtime", want, got, "mismatch");
	}
}

/* the preloaded helper, compiled into dir; its path, or NULL (reported) */
static char *
helper(const struct ab_probe_req *req, const char *dir)
{
	char *src = ab_path_join(dir, "tcprobe.c"), *so = ab_path_join(dir, "tcprobe.so");
	char *argv[] = {(char *)(req->cc ? req->cc : "cc"), "-shared", "-fPIC", "-o", so, src, "-ldl", NULL};
	struct ab_env env = {0};
	struct ab_buf out = {0};
	struct ab_proc p = {0};
	struct ab_proc_result res;
	int ok;

	ab_env_scrubbed(&env);
	p.argv = argv;
	p.envp = ab_env_envp(&env);
	p.out = &out;
	p.err = &out;
	ok = ab_write_file_atomic(src, helper_program, sizeof(helper_program) - 1) == 0 && ab_proc_run(&res, &p) == 0 &&
	    res.exit_code == 0;
	if (!ok)
		ab_error("probe: cannot compile tcmalloc's report helper '%s':\n%s", so, out.s ? out.s : "");
	ab_env_release(&env);
	ab_buf_free(&out);
	free(src);
	if (!ok) {
		free(so);
		return NULL;
	}
	return so;
}

/* run argv, a shared tcmalloc asked through the preloaded helper */
static int
run_reporting(struct ab_probe_run *r, const struct ab_probe_req *req, char *const *argv, int shared)
{
	const char *t = getenv("TMPDIR"), *preload = ab_probe_kv_get(&req->env, "LD_PRELOAD");
	char *dir = ab_sprintf("%s/allocbuild-tcprobe-XXXXXX", t && *t ? t : "/tmp"), *so = NULL, *pre = NULL;
	int error = -1;

	if (!shared || req->sandbox)
		return ab_probe_run(r, req, argv, NULL, NULL);
	if (!mkdtemp(dir)) {
		ab_error_errno("probe: cannot create a directory '%s'", dir);
		free(dir);
		return -1;
	}
	if ((so = helper(req, dir))) {
		pre = preload && *preload ? ab_sprintf("%s:%s", preload, so) : ab_strdup(so);
		error = ab_probe_run(r, req, argv, "LD_PRELOAD", pre);
	}
	ab_rm_rf(dir);
	free(dir);
	free(so);
	free(pre);
	return error;
}

static int
run(cJSON **out, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc)
{
	const struct ab_allocator *tc = ab_probe_scan_first(sc, ab_probe_kind_of(&ab_probe_tcmalloc_ops));
	struct ab_probe_run r;
	cJSON *rec;

	*out = NULL;
	if (run_reporting(&r, req, argv, !tc || tc->shared) < 0)
		return -1;
	rec = ab_probe_new_record(req, KIND, !req->allocator);
	if (!ab_probe_tcmalloc_parse(rec, r.err.s) && !req->allocator && !tc) {
		cJSON_Delete(rec);
		ab_probe_run_release(&r);
		return 0; /* not tcmalloc */
	}
	ab_probe_complete_from_scan(rec, tc);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "effective")) == 0) {
		ab_probe_no_statistics(rec, KIND, argv, &r);
		if (!tc)
			ab_probe_asked_for(rec, KIND);
	}
	check(rec, &req->env);
	ab_probe_add_run(rec, &r);
	ab_probe_run_release(&r);
	*out = rec;
	return 0;
}

static void
archive_program(struct ab_buf *b, const char *archive)
{
	(void)archive;
	ab_buf_add(b, archive_source, sizeof(archive_source) - 1);
}

/* gperftools is C++: its runtime, and the threads it starts */
static const char *const archive_libs[] = {"-lstdc++", "-lpthread", "-lm", NULL};

/* probe --pid: a TCMALLOC_* variable against its version's variables */
static int
pid_setting(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const char *var, const char *value,
    const char *label)
{
	if (!ab_allockind_reads(ab_probe_kind_of(&ab_probe_tcmalloc_ops), var))
		return 0;
	ab_probe_pid_option(rec, settings, a, ab_tcmalloc_releases, "variable", var, var, value, label, 0);
	return 1;
}

const struct ab_probe_ops ab_probe_tcmalloc_ops = {
	.run = run,
	.archive_program = archive_program,
	.archive_libs = archive_libs,
	.pid_setting = pid_setting,
};
