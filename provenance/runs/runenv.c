#include "runenv.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

/* a small kernel file's text, white space trimmed at both ends; NULL (its path in absent) when unreadable */
static char *
read_small(cJSON *absent, const char *path)
{
	struct ab_buf b = {0};
	char *s, *e, *out = NULL;
	int rc;

	/* absent or unreadable is a finding of the record, not an error */
	ab_report_mute();
	rc = ab_read_file_max(&b, path, 65536);
	ab_report_unmute();
	if (rc < 0 || !b.s) {
		if (rc < 0)
			cJSON_AddItemToArray(absent, cJSON_CreateString(path));
		else
			out = ab_strdup("");
		ab_buf_free(&b);
		return out;
	}
	for (s = b.s; isspace((unsigned char)*s); s++)
		;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	out = ab_strndup(s, (size_t)(e - s));
	ab_buf_free(&b);
	return out;
}

/* ab_json_add_str_or_null, taking v */
static void
add_owned(cJSON *o, const char *key, char *v)
{
	ab_json_add_str_or_null(o, key, v);
	free(v);
}

/* a file's text as a member */
static void
add_file(cJSON *o, cJSON *absent, const char *key, const char *path)
{
	add_owned(o, key, read_small(absent, path));
}

/* the selected mode of a sysfs choice file, "always [madvise] never" -> "madvise" */
static void
add_choice(cJSON *o, cJSON *absent, const char *key, const char *path)
{
	char *s = read_small(absent, path), *l, *r;

	if (s && (l = strchr(s, '[')) && (r = strchr(l, ']'))) {
		char *v = ab_strndup(l + 1, (size_t)(r - l - 1));

		free(s);
		s = v;
	}
	add_owned(o, key, s);
}

/* a number of a file of "Name: value" lines (/proc/meminfo) or "name value" lines (/proc/vmstat) */
static void
add_field(cJSON *o, const char *key, const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = text; s && *s;) {
		if (!strncmp(s, name, n) && (s[n] == ':' || s[n] == ' ')) {
			cJSON_AddNumberToObject(o, key, strtod(s + n + 1, NULL));
			return;
		}
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	cJSON_AddNullToObject(o, key);
}

/* "0-3,8" for a CPU set */
static char *
cpu_list(const cpu_set_t *set)
{
	struct ab_buf b = {0};

	for (int i = 0; i < CPU_SETSIZE; i++) {
		int j = i;

		if (!CPU_ISSET(i, set))
			continue;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
			j++;
		ab_buf_printf(&b, "%s%d", b.len ? "," : "", i);
		if (j > i)
			ab_buf_printf(&b, "-%d", j);
		i = j;
	}
	return b.s ? ab_buf_detach(&b) : ab_strdup("");
}

static void
add_cpus(cJSON *env, cJSON *absent)
{
	cJSON *cpu = cJSON_AddObjectToObject(env, "cpu");
	char *info = read_small(absent, "/proc/cpuinfo"), *model = NULL;
	cpu_set_t set;

	for (const char *s = info; s && *s;) {
		if (!strncmp(s, "model name", 10) && strchr(s, ':') && strchr(s, ':') < strchr(s, '\n')) {
			const char *v = strchr(s, ':') + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			model = ab_strndup(v, strcspn(v, "\n"));
			break;
		}
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	free(info);
	add_owned(cpu, "model", model);
	add_file(cpu, absent, "online", "/sys/devices/system/cpu/online");
	cJSON_AddNumberToObject(cpu, "online_count", (double)sysconf(_SC_NPROCESSORS_ONLN));
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		add_owned(cpu, "affinity", cpu_list(&set));
		cJSON_AddNumberToObject(cpu, "affinity_count", CPU_COUNT(&set));
	} else {
		cJSON_AddNullToObject(cpu, "affinity");
		cJSON_AddNullToObject(cpu, "affinity_count");
	}
	/* the governors of the CPUs this process may run on, each distinct one once */
	{
		struct ab_strv govs = {0};
		int any = 0;

		for (int i = 0; i < CPU_SETSIZE; i++) {
			char path[96], *g;
			cJSON *quiet;

			if (!CPU_ISSET(i, &set))
				continue;
			quiet = cJSON_CreateArray();
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", i);
			g = read_small(quiet, path);
			cJSON_Delete(quiet);
			if (!g)
				continue;
			any = 1;
			if (!ab_strv_has(&govs, g))
				ab_strv_push(&govs, g);
			free(g);
		}
		if (any) {
			struct ab_buf b = {0};

			for (size_t i = 0; i < govs.n; i++)
				ab_buf_printf(&b, "%s%s", i ? "," : "", govs.v[i]);
			cJSON_AddStringToObject(cpu, "governor", b.s);
			ab_buf_free(&b);
		} else {
			cJSON_AddNullToObject(cpu, "governor");
			cJSON_AddItemToArray(absent, cJSON_CreateString("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"));
		}
		ab_strv_free(&govs);
	}
	add_file(cpu, absent, "boost", "/sys/devices/system/cpu/cpufreq/boost");
	add_file(cpu, absent, "no_turbo", "/sys/devices/system/cpu/intel_pstate/no_turbo");
}

static void
add_memory(cJSON *env, cJSON *absent)
{
	cJSON *mem = cJSON_AddObjectToObject(env, "memory");
	char *info = read_small(absent, "/proc/meminfo");

	cJSON_AddNumberToObject(mem, "page_size", (double)sysconf(_SC_PAGESIZE));
	add_field(mem, "hugepage_size_kb", info, "Hugepagesize");
	add_field(mem, "mem_total_kb", info, "MemTotal");
	add_field(mem, "swap_total_kb", info, "SwapTotal");
	free(info);
	add_choice(mem, absent, "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	add_choice(mem, absent, "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	add_file(mem, absent, "overcommit_memory", "/proc/sys/vm/overcommit_memory");
	add_file(mem, absent, "swappiness", "/proc/sys/vm/swappiness");
}

/* the swap counters now: {pswpin, pswpout}, pages since boot, host-wide */
static cJSON *
swap_counters(cJSON *absent)
{
	cJSON *o = cJSON_CreateObject();
	char *vm = read_small(absent, "/proc/vmstat");

	add_field(o, "pswpin", vm, "pswpin");
	add_field(o, "pswpout", vm, "pswpout");
	free(vm);
	return o;
}

/* the cgroup v2 limits of this process's cgroup ("0::/path" in /proc/self/cgroup) */
static void
add_cgroup(cJSON *env, cJSON *absent)
{
	static const char *const files[] = {"memory.max", "memory.high", "memory.swap.max", "cpu.max"};
	cJSON *cg = cJSON_AddObjectToObject(env, "cgroup");
	char *self = read_small(absent, "/proc/self/cgroup"), *path = NULL;

	for (const char *s = self; s && *s;) {
		if (!strncmp(s, "0::", 3)) {
			path = ab_strndup(s + 3, strcspn(s + 3, "\n"));
			break;
		}
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	free(self);
	if (path)
		cJSON_AddStringToObject(cg, "path", path);
	else
		cJSON_AddNullToObject(cg, "path");
	for (size_t i = 0; i < AB_NELEM(files); i++) {
		char *f;

		if (!path) {
			cJSON_AddNullToObject(cg, files[i]);
			continue;
		}
		f = ab_sprintf("/sys/fs/cgroup%s%s%s", path, strcmp(path, "/") ? "/" : "", files[i]);
		add_file(cg, absent, files[i], f);
		free(f);
	}
	free(path);
}

static void
add_numa(cJSON *env, cJSON *absent)
{
	cJSON *numa = cJSON_AddObjectToObject(env, "numa");
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *de;
	int n = 0;

	if (d) {
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]))
				n++;
		closedir(d);
		cJSON_AddNumberToObject(numa, "nodes", n);
	} else {
		cJSON_AddNullToObject(numa, "nodes");
		cJSON_AddItemToArray(absent, cJSON_CreateString("/sys/devices/system/node"));
	}
	add_file(numa, absent, "balancing", "/proc/sys/kernel/numa_balancing");
}

cJSON *
ab_runenv_capture(void)
{
	cJSON *env = cJSON_CreateObject(), *absent = cJSON_CreateArray(), *swap;
	struct utsname u;
	char *load;

	if (uname(&u) == 0) {
		cJSON_AddStringToObject(env, "kernel", u.release);
		cJSON_AddStringToObject(env, "machine", u.machine);
		/* the host the run ran on: compare never pools the runs of several hosts silently */
		cJSON_AddStringToObject(env, "host", u.nodename);
	} else {
		cJSON_AddNullToObject(env, "kernel");
		cJSON_AddNullToObject(env, "machine");
		cJSON_AddNullToObject(env, "host");
	}
	add_cpus(env, absent);
	add_memory(env, absent);
	swap = cJSON_AddObjectToObject(env, "swap");
	cJSON_AddItemToObject(swap, "before", swap_counters(absent));
	add_cgroup(env, absent);
	add_numa(env, absent);
	add_file(env, absent, "aslr", "/proc/sys/kernel/randomize_va_space");
	cJSON_AddStringToObject(env, "glibc", gnu_get_libc_version());
	load = read_small(absent, "/proc/loadavg");
	if (load) {
		double l[3] = {0};
		cJSON *a = cJSON_CreateArray();

		if (sscanf(load, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
			for (int i = 0; i < 3; i++)
				cJSON_AddItemToArray(a, cJSON_CreateNumber(l[i]));
		cJSON_AddItemToObject(env, "loadavg", a);
		free(load);
	} else {
		cJSON_AddNullToObject(env, "loadavg");
	}
	cJSON_AddItemToObject(env, "absent", absent);
	return env;
}

void
ab_runenv_finish(cJSON *env)
{
	cJSON *swap = ab_json_get(env, "swap"), *absent = ab_json_get(env, "absent"), *after;
	const cJSON *b, *a;

	if (!swap || !absent)
		return;
	after = swap_counters(absent);
	cJSON_AddItemToObject(swap, "after", after);
	b = ab_json_get(swap, "before");
	a = after;
	if (cJSON_IsNumber(ab_json_get(b, "pswpin")) && cJSON_IsNumber(ab_json_get(a, "pswpin")) &&
	    cJSON_IsNumber(ab_json_get(b, "pswpout")) && cJSON_IsNumber(ab_json_get(a, "pswpout")))
		cJSON_AddNumberToObject(swap, "activity",
		    ab_json_get(a, "pswpin")->valuedouble - ab_json_get(b, "pswpin")->valuedouble +
		    ab_json_get(a, "pswpout")->valuedouble - ab_json_get(b, "pswpout")->valuedouble);
	else
		cJSON_AddNullToObject(swap, "activity");
}

int
ab_runenv_cpulist_parse(cpu_set_t *set, const char *list)
{
	const char *s = list;

	CPU_ZERO(set);
	if (!*s)
		return -1;
	for (;;) {
		char *end;
		long a, b;

		if (*s < '0' || *s > '9')
			return -1;
		a = b = strtol(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (s[1] < '0' || s[1] > '9')
				return -1;
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		if (a < 0 || b < a || b >= CPU_SETSIZE)
			return -1;
		for (long i = a; i <= b; i++)
			CPU_SET((int)i, set);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

const char *const ab_runenv_compared[] = {
	"memory.thp_enabled", "memory.thp_defrag", "cpu.governor", "cpu.boost", "cpu.no_turbo", "cpu.affinity",
	"cgroup.memory.max", "cgroup.memory.high", "cgroup.memory.swap.max", "cgroup.cpu.max", "swap activity",
};
const size_t ab_runenv_ncompared = AB_NELEM(ab_runenv_compared);

const char *
ab_runenv_value(const cJSON *env, const char *key)
{
	const cJSON *v;

	if (!strcmp(key, "swap activity")) {
		v = ab_json_get(ab_json_get(env, "swap"), "activity");
		return cJSON_IsNumber(v) ? v->valuedouble > 0 ? "swapping" : "none" : "unknown";
	}
	if (!strncmp(key, "cgroup.", 7)) {
		v = ab_json_get(ab_json_get(env, "cgroup"), key + 7);
	} else {
		/* "memory.thp_enabled": the object "memory", its member "thp_enabled" (no allocation: compare asks per run) */
		const char *dot = strchr(key, '.');
		char top[32];

		snprintf(top, sizeof(top), "%.*s", (int)(dot - key), key);
		v = ab_json_get(ab_json_get(env, top), dot + 1);
	}
	return cJSON_IsString(v) ? v->valuestring : "absent";
}

static double
number_or_nan(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

void
ab_runenv_read_shown(struct ab_runenv_shown *s, const cJSON *env)
{
	const cJSON *cpu = ab_json_get(env, "cpu"), *mem = ab_json_get(env, "memory");

	s->kernel = ab_json_str(env, "kernel");
	s->cpu_model = ab_json_str(cpu, "model");
	s->cpu_affinity = ab_json_str(cpu, "affinity");
	s->cpu_online = ab_json_str(cpu, "online");
	s->governor = ab_json_str(cpu, "governor");
	s->thp_enabled = ab_json_str(mem, "thp_enabled");
	s->thp_defrag = ab_json_str(mem, "thp_defrag");
	s->cgroup_memory_max = ab_json_str(ab_json_get(env, "cgroup"), "memory.max");
	s->glibc = ab_json_str(env, "glibc");
	s->page_size = number_or_nan(ab_json_get(mem, "page_size"));
	s->swap_total_kb = number_or_nan(ab_json_get(mem, "swap_total_kb"));
}
