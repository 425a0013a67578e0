#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "which.h"

const char *const ab_sandbox_namespaces[] = {"user", "mount", "network", "pid", "ipc", "uts", "cgroup", NULL};

/* files and directories of /etc that no build needs and no build may read */
static const char *const etc_secret_files[] = {
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/machine-id", NULL,
};
static const char *const etc_secret_dirs[] = {"/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d", NULL};
/* top-level directories a system keeps its programs and libraries in: bound as they are, links as links */
static const char *const system_dirs[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL};
/*
 * what builds read of /sys (CPUs and NUMA nodes for a parallel build or an
 * allocator's probe, transparent huge pages and the page sizes): not the
 * rest, which names the host's devices and network interfaces
 */
static const char *const sys_dirs[] = {"/sys/devices/system/cpu", "/sys/devices/system/node", "/sys/kernel/mm", NULL};

static void
add_op(struct ab_sandbox *sb, int kind, const char *real, const char *inside)
{
	struct ab_sandbox_op *op;

	sb->ops = ab_realloc(sb->ops, (sb->nops + 1) * sizeof(*sb->ops));
	op = &sb->ops[sb->nops++];
	op->kind = kind;
	op->real = ab_strdup_or_null(real);
	op->inside = ab_strdup(inside);
}

void
ab_sandbox_bind(struct ab_sandbox *sb, const char *real, const char *inside, int rw)
{
	add_op(sb, rw ? AB_SB_BIND : AB_SB_RO_BIND, real, inside);
}

void
ab_sandbox_tmpfs(struct ab_sandbox *sb, const char *inside)
{
	add_op(sb, AB_SB_TMPFS, NULL, inside);
}

void
ab_sandbox_dir(struct ab_sandbox *sb, const char *inside)
{
	add_op(sb, AB_SB_DIR, NULL, inside);
}

void
ab_sandbox_link(struct ab_sandbox *sb, const char *target, const char *inside)
{
	add_op(sb, AB_SB_LINK, target, inside);
}

void
ab_sandbox_release(struct ab_sandbox *sb)
{
	for (size_t i = 0; i < sb->nops; i++) {
		free(sb->ops[i].real);
		free(sb->ops[i].inside);
	}
	free(sb->ops);
	ab_strv_free(&sb->init);
	memset(sb, 0, sizeof(*sb));
}

/* is path equal to dir or below it? the rest after dir ("" or "/...") */
static const char *
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/' ? path : NULL;
	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path + n;
}

static char *
translate(const struct ab_sandbox *sb, const char *path, int to_inside)
{
	/* the last bind that holds the path wins: a later mount hides an earlier one */
	for (size_t i = sb->nops; i-- > 0;) {
		const struct ab_sandbox_op *op = &sb->ops[i];
		const char *rest;

		/* a link the sandbox makes (the wrapper's /allocbuild/ccwrap/cc): where its absolute target really is */
		if (!to_inside && op->kind == AB_SB_LINK && op->real[0] == '/' && !strcmp(path, op->inside) &&
		    strcmp(op->real, path))
			return translate(sb, op->real, 0);
		if (op->kind != AB_SB_BIND && op->kind != AB_SB_RO_BIND)
			continue;
		rest = under(path, to_inside ? op->real : op->inside);
		if (rest)
			return ab_sprintf("%s%s", to_inside ? op->inside : op->real, rest);
	}
	return NULL;
}

char *
ab_sandbox_inside(const struct ab_sandbox *sb, const char *real)
{
	return translate(sb, real, 1);
}

char *
ab_sandbox_real(const struct ab_sandbox *sb, const char *inside)
{
	return translate(sb, inside, 0);
}

void
ab_sandbox_inside_argv(struct ab_strv *out, const struct ab_sandbox *sb, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		char *in = argv[i][0] == '/' ? ab_sandbox_inside(sb, argv[i]) : NULL;

		ab_strv_push_owned(out, in ? in : ab_strdup(argv[i]));
	}
}

/* ---- bwrap ---- */

static pthread_once_t check_once = PTHREAD_ONCE_INIT, private_once = PTHREAD_ONCE_INIT;
static struct ab_strv private_etc; /* bwrap's arguments that hide what of /etc others may not read */
static char *bwrap_path;    /* found in PATH */
static char *bwrap_version; /* "bubblewrap 0.8.0" */
static char *check_error;   /* why no sandbox can be made, or NULL */

/*
 * What of /etc only its owner or group may read (root's 0600 files, a
 * 0640 key, a 0700 directory): hidden in the sandbox, which a root caller
 * would otherwise see whole: a file as an empty one, a directory as an
 * empty tmpfs. Symbolic links are left as they are (what they name is
 * judged where it is).
 */
static void
hide_private(struct ab_strv *out, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = ab_sprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 005) != 005) {
			ab_strv_push(out, "--tmpfs");
			ab_strv_push(out, p);
		} else if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 16) {
			hide_private(out, p, depth + 1);
		} else if (lstat(p, &st) == 0 && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode) && !(st.st_mode & 004)) {
			ab_strv_push(out, "--ro-bind");
			ab_strv_push(out, "/dev/null");
			ab_strv_push(out, p);
		}
		free(p);
	}
	closedir(d);
}

static void
find_private_etc(void)
{
	hide_private(&private_etc, "/etc", 0);
}

static void
base_args(struct ab_strv *out, int share_net)
{
	pthread_once(&private_once, find_private_etc);
	ab_strv_push(out, bwrap_path ? bwrap_path : "bwrap");
	/* each namespace named: --unshare-all would go on without a user namespace when root cannot make one */
	ab_strv_push(out, "--unshare-user");
	ab_strv_push(out, "--unshare-ipc");
	ab_strv_push(out, "--unshare-pid");
	if (!share_net)
		ab_strv_push(out, "--unshare-net");
	ab_strv_push(out, "--unshare-uts");
	ab_strv_push(out, "--unshare-cgroup");
	ab_strv_push(out, "--die-with-parent");
	/*
	 * no capability in the sandbox, whoever runs allocbuild: run by root,
	 * bwrap keeps every one inside the user namespace, enough to remount
	 * the read-only binds writable (docs/build.md, "Sandbox"); and no user
	 * namespace of a step's own, in which it would have them again
	 */
	ab_strv_push(out, "--cap-drop");
	ab_strv_push(out, "ALL");
	ab_strv_push(out, "--disable-userns");
	ab_strv_push(out, "--hostname");
	ab_strv_push(out, "allocbuild");
	ab_strv_push(out, "--ro-bind");
	ab_strv_push(out, "/usr");
	ab_strv_push(out, "/usr");
	for (size_t i = 0; system_dirs[i]; i++) {
		struct stat st;
		char target[4096];
		ssize_t n;

		if (lstat(system_dirs[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) && (n = readlink(system_dirs[i], target, sizeof(target) - 1)) > 0) {
			target[n] = '\0';
			ab_strv_push(out, "--symlink");
			ab_strv_push(out, target);
		} else if (S_ISDIR(st.st_mode)) {
			ab_strv_push(out, "--ro-bind");
			ab_strv_push(out, system_dirs[i]);
		} else {
			continue;
		}
		ab_strv_push(out, system_dirs[i]);
	}
	ab_strv_push(out, "--ro-bind");
	ab_strv_push(out, "/etc");
	ab_strv_push(out, "/etc");
	for (size_t i = 0; etc_secret_files[i]; i++)
		if (access(etc_secret_files[i], F_OK) == 0) {
			ab_strv_push(out, "--ro-bind");
			ab_strv_push(out, "/dev/null");
			ab_strv_push(out, etc_secret_files[i]);
		}
	for (size_t i = 0; etc_secret_dirs[i]; i++)
		if (ab_is_dir(etc_secret_dirs[i])) {
			ab_strv_push(out, "--tmpfs");
			ab_strv_push(out, etc_secret_dirs[i]);
		}
	for (size_t i = 0; i < private_etc.n; i++)
		ab_strv_push(out, private_etc.v[i]);
	for (size_t i = 0; sys_dirs[i]; i++)
		if (ab_is_dir(sys_dirs[i])) {
			ab_strv_push(out, "--ro-bind");
			ab_strv_push(out, sys_dirs[i]);
			ab_strv_push(out, sys_dirs[i]);
		}
	ab_strv_push(out, "--proc");
	ab_strv_push(out, "/proc");
	ab_strv_push(out, "--dev");
	ab_strv_push(out, "/dev");
	ab_strv_push(out, "--tmpfs");
	ab_strv_push(out, "/tmp");
	ab_strv_push(out, "--tmpfs");
	ab_strv_push(out, "/var/tmp");
}

void
ab_sandbox_argv(struct ab_strv *out, const struct ab_sandbox *sb, const char *cwd, char *const *argv)
{
	static const char *const opt[] = {
		[AB_SB_BIND] = "--bind", [AB_SB_RO_BIND] = "--ro-bind", [AB_SB_TMPFS] = "--tmpfs",
		[AB_SB_DIR] = "--dir", [AB_SB_LINK] = "--symlink", [AB_SB_FILE_NULL] = "--ro-bind",
	};

	base_args(out, sb->share_net);
	for (size_t i = 0; i < sb->nops; i++) {
		const struct ab_sandbox_op *op = &sb->ops[i];

		ab_strv_push(out, opt[op->kind]);
		if (op->kind == AB_SB_FILE_NULL)
			ab_strv_push(out, "/dev/null");
		else if (op->real)
			ab_strv_push(out, op->real);
		ab_strv_push(out, op->inside);
	}
	if (cwd) {
		ab_strv_push(out, "--chdir");
		ab_strv_push(out, cwd);
	}
	ab_strv_push(out, "--");
	for (size_t i = 0; i < sb->init.n; i++)
		ab_strv_push(out, sb->init.v[i]);
	for (size_t i = 0; argv[i]; i++)
		ab_strv_push(out, argv[i]);
}

/* run argv with stdout and stderr into *out (at most 64 KiB), stdin /dev/null: its wait status, or -1 */
static int
capture(char *const *argv, struct ab_buf *out)
{
	int p[2], status = -1, null;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0) {
		char *m = ab_sprintf("cannot open /dev/null: %s", strerror(errno));

		ab_buf_add(out, m, strlen(m));
		free(m);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		close(null);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(null);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		static const char cannot[] = "cannot run it\n";

		if (dup2(null, 0) >= 0 && dup2(p[1], 1) >= 0 && dup2(p[1], 2) >= 0)
			execv(argv[0], argv);
		(void)!write(p[1], cannot, sizeof(cannot) - 1);
		_exit(127);
	}
	close(null);
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && out->len < 65536)
			ab_buf_add(out, buf, (size_t)n);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* the value of a sysctl file, or -1 when it is absent or unreadable */
static long
sysctl_value(const char *path)
{
	long v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		char buf[64];
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0) {
			buf[n] = '\0';
			v = strtol(buf, NULL, 10);
		}
		close(fd);
	}
	return v;
}

/* which setting refuses unprivileged user namespaces, as far as this kernel says */
static char *
userns_cause(void)
{
	if (sysctl_value("/proc/sys/user/max_user_namespaces") == 0)
		return ab_strdup("user namespaces are disabled (user.max_user_namespaces=0)");
	if (sysctl_value("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return ab_strdup("unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)");
	if (sysctl_value("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		return ab_strdup("AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1, as on Ubuntu 24.04)");
	return ab_strdup("the kernel refused to make the sandbox's namespaces "
	    "(a container without CAP_SYS_ADMIN, or a seccomp policy, refuses them)");
}

/* the last non-empty line of a tool's output */
static char *
last_line(const struct ab_buf *b)
{
	const char *s = b->s ? b->s : "", *end = s + b->len, *start;

	while (end > s && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	return ab_strndup(start, (size_t)(end - start));
}

static void
check(void)
{
	struct ab_buf out = {0};
	struct ab_strv argv = {0};
	char *version[] = {NULL, "--version", NULL};
	char *truev[] = {"/bin/true", NULL};
	struct ab_sandbox none = {0};
	char *cause = NULL, *said = NULL;
	int st;

	bwrap_path = ab_proc_which("bwrap", NULL);
	if (!bwrap_path) {
		check_error = ab_strdup("bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)");
		return;
	}
	version[0] = bwrap_path;
	st = capture(version, &out);
	if (st == 0 && out.len) {
		bwrap_version = last_line(&out);
	} else {
		said = last_line(&out);
		check_error = *said ? ab_sprintf("'%s --version' failed: %s", bwrap_path, said)
				    : ab_sprintf("'%s --version' failed", bwrap_path);
		goto done;
	}
	ab_buf_clear(&out);
	ab_sandbox_argv(&argv, &none, NULL, truev);
	st = capture(ab_strv_argv(&argv), &out);
	if (st == 0)
		goto done;
	said = last_line(&out);
	cause = userns_cause();
	check_error = ab_sprintf("%s (bwrap said: %s)", cause, strncmp(said, "bwrap: ", 7) ? said : said + 7);
done:
	free(cause);
	free(said);
	ab_buf_free(&out);
	ab_strv_free(&argv);
}

int
ab_sandbox_check(void)
{
	pthread_once(&check_once, check);
	if (!check_error)
		return 0;
	ab_error("the build sandbox cannot start: %s; allow unprivileged user namespaces "
	    "(docs/build.md, \"Sandbox\") or build without the sandbox (--no-sandbox, "
	    "or \"sandbox\": false in a variant; recorded as such)", check_error);
	return AB_EFAIL;
}

const char *
ab_sandbox_tool(void)
{
	return check_error ? NULL : bwrap_version;
}
