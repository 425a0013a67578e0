/*
 * probe_pid: what a running process really uses, read from /proc without
 * stopping, attaching to or signalling it (docs/probes.md, "Running
 * processes"): its executable and digest, every allocator in it (linked
 * into the executable, or a mapped shared object, preloaded or not), its
 * allocator environment checked against the options of the allocator
 * version found, its start time and host, and, against a build's
 * manifests, the variant it is.
 */
#include "probe.h"
#include "probe_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/proc.h"
#include "../../lib/util.h"
#include "../alloc/allocopts.h"
#include "../alloc/allocscan.h"
#include "../record/bundle.h"

#define PROC_MAX (16u << 20) /* the most read of one /proc file (environ, maps) */
#define PF_KTHREAD 0x00200000

/*
 * What one program image of the process is: an exec keeps the pid and the
 * start time but changes the executable (device and inode of
 * /proc/PID/exe) and, with ASLR, where its code and stack are
 * (/proc/PID/stat's startcode, endcode, startstack; 0 when another
 * user's). Taken before and after the reads: when they differ the reads
 * may mix two images, and the probe says so instead of "ok".
 */
struct image {
	dev_t dev;
	ino_t ino;
	unsigned long long code[3];
	char exe[PATH_MAX + 1];
};

struct proc {
	int pid;
	char dir[64];               /* /proc/PID */
	char *comm;
	unsigned long long start_ticks;
	unsigned long long code[3]; /* startcode, endcode, startstack (stat fields 26 to 28) */
	unsigned flags;
	uid_t uid;
	struct ab_strv env;         /* "K=V" of /proc/PID/environ */
	struct ab_strv cmdline;
	char *exe;                  /* the link's target */
	struct ab_strv maps;        /* executable ELF files mapped, each once, in order */
};

static void
proc_release(struct proc *p)
{
	free(p->comm);
	free(p->exe);
	ab_strv_free(&p->env);
	ab_strv_free(&p->cmdline);
	ab_strv_free(&p->maps);
}

/* ---- reading /proc ---- */

/* why a read of the process failed, as a sentence */
/* has the process ended (gone, or a zombie whose parent has not reaped it)? */
static int
ended(const struct proc *p)
{
	char path[96], buf[512];
	const char *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", p->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

static int
gone_or(const struct proc *p, const char *what, int err)
{
	if (err == ESRCH || ((err == ENOENT || err == EACCES) && ended(p))) {
		ab_error("probe: process %d exited while it was read", p->pid);
	} else if (err == EACCES || err == EPERM) {
		struct passwd *pw = getpwuid(p->uid);

		ab_error("probe: cannot read %s of process %d (user %s): %s; run as that user or as root", what, p->pid,
		    pw ? pw->pw_name : "?", strerror(err));
	} else {
		ab_error("probe: cannot read %s of process %d: %s", what, p->pid, strerror(err));
	}
	return AB_EFAIL;
}

/* a whole /proc file, at most PROC_MAX bytes; -1 with errno */
static int
read_proc(struct ab_buf *out, const struct proc *p, const char *name)
{
	char path[96];
	char buf[65536];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	ab_buf_clear(out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (out->len + (size_t)n > PROC_MAX) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
		ab_buf_add(out, buf, (size_t)n);
	}
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	if (!out->s)
		ab_buf_puts(out, "");
	return 0;
}

/* NUL-separated strings into v */
static void
split_nul(struct ab_strv *v, const struct ab_buf *b)
{
	for (size_t i = 0; i < b->len;) {
		size_t n = strnlen(b->s + i, b->len - i);

		if (n)
			ab_strv_push_owned(v, ab_strndup(b->s + i, n));
		i += n + 1;
	}
}

/* comm, flags and start time from /proc/PID/stat (comm may hold spaces and parentheses) */
static int
read_stat(struct proc *p)
{
	struct ab_buf b = {0};
	const char *open_paren, *close_paren, *f;
	int field = 3, error = AB_EFAIL;

	if (read_proc(&b, p, "stat") < 0) {
		error = gone_or(p, "the status", errno);
		goto done;
	}
	open_paren = strchr(b.s, '(');
	close_paren = strrchr(b.s, ')');
	if (!open_paren || !close_paren || close_paren < open_paren) {
		ab_error("probe: cannot parse '%s/stat'", p->dir);
		goto done;
	}
	p->comm = ab_strndup(open_paren + 1, (size_t)(close_paren - open_paren - 1));
	memset(p->code, 0, sizeof(p->code));
	for (f = close_paren + 2; *f && field <= 28; field++) {
		if (field == 9)
			p->flags = (unsigned)strtoul(f, NULL, 10);
		else if (field == 22)
			p->start_ticks = strtoull(f, NULL, 10);
		else if (field >= 26)
			p->code[field - 26] = strtoull(f, NULL, 10);
		f += strcspn(f, " ");
		if (*f == ' ')
			f++;
	}
	error = 0;
done:
	ab_buf_free(&b);
	return error;
}

/* the executable ELF files of /proc/PID/maps, each once */
static void
parse_maps(struct proc *p, const struct ab_buf *b)
{
	for (const char *l = b->s; l && *l;) {
		size_t n = strcspn(l, "\n");
		char perms[8] = "", path[PATH_MAX];
		int off = 0;

		if (sscanf(l, "%*s %7s %*s %*s %*s %n", perms, &off) >= 1 && off > 0 && (size_t)off < n &&
		    strchr(perms, 'x') && l[off] == '/' && n - (size_t)off < sizeof(path)) {
			int seen = 0;

			memcpy(path, l + off, n - (size_t)off);
			path[n - (size_t)off] = '\0';
			for (size_t i = 0; i < p->maps.n && !seen; i++)
				seen = !strcmp(p->maps.v[i], path);
			if (!seen)
				ab_strv_push(&p->maps, path);
		}
		l += n;
		if (*l)
			l++;
	}
}

/* the image the process runs now (struct image); its stat read just before */
static int
image_of(struct image *im, const struct proc *p)
{
	char link[96];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "%s/exe", p->dir);
	n = readlink(link, im->exe, sizeof(im->exe) - 1);
	if (n < 0 || stat(link, &st) < 0)
		return gone_or(p, "the executable", errno);
	im->exe[n] = '\0';
	im->dev = st.st_dev;
	im->ino = st.st_ino;
	memcpy(im->code, p->code, sizeof(im->code));
	return 0;
}

static int
same_image(const struct image *a, const struct image *b)
{
	return a->dev == b->dev && a->ino == b->ino && !memcmp(a->code, b->code, sizeof(a->code));
}

static int
read_process(struct proc *p, struct image *im, int pid)
{
	struct ab_buf b = {0};
	struct stat st;
	char link[96], target[PATH_MAX + 1];
	ssize_t n;
	int error = AB_EFAIL;

	p->pid = pid;
	snprintf(p->dir, sizeof(p->dir), "/proc/%d", pid);
	if (pid <= 0 || stat(p->dir, &st) < 0) {
		ab_error("probe: no process %d", pid);
		return AB_EFAIL;
	}
	p->uid = st.st_uid;
	if (read_stat(p) < 0 || (!(p->flags & PF_KTHREAD) && image_of(im, p) < 0))
		return AB_EFAIL;
	/* a test hook: t5300 ends the process here, between two reads */
	ab_test_pause("ALLOCBUILD_TEST_PID_PAUSE");
	if (p->flags & PF_KTHREAD) {
		ab_error("probe: process %d (%s) is a kernel thread: it has no executable and no allocator", pid, p->comm);
		return AB_EFAIL;
	}
	snprintf(link, sizeof(link), "%s/exe", p->dir);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return gone_or(p, "the executable", errno);
	target[n] = '\0';
	p->exe = ab_strdup(target);
	if (read_proc(&b, p, "environ") < 0) {
		error = gone_or(p, "the environment", errno);
		goto done;
	}
	split_nul(&p->env, &b);
	if (read_proc(&b, p, "cmdline") < 0) {
		error = gone_or(p, "the command line", errno);
		goto done;
	}
	split_nul(&p->cmdline, &b);
	if (read_proc(&b, p, "maps") < 0) {
		error = gone_or(p, "the memory map", errno);
		goto done;
	}
	parse_maps(p, &b);
	error = 0;
done:
	ab_buf_free(&b);
	return error;
}

static const char *
env_get(const struct proc *p, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i < p->env.n; i++)
		if (!strncmp(p->env.v[i], key, k) && p->env.v[i][k] == '=')
			return p->env.v[i] + k + 1;
	return NULL;
}

/* ---- the host and times ---- */

static char *
first_line(const char *path)
{
	struct ab_buf b = {0};
	char *s = NULL;

	ab_report_mute();
	if (ab_read_file(&b, path) == 0 && b.s)
		s = ab_strndup(b.s, strcspn(b.s, "\n"));
	ab_report_unmute();
	ab_buf_free(&b);
	return s;
}

static cJSON *
host_json(void)
{
	cJSON *h = cJSON_CreateObject();
	struct utsname u;
	char name[256] = "";
	char *boot = first_line("/proc/sys/kernel/random/boot_id");

	gethostname(name, sizeof(name) - 1);
	cJSON_AddStringToObject(h, "hostname", name);
	if (boot)
		cJSON_AddStringToObject(h, "boot_id", boot);
	else
		cJSON_AddNullToObject(h, "boot_id");
	if (uname(&u) == 0) {
		cJSON_AddStringToObject(h, "kernel", u.release);
		cJSON_AddStringToObject(h, "machine", u.machine);
	}
	free(boot);
	return h;
}

/* the process's start as wall-clock time: boot time (btime of /proc/stat) plus its start ticks */
static int
start_time(char *buf, size_t len, const struct proc *p)
{
	struct ab_buf b = {0};
	const char *bt;
	long hz = sysconf(_SC_CLK_TCK);
	int ok = 0;

	ab_report_mute();
	if (hz > 0 && ab_read_file(&b, "/proc/stat") == 0 && (bt = strstr(b.s, "\nbtime ")) != NULL) {
		time_t boot = (time_t)strtoll(bt + 7, NULL, 10);

		ab_utc_time(buf, len, boot + (time_t)(p->start_ticks / (unsigned long long)hz));
		ok = 1;
	}
	ab_report_unmute();
	ab_buf_free(&b);
	return ok;
}

/* ---- allocators and settings ---- */

static int
is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5);
}

/* every allocator of the executable and of the mapped shared objects */
static int
find_allocators(struct ab_allocators *out, const struct proc *p, const char *exe_path)
{
	const char *libc = NULL;
	int replaced = 0;

	if (ab_allocscan_file(out, exe_path, 0) < 0)
		return AB_EFAIL;
	for (size_t i = 0; i < out->n; i++)
		free(out->v[i].file), out->v[i].file = ab_strdup(p->exe);
	for (size_t i = 0; i < p->maps.n; i++) {
		const char *m = p->maps.v[i];

		if (!strcmp(m, p->exe))
			continue;
		if (is_libc(m)) {
			libc = m;
			continue;
		}
		/* a library replaced or deleted since it was mapped cannot be read as it was */
		if (strstr(m, " (deleted)"))
			continue;
		ab_report_mute();
		(void)ab_allocscan_file(out, m, 1);
		ab_report_unmute();
	}
	for (size_t i = 0; i < out->n; i++)
		replaced |= out->v[i].replaces_malloc;
	/* glibc's malloc is the allocator only when nothing else is there */
	if (!replaced)
		ab_allocscan_add_glibc(out, libc);
	return 0;
}

void
ab_probe_pid_setting(cJSON *settings, const char *var, const char *setting, const char *value, const char *allocator,
    const char *status, const char *message)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddStringToObject(s, "variable", var);
	ab_json_add_str_or_null(s, "setting", setting);
	cJSON_AddStringToObject(s, "value", value);
	ab_json_add_str_or_null(s, "allocator", allocator);
	cJSON_AddStringToObject(s, "status", status);
	if (message)
		cJSON_AddStringToObject(s, "message", message);
	cJSON_AddItemToArray(settings, s);
}

void
ab_probe_pid_problem(cJSON *rec, const char *kind, const char *fmt, ...)
{
	cJSON *pr = cJSON_GetObjectItemCaseSensitive(rec, "problems"), *o = cJSON_CreateObject();
	struct ab_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, "message", b.s);
	cJSON_AddItemToArray(pr, o);
	ab_buf_free(&b);
}

void
ab_probe_pid_option(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const struct ab_alloc_release *releases,
    const char *noun, const char *var, const char *name, const char *value, const char *label, int record_name)
{
	const char *basis, *shown = record_name ? name : NULL;
	const struct ab_alloc_option *o = NULL;
	char *msg;

	switch (ab_allocopts_lookup(releases, a->version, name, &basis, &o)) {
	case AB_OPT_READ:
	case AB_OPT_NEEDS_FEATURE:
		ab_probe_pid_setting(settings, var, o ? o->name : name, value, label, "read", NULL);
		break;
	case AB_OPT_NOT_READ:
		msg = ab_sprintf("%s %s has no %s %s: it ignores it silently", a->kind, basis, noun, name);
		ab_probe_pid_setting(settings, var, shown, value, label, "ignored", msg);
		ab_probe_pid_problem(rec, "ignored-setting", "%s", msg);
		free(msg);
		break;
	case AB_OPT_UNKNOWN_VERSION:
		msg = ab_sprintf("the %s version is not known, so its %ss are not", a->kind, noun);
		ab_probe_pid_setting(settings, var, shown, value, label, "unchecked", msg);
		free(msg);
		break;
	}
}

/* a variable no allocator of the process reads */
static void
not_read(cJSON *rec, cJSON *settings, const struct ab_allocators *al, const char *k, const char *value)
{
	const struct ab_allocator *reader = NULL;
	char *msg;

	/* GLIBC_TUNABLES holds more than malloc's tunables: the process's C library reads it */
	if (!strcmp(k, "GLIBC_TUNABLES")) {
		ab_probe_pid_setting(settings, k, NULL, value, NULL, "recorded", NULL);
		return;
	}
	for (size_t a = 0; a < al->n && !reader; a++)
		if (al->v[a].conf_var)
			reader = &al->v[a];
	if (reader) {
		msg = ab_sprintf("%s has no effect on this process: its %s reads %s", k, reader->kind, reader->conf_var);
		ab_probe_pid_setting(settings, k, NULL, value, NULL, "ignored", msg);
		ab_probe_pid_problem(rec, "ignored-setting", "%s", msg);
		free(msg);
	} else {
		ab_probe_pid_setting(settings, k, NULL, value, NULL, "ignored", "no allocator in the process reads it");
		ab_probe_pid_problem(rec, "ignored-setting", "%s is set but no allocator in the process reads it", k);
	}
}

/* the allocator variables of the environment, each checked against who reads it */
static void
check_environment(cJSON *rec, const struct proc *p, const struct ab_allocators *al)
{
	cJSON *env = cJSON_AddObjectToObject(rec, "environment");
	cJSON *settings = cJSON_AddArrayToObject(rec, "settings");

	for (size_t i = 0; i < p->env.n; i++) {
		const char *kv = p->env.v[i], *eq = strchr(kv, '=');
		char *k;
		int read = 0;

		if (!eq)
			continue;
		k = ab_strndup(kv, (size_t)(eq - kv));
		if (!ab_env_is_allocator_var(k) && !ab_allockind_any_reads(k)) {
			free(k);
			continue;
		}
		cJSON_AddStringToObject(env, k, eq + 1);
		if (!strcmp(k, "LD_PRELOAD")) {
			ab_probe_pid_setting(settings, k, NULL, eq + 1, NULL, "recorded", NULL);
			free(k);
			continue;
		}
		for (size_t a = 0; a < al->n; a++) {
			const struct ab_allocator *x = &al->v[a];
			const struct ab_allockind *ak = ab_allockind_find(x->kind);
			char label[64];

			snprintf(label, sizeof(label), "%s%s%s", x->kind, x->version ? " " : "", x->version ? x->version : "");
			if (ak && ak->probe->pid_setting)
				read |= ak->probe->pid_setting(rec, settings, x, k, eq + 1, label);
		}
		if (!read)
			not_read(rec, settings, al, k, eq + 1);
		free(k);
	}
}

/* ---- the build this process came from ---- */

/* a manifest of an OUTDIR, or of a bundle verified once by the caller */
static int
load_manifest(cJSON **out, const char *against, int bundle, const char *rel)
{
	struct ab_buf b = {0};
	int error = AB_EFAIL;

	*out = NULL;
	if (!bundle) {
		char *path = ab_path_join(against, rel);

		error = ab_json_read(out, path);
		free(path);
		return error < 0 ? AB_EFAIL : 0;
	}
	if (ab_bundle_read(&b, against, rel, 64u << 20) != 0) {
		ab_error("probe: --against '%s': no %s in the bundle", against, rel);
		goto done;
	}
	*out = cJSON_ParseWithLength(b.s, b.len);
	if (!*out) {
		ab_error("probe: --against '%s': %s is not JSON", against, rel);
		goto done;
	}
	error = 0;
done:
	ab_buf_free(&b);
	return error;
}

/*
 * Does the process environment give exactly the variant's runtime
 * environment? Every variable the variant sets has its value, every one it
 * unsets is absent, and no other allocator variable is set (allocbuild env
 * and run remove them). *why: the first difference (caller frees).
 */
static int
env_matches(const struct proc *p, const cJSON *variant, char **why)
{
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(variant, "runtime");
	const cJSON *set = cJSON_GetObjectItemCaseSensitive(rt, "env"), *unset = cJSON_GetObjectItemCaseSensitive(rt, "unset");
	const cJSON *it;

	cJSON_ArrayForEach(it, set) {
		const char *have = env_get(p, it->string);

		if (!cJSON_IsString(it))
			continue;
		if (!have || strcmp(have, it->valuestring)) {
			*why = ab_sprintf("%s is %s%s%s, the variant sets '%s'", it->string, have ? "'" : "unset", have ? have : "",
			    have ? "'" : "", it->valuestring);
			return 0;
		}
	}
	cJSON_ArrayForEach(it, unset)
		if (cJSON_IsString(it) && env_get(p, it->valuestring)) {
			*why = ab_sprintf("%s is set, the variant unsets it", it->valuestring);
			return 0;
		}
	for (size_t i = 0; i < p->env.n; i++) {
		char *k = ab_strndup(p->env.v[i], strcspn(p->env.v[i], "="));
		int ok = !ab_env_is_allocator_var(k) || cJSON_GetObjectItemCaseSensitive(set, k);

		if (!ok)
			*why = ab_sprintf("%s is set, the variant does not set it", k);
		free(k);
		if (!ok)
			return 0;
	}
	return 1;
}

/* "a, b and c" of an array of strings, in a static buffer */
static const char *
join_labels(const cJSON *a)
{
	static char buf[1024];
	const cJSON *it;
	int i = 0, n = cJSON_GetArraySize(a);

	buf[0] = '\0';
	cJSON_ArrayForEach(it, a) {
		size_t l = strlen(buf);

		snprintf(buf + l, sizeof(buf) - l, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", it->valuestring);
		i++;
	}
	return buf;
}

static int
same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* the probe record of label in allocator-probes.json, or NULL */
static const cJSON *
probe_of(const cJSON *probes, const char *label)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(probes, "variants"))
		if (same_str(ab_json_str(v, "label"), label))
			return cJSON_GetObjectItemCaseSensitive(v, "probe");
	return NULL;
}

/*
 * Is the allocator that variant v's probe found the one a found in the
 * process? The kind, the version, and what the file says of the build (its
 * probe operations' same_build: jemalloc's baked config.malloc_conf,
 * mimalloc's secure level).
 */
static int
same_allocator(const struct ab_allocator *a, const cJSON *probe)
{
	const struct ab_allockind *k = ab_allockind_find(a->kind);

	if (!probe || !same_str(a->kind, ab_json_str(probe, "allocator")) || !same_str(a->version, ab_json_str(probe, "version")))
		return 0;
	return !k || !k->probe->same_build || k->probe->same_build(a, probe);
}

/*
 * The variants the process can be: those whose artifact is its executable
 * ("binary"); when none is, those whose allocator is one found in the
 * process ("allocator": a program of the user's own linked against the
 * variant's archive). Labels into out.
 */
static const char *
candidates(cJSON *out, const cJSON *bp, const cJSON *probes, const char *sha, const struct ab_allocators *al)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(bp, "variants")) {
		const cJSON *a;
		int same = 0;

		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(v, "artifacts"))
			same |= same_str(ab_json_str(a, "sha256"), sha);
		if (same && ab_json_str(v, "label"))
			cJSON_AddItemToArray(out, cJSON_CreateString(ab_json_str(v, "label")));
	}
	if (cJSON_GetArraySize(out))
		return "binary";
	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(bp, "variants")) {
		const char *label = ab_json_str(v, "label");
		const cJSON *probe = probe_of(probes, label);
		int same = 0;

		for (size_t i = 0; i < al->n && !same; i++)
			same = same_allocator(&al->v[i], probe);
		if (same)
			cJSON_AddItemToArray(out, cJSON_CreateString(label));
	}
	return cJSON_GetArraySize(out) ? "allocator" : NULL;
}

static const cJSON *
variant_of(const cJSON *bp, const char *label)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(bp, "variants"))
		if (same_str(ab_json_str(v, "label"), label))
			return v;
	return NULL;
}

/*
 * The recipe's "expect" of variant `label` (its definition in
 * build-commands.json), checked on the process with the build's own check
 * (ab_probe_check_expect): the version and secure level of the allocator
 * that replaces malloc, the options its environment sets.
 */
static void
check_recipe_expect(cJSON *rec, cJSON *m, const char *against, int bundle, const char *label,
    const struct ab_allocators *al)
{
	cJSON *cmds = NULL, *seen = cJSON_CreateObject(), *eff;
	const cJSON *v, *x = NULL, *it;
	const struct ab_allocator *a = NULL;
	struct ab_kvlist options = {0};
	struct ab_probe_expect want = {NULL, -1, &options};

	if (load_manifest(&cmds, against, bundle, "provenance/build-commands.json") < 0)
		cmds = NULL;
	cJSON_ArrayForEach(v, ab_json_get(cmds, "variants"))
		if (same_str(ab_json_str(v, "label"), label))
			x = ab_json_get(ab_json_get(v, "definition"), "expect");
	if (!cJSON_IsObject(x))
		goto done;
	cJSON_AddItemToObject(m, "expects", cJSON_Duplicate(x, 1));
	for (size_t i = 0; i < al->n && !a; i++)
		if (ab_allockind_find(al->v[i].kind) != ab_allockind_fallback())
			a = &al->v[i];
	if (a && a->version)
		cJSON_AddStringToObject(seen, "version", a->version);
	if (a && a->secure >= 0)
		cJSON_AddNumberToObject(seen, "secure", a->secure);
	eff = cJSON_AddObjectToObject(seen, "effective");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "settings"))
		if (ab_json_str(it, "setting") && ab_json_str(it, "value") && !ab_json_get(eff, ab_json_str(it, "setting")))
			cJSON_AddStringToObject(eff, ab_json_str(it, "setting"), ab_json_str(it, "value"));
	want.version = ab_json_str(x, "version");
	if (cJSON_IsNumber(ab_json_get(x, "secure")))
		want.secure = ab_json_get(x, "secure")->valueint;
	cJSON_ArrayForEach(it, ab_json_get(x, "options"))
		if (cJSON_IsString(it))
			ab_kvlist_add(&options, it->string, it->valuestring);
	ab_probe_check_expect(seen, &want);
	cJSON_ArrayForEach(it, ab_json_get(seen, "problems"))
		ab_probe_pid_problem(rec, "expect-mismatch", "variant '%s': %s", label, ab_json_str(it, "message") ? ab_json_str(it, "message") : "?");
done:
	ab_kvlist_free(&options);
	cJSON_Delete(seen);
	cJSON_Delete(cmds);
}

/*
 * Which variant of the build at `against` the process is: among the
 * candidates, the one whose runtime environment the process has. When
 * none has it, the one variant the candidates all share as base is named,
 * with the environment difference; the difference is a problem only for
 * --expect.
 */
static void
match_variant(cJSON *rec, const struct proc *p, const char *sha, const struct ab_allocators *al,
    const char *against, const char *expect)
{
	cJSON *bp = NULL, *probes = NULL, *m = cJSON_AddObjectToObject(rec, "match");
	cJSON *cands = cJSON_CreateArray(), *env_ok = cJSON_CreateArray();
	const char *by, *variant = NULL, *base = NULL;
	char *first_why = NULL;
	const cJSON *c;
	int bundle = !ab_is_dir(against), shared_base = 1, env_is = 0;

	cJSON_AddStringToObject(m, "against", against);
	if (bundle && ab_bundle_verify(against) != 0) {
		ab_probe_pid_problem(rec, "unreadable-build", "the bundle '%s' does not verify", against);
		goto done;
	}
	if (load_manifest(&bp, against, bundle, "provenance/binary-provenance.json") < 0 ||
	    load_manifest(&probes, against, bundle, "provenance/allocator-probes.json") < 0) {
		ab_probe_pid_problem(rec, "unreadable-build", "cannot read the build record of '%s'", against);
		goto done;
	}
	by = candidates(cands, bp, probes, sha, al);
	cJSON_ArrayForEach(c, cands) {
		const cJSON *v = variant_of(bp, c->valuestring);
		char *why = NULL;

		if (env_matches(p, v, &why))
			cJSON_AddItemToArray(env_ok, cJSON_CreateString(c->valuestring));
		else if (!first_why)
			first_why = ab_sprintf("%s: %s", c->valuestring, why);
		free(why);
		if (!base)
			base = ab_json_str(v, "base");
		else if (!same_str(base, ab_json_str(v, "base")))
			shared_base = 0;
	}
	cJSON_AddItemToObject(m, "by", by ? cJSON_CreateString(by) : cJSON_CreateNull());
	cJSON_AddItemToObject(m, "candidates", cJSON_Duplicate(cands, 1));
	cJSON_ArrayForEach(c, env_ok)
		env_is |= expect && !strcmp(c->valuestring, expect);
	if (cJSON_GetArraySize(env_ok) == 1) {
		variant = cJSON_GetArrayItem(env_ok, 0)->valuestring;
		cJSON_AddStringToObject(m, "environment", "matches");
	} else if (cJSON_GetArraySize(env_ok) > 1 && env_is) {
		/*
		 * several variants are this process (a relink byte-identical to a
		 * normal build, an A/A pair): the one expected is it, and so are
		 * the others, named
		 */
		cJSON *same = cJSON_AddArrayToObject(m, "same_as");

		variant = expect;
		cJSON_ArrayForEach(c, env_ok)
			if (strcmp(c->valuestring, expect))
				cJSON_AddItemToArray(same, cJSON_CreateString(c->valuestring));
		cJSON_AddStringToObject(m, "environment", "matches");
	} else if (cJSON_GetArraySize(env_ok) > 1) {
		cJSON_AddStringToObject(m, "environment", "matches several");
	} else if (cJSON_GetArraySize(cands)) {
		if (shared_base && base)
			variant = base;
		cJSON_AddStringToObject(m, "environment", first_why ? first_why : "differs");
	}
	cJSON_AddItemToObject(m, "variant", variant ? cJSON_CreateString(variant) : cJSON_CreateNull());
	if (!by)
		ab_probe_pid_problem(rec, "mismatch", "neither the executable (sha256 %.12s...) nor its allocator is a variant of the "
		    "build in '%s'", sha, against);
	else if (!variant && !(expect && cJSON_GetArraySize(env_ok) > 1))
		ab_probe_pid_problem(rec, "ambiguous", "the process could be any of %s (the same %s and environment)",
		    join_labels(cJSON_GetArraySize(env_ok) ? env_ok : cands), by);
	if (expect) {
		cJSON_AddStringToObject(m, "expected", expect);
		if (!variant && by && cJSON_GetArraySize(env_ok) > 1)
			ab_probe_pid_problem(rec, "mismatch", "expected variant '%s', the process is one of %s (the same %s and "
			    "environment), not it", expect, join_labels(env_ok), by);
		else if (!same_str(variant, expect))
			ab_probe_pid_problem(rec, "mismatch", "expected variant '%s', the process is %s", expect,
			    variant ? variant : by ? "not one variant of the build (above)" : "none of the build's variants");
		else if (!env_is)
			ab_probe_pid_problem(rec, "mismatch", "expected variant '%s': the process has its %s but another environment (%s)",
			    expect, by, first_why ? first_why : "differs");
		check_recipe_expect(rec, m, against, bundle, expect, al);
	}
done:
	free(first_why);
	cJSON_Delete(cands);
	cJSON_Delete(env_ok);
	cJSON_Delete(bp);
	cJSON_Delete(probes);
}

/* ---- the record ---- */

static int
hash_exe(char hex[AB_HEX_LEN + 1], uint64_t *size, const struct proc *p, const char *exe_path)
{
	int fd = open(exe_path, O_RDONLY | O_CLOEXEC);
	int e;

	if (fd < 0)
		return gone_or(p, "the executable", errno);
	e = ab_hash_fd(hex, size, fd, exe_path);
	close(fd);
	return e;
}

int
ab_probe_pid(cJSON **record, int pid, const struct ab_probe_pid_opts *o)
{
	struct proc p = {0};
	struct image before, after;
	struct ab_allocators al = {0};
	cJSON *rec = NULL, *pj, *exe, *alls;
	char exe_path[96], hex[AB_HEX_LEN + 1], when[32];
	unsigned long long ticks;
	uint64_t size = 0;
	int error = AB_EFAIL, replacing = 0;

	*record = NULL;
	if (read_process(&p, &before, pid) < 0)
		goto done;
	snprintf(exe_path, sizeof(exe_path), "%s/exe", p.dir);
	if (hash_exe(hex, &size, &p, exe_path) < 0 || find_allocators(&al, &p, exe_path) < 0)
		goto done;
	/* the same process still: a pid reused while we read would have another start time */
	ticks = p.start_ticks;
	free(p.comm);
	p.comm = NULL;
	if (read_stat(&p) < 0)
		goto done;
	if (p.start_ticks != ticks) {
		ab_error("probe: process %d exited while it was read (its pid now names another process)", pid);
		goto done;
	}
	/* the same program still: an exec while we read would mix two images (one's name, another's file) */
	if (image_of(&after, &p) < 0)
		goto done;
	if (!same_image(&before, &after)) {
		char *a = ab_shown(before.exe), *b = ab_shown(after.exe);

		ab_error("probe: process %d executed another program while it was read ('%s', then '%s'): what was "
		    "read mixes the two; probe it again", pid, a, b);
		free(a);
		free(b);
		goto done;
	}
	rec = cJSON_CreateObject();
	cJSON_AddNumberToObject(rec, "pid", pid);
	ab_utc_time(when, sizeof(when), time(NULL));
	cJSON_AddStringToObject(rec, "inspected_on", when);
	cJSON_AddItemToObject(rec, "host", host_json());
	pj = cJSON_AddObjectToObject(rec, "process");
	cJSON_AddStringToObject(pj, "comm", p.comm);
	cJSON_AddItemToObject(pj, "cmdline", ab_json_strv(p.cmdline.v, p.cmdline.n));
	cJSON_AddNumberToObject(pj, "uid", p.uid);
	if (start_time(when, sizeof(when), &p))
		cJSON_AddStringToObject(pj, "started_on", when);
	else
		cJSON_AddNullToObject(pj, "started_on");
	exe = cJSON_AddObjectToObject(pj, "exe");
	cJSON_AddStringToObject(exe, "path", p.exe);
	cJSON_AddBoolToObject(exe, "deleted", strstr(p.exe, " (deleted)") != NULL);
	cJSON_AddNumberToObject(exe, "size", (double)size);
	cJSON_AddStringToObject(exe, "sha256", hex);
	alls = cJSON_AddArrayToObject(rec, "allocators");
	for (size_t i = 0; i < al.n; i++) {
		cJSON_AddItemToArray(alls, ab_allocator_json(&al.v[i]));
		replacing += ab_allockind_find(al.v[i].kind) != ab_allockind_fallback();
	}
	cJSON_AddArrayToObject(rec, "problems");
	if (replacing > 1) {
		struct ab_buf names = {0};

		for (size_t i = 0; i < al.n; i++)
			if (ab_allockind_find(al.v[i].kind) != ab_allockind_fallback())
				ab_buf_printf(&names, "%s%s%s%s (%s %s)", names.len ? " and " : "", al.v[i].kind,
				    al.v[i].version ? " " : "", al.v[i].version ? al.v[i].version : "",
				    al.v[i].shared ? "shared" : "linked into", al.v[i].file);
		ab_probe_pid_problem(rec, "two-allocators", "%d allocators in one process: %s; each reads its own options, never "
		    "the other's", replacing, names.s);
		ab_buf_free(&names);
	}
	check_environment(rec, &p, &al);
	if (o && o->against)
		match_variant(rec, &p, hex, &al, o->against, o->expect);
	cJSON_AddBoolToObject(rec, "ok", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "problems")) == 0);
	*record = rec;
	rec = NULL;
	error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*record, "ok")) ? 0 : AB_ECHECK;
done:
	cJSON_Delete(rec);
	ab_allocators_release(&al);
	proc_release(&p);
	return error;
}

/* ---- the human form ---- */

static const char *
str_or(const cJSON *o, const char *k, const char *dflt)
{
	const char *s = ab_json_str(o, k);

	return s ? s : dflt;
}

void
ab_probe_pid_print(FILE *f, const cJSON *rec)
{
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(rec, "process");
	const cJSON *exe = cJSON_GetObjectItemCaseSensitive(pj, "exe"), *host = cJSON_GetObjectItemCaseSensitive(rec, "host");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(rec, "match"), *it;
	const cJSON *problems = cJSON_GetObjectItemCaseSensitive(rec, "problems");
	int np = cJSON_GetArraySize(problems);

	fprintf(f, "%-12s %d %s (started %s, uid %d)\n", "process", cJSON_GetObjectItemCaseSensitive(rec, "pid")->valueint,
	    str_or(pj, "comm", "?"), str_or(pj, "started_on", "?"),
	    cJSON_GetObjectItemCaseSensitive(pj, "uid")->valueint);
	fprintf(f, "%-12s %s\n", "executable", str_or(exe, "path", "?"));
	fprintf(f, "%-12s %s\n", "sha256", str_or(exe, "sha256", "?"));
	fprintf(f, "%-12s %s (kernel %s, boot %s)\n", "host", str_or(host, "hostname", "?"), str_or(host, "kernel", "?"),
	    str_or(host, "boot_id", "?"));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "allocators")) {
		const char *kind = ab_json_str(it, "kind");
		const struct ab_allockind *k;

		fprintf(f, "%-12s %s %s, %s %s", "allocator", kind, str_or(it, "version", "(version unknown)"),
		    !strcmp(str_or(it, "linked", ""), "shared") ? "shared object" : "linked into", str_or(it, "file", "?"));
		if ((k = ab_allockind_find(kind)) && k->probe->print)
			k->probe->print(f, it);
		fputc('\n', f);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "settings")) {
		const char *setting = ab_json_str(it, "setting"), *msg = ab_json_str(it, "message");

		const char *by = ab_json_str(it, "allocator");

		fprintf(f, "%-12s %s%s%s=%s  %s%s%s%s%s%s\n", "setting", str_or(it, "variable", "?"), setting ? " " : "",
		    setting ? setting : "", str_or(it, "value", ""), str_or(it, "status", "?"), by ? " (" : "",
		    by ? by : "", by ? ")" : "", msg ? ": " : "", msg ? msg : "");
	}
	if (m) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "candidates");
		const char *v = ab_json_str(m, "variant"), *by = ab_json_str(m, "by"), *env = ab_json_str(m, "environment");

		if (v)
			fprintf(f, "%-12s %s (by its %s, in %s)\n", "variant", v, by ? by : "?", str_or(m, "against", "?"));
		if (v && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "same_as")))
			fprintf(f, "%-12s %s (the same %s and environment)\n", "same as",
			    join_labels(cJSON_GetObjectItemCaseSensitive(m, "same_as")),
			    by && !strcmp(by, "binary") ? "bytes" : "allocator");
		else if (cJSON_GetArraySize(c) > 1)
			fprintf(f, "%-12s one of %s (by their %s, in %s)\n", "variant", join_labels(c), by ? by : "?",
			    str_or(m, "against", "?"));
		else
			fprintf(f, "%-12s none (in %s)\n", "variant", str_or(m, "against", "?"));
		if (env)
			fprintf(f, "%-12s %s\n", "environment", env);
	}
	if (np == 0)
		fprintf(f, "%-12s ok\n", "result");
	else
		fprintf(f, "%-12s %d problem%s\n", "result", np, np == 1 ? "" : "s");
}
