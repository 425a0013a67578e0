/*
 * probe_glibc: glibc's malloc, the allocator of every program that holds no
 * other (docs/probes.md, "glibc"). Its settings are the glibc.malloc
 * tunables of GLIBC_TUNABLES and their older variables (MALLOC_ARENA_MAX,
 * MALLOC_TOP_PAD_ ...). What glibc took is what the program's own loader
 * reports with the same environment:
 *
 *   /lib64/ld-linux-x86-64.so.2 --list-tunables
 *   glibc.malloc.arena_max: 0x2 (min: 0x1, max: 0xffffffffffffffff)
 *   glibc.malloc.perturb: 0 (min: 0, max: 255)
 *
 * (glibc 2.33 and later; a value out of its range is ignored and the
 * default shown). The version is the one of the C library the program
 * resolves (`ld.so --list PROGRAM`), from its banner.
 */
#include "probe_impl.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/elffile.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../../lib/which.h"
#include "../alloc/allocopts.h"

#define KIND (ab_probe_kind_of(&ab_probe_glibc_ops)->name)
#define TUNABLE_PREFIX "glibc.malloc."

int
ab_probe_glibc_parse(cJSON *rec, const char *out)
{
	cJSON *eff = cJSON_CreateObject();
	int n = 0;

	for (const char *l = out ? out : ""; *l;) {
		size_t len = strcspn(l, "\n"), colon = strcspn(l, ":");

		if (colon < len && !strncmp(l, TUNABLE_PREFIX, sizeof(TUNABLE_PREFIX) - 1) && l[colon + 1] == ' ') {
			char *name = ab_strndup(l, colon), *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(l + colon + 2, &end, 0);
			if (!errno && end > l + colon + 2) {
				char num[32];

				snprintf(num, sizeof(num), "%llu", v);
				cJSON_DeleteItemFromObjectCaseSensitive(eff, name);
				cJSON_AddStringToObject(eff, name, num);
				n++;
			}
			free(name);
		}
		l += len;
		if (*l)
			l++;
	}
	cJSON_AddItemToObject(rec, "effective", eff);
	return n > 0;
}

/* the program's loader (its PT_INTERP, as .interp), or NULL: static, or not ELF */
static char *
loader_of(const char *prog)
{
	struct ab_elf *e;
	const struct ab_elf_section *s;
	const unsigned char *d;
	char *interp = NULL;

	ab_report_mute();
	if (prog && ab_elf_open(&e, prog) == 0) {
		if ((s = ab_elf_section(e, ".interp")) && (d = ab_elf_section_data(e, s)) && s->size > 1)
			interp = ab_strndup((const char *)d, strnlen((const char *)d, (size_t)s->size));
		ab_elf_close(e);
	}
	ab_report_unmute();
	return interp;
}

/* the C library in `ld.so --list` output: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" */
static char *
libc_in(const char *out)
{
	const char *p = out ? strstr(out, "libc.so") : NULL, *arrow, *end;

	if (!p || !(arrow = strstr(p, "=> ")))
		return NULL;
	arrow += 3;
	end = arrow + strcspn(arrow, " \n");
	return end > arrow ? ab_strndup(arrow, (size_t)(end - arrow)) : NULL;
}

/* the loader run with the request's environment: --list-tunables, or --list PROGRAM */
static int
ask_loader(struct ab_probe_run *r, const struct ab_probe_req *req, const char *loader, const char *what,
    const char *prog)
{
	char *argv[4] = {(char *)loader, (char *)what, (char *)prog, NULL};

	return ab_probe_run(r, req, argv, NULL, NULL);
}

/* the version of the C library the program resolves; allocbuild's own when it cannot be asked */
static void
add_version(cJSON *rec, const struct ab_probe_req *req, const char *loader, const char *prog)
{
	struct ab_allocators g = {0};
	struct ab_probe_run r;
	char *libc = NULL;
	Dl_info info;

	ab_report_mute();
	if (loader && ask_loader(&r, req, loader, "--list", prog) == 0) {
		libc = libc_in(r.out.s);
		ab_probe_run_release(&r);
	}
	ab_report_unmute();
	/* else allocbuild's own, found by a function of its own that no sanitizer intercepts */
	if (!libc && dladdr((void *)gnu_get_libc_version, &info) && info.dli_fname)
		libc = ab_strdup(info.dli_fname);
	ab_allocscan_add_glibc(&g, libc);
	if (g.v[0].version) {
		cJSON_AddStringToObject(rec, "version", g.v[0].version);
		cJSON_AddStringToObject(rec, "version_from", g.v[0].version_from);
	}
	if (libc)
		cJSON_AddStringToObject(rec, "libc", libc);
	ab_allocators_release(&g);
	free(libc);
}

/* one requested tunable (by its name or its variable) against what the loader reported */
static void
check_one(cJSON *rec, cJSON *overrides, const char *setting, const char *name, const char *want)
{
	const char *version = ab_json_str(rec, "version"), *basis, *got;
	const struct ab_alloc_option *o;
	unsigned long long a;
	char *end;

	if (ab_allocopts_lookup(ab_glibc_releases, version, name, &basis, &o) == AB_OPT_NOT_READ) {
		ab_probe_add_problem(rec, "unknown_option", setting, "runtime",
		    "unknown tunable %s: glibc %s has no %s (it silently ignores it)", name, basis, name);
		ab_probe_add_override(overrides, setting, name, "runtime", want, NULL, "unknown");
		return;
	}
	if (o)
		name = o->name;
	got = ab_json_str(cJSON_GetObjectItemCaseSensitive(rec, "effective"), name);
	errno = 0;
	a = strtoull(want, &end, 0);
	if (got && !errno && end > want && !*end && a == strtoull(got, NULL, 10)) {
		ab_probe_add_override(overrides, setting, name, "runtime", want, got, "ok");
		return;
	}
	ab_probe_add_problem(rec, "override_mismatch", setting, "runtime",
	    "runtime setting %s=%s did not take effect: %s is %s", setting, want, name, got ? got : "not reported");
	ab_probe_add_override(overrides, setting, name, "runtime", want, got, "mismatch");
}

/* every requested setting: glibc's checked, the other allocators' ignored */
static void
check(cJSON *rec, const struct ab_probe_req *req)
{
	const struct ab_allockind *self = ab_probe_kind_of(&ab_probe_glibc_ops);
	cJSON *overrides = cJSON_AddArrayToObject(rec, "overrides");

	for (size_t i = 0; i < req->env.n; i++) {
		const char *k = req->env.v[i].key, *v = req->env.v[i].value ? req->env.v[i].value : "";

		if (!strcmp(k, "GLIBC_TUNABLES")) {
			for (const char *p = v; *p;) {
				size_t n = strcspn(p, ":"), e = strcspn(p, "=");

				if (e < n && !strncmp(p, TUNABLE_PREFIX, sizeof(TUNABLE_PREFIX) - 1)) {
					char *name = ab_strndup(p, e), *want = ab_strndup(p + e + 1, n - e - 1);

					check_one(rec, overrides, name, name, want);
					free(name);
					free(want);
				}
				p += n;
				if (*p)
					p++;
			}
		} else if (ab_allockind_reads(self, k)) {
			check_one(rec, overrides, k, k, v);
		} else if (ab_env_is_allocator_var(k) && strcmp(k, "LD_PRELOAD")) {
			ab_probe_add_problem(rec, "ignored", k, "runtime", "%s has no effect: the program allocates with "
			    "glibc's malloc", k);
		}
	}
}

static int
run(cJSON **out, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc)
{
	char *prog = ab_proc_which(argv[0], NULL), *loader = loader_of(prog);
	struct ab_probe_run r, t;
	cJSON *rec;
	int error = -1;

	*out = NULL;
	if (ab_probe_run(&r, req, argv, NULL, NULL) < 0)
		goto done;
	if (!req->allocator && (r.res.timed_out || r.res.signal)) {
		/* detecting: a program that did not run to its end said nothing of its allocator */
		rec = ab_probe_new_record(req, NULL, 1);
		ab_probe_no_statistics(rec, ab_probe_detectable(), argv, &r);
		goto record;
	}
	rec = ab_probe_new_record(req, KIND, !req->allocator);
	add_version(rec, req, loader, prog);
	if (sc->replacing)
		ab_probe_add_problem(rec, "other_allocator", NULL, NULL, "'%s' holds %s %s: glibc's malloc is not its "
		    "allocator", argv[0], sc->al.v[0].kind, sc->al.v[0].file);
	if (loader && ask_loader(&t, req, loader, "--list-tunables", NULL) == 0) {
		if (!ab_probe_glibc_parse(rec, t.out.s))
			ab_probe_add_problem(rec, "no_statistics", NULL, NULL, "the loader '%s' listed no glibc.malloc "
			    "tunables (--list-tunables needs glibc 2.33)", loader);
		cJSON_AddItemToObject(rec, "tunables_run", t.json);
		t.json = NULL;
		ab_probe_run_release(&t);
	} else {
		cJSON_AddItemToObject(rec, "effective", cJSON_CreateObject());
	}
	check(rec, req);
record:
	ab_probe_add_run(rec, &r);
	ab_probe_run_release(&r);
	*out = rec;
	error = 0;
done:
	free(prog);
	free(loader);
	return error;
}

/* probe --pid: a glibc variable, or the glibc.malloc tunables of GLIBC_TUNABLES */
static int
pid_setting(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const char *var, const char *value,
    const char *label)
{
	if (!ab_allockind_reads(ab_probe_kind_of(&ab_probe_glibc_ops), var))
		return 0;
	if (strcmp(var, "GLIBC_TUNABLES")) {
		ab_probe_pid_option(rec, settings, a, ab_glibc_releases, "tunable", var, var, value, label, 1);
		return 1;
	}
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ":"), e = strcspn(p, "=");
		char *name = ab_strndup(p, e < n ? e : n), *v = e < n ? ab_strndup(p + e + 1, n - e - 1) : ab_strdup("");

		/* the other tunables (glibc.cpu ...) are the C library's, recorded */
		if (!strncmp(name, TUNABLE_PREFIX, sizeof(TUNABLE_PREFIX) - 1))
			ab_probe_pid_option(rec, settings, a, ab_glibc_releases, "tunable", var, name, v, label, 1);
		else
			ab_probe_pid_setting(settings, var, name, v, NULL, "recorded", NULL);
		free(name);
		free(v);
		p += n;
		if (*p)
			p++;
	}
	return 1;
}

const struct ab_probe_ops ab_probe_glibc_ops = {
	.run = run,
	.pid_setting = pid_setting,
};
