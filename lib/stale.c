#include "stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "util.h"

int
ab_stale_own(const char *path, enum ab_stale_kind kind, int private, char *why, size_t whylen)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, whylen, "a symbolic link");
		return -1;
	}
	if (kind == AB_STALE_DIR ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a %s", kind == AB_STALE_DIR ? "directory" : "regular file");
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, whylen, "owned by uid %ld, not by this user (uid %ld)", (long)st.st_uid, (long)geteuid());
		return -1;
	}
	if (private && (st.st_mode & 077)) {
		snprintf(why, whylen, "mode %04o, not %s", (unsigned)(st.st_mode & 07777),
		    kind == AB_STALE_DIR ? "0700" : "0600");
		return -1;
	}
	return 0;
}

/* the part of path below dir ("" for dir itself), or NULL when path is not dir or below it */
static const char *
below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

int
ab_stale_inside(const char *path, char *const *dirs, size_t ndirs, char *why, size_t whylen)
{
	const char *rel = NULL;
	size_t i;

	if (path[0] != '/') {
		snprintf(why, whylen, "not an absolute path");
		return -1;
	}
	for (const char *s = path + 1; *s;) {
		size_t n = strcspn(s, "/");

		if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) {
			snprintf(why, whylen, "a '%.*s' component", (int)n, s);
			return -1;
		}
		s += n;
		while (*s == '/')
			s++;
	}
	for (i = 0; i < ndirs && !rel; i++)
		rel = below(path, dirs[i]);
	if (!rel || !*rel) {
		snprintf(why, whylen, "outside the directories it may name");
		return -1;
	}
	/* every component below the directory: none a symbolic link (the last may be missing) */
	for (const char *s = rel; *s;) {
		size_t n = strcspn(s, "/");
		char *p = ab_strndup(path, (size_t)(s + n - path));
		struct stat st;
		int link = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);

		free(p);
		if (link) {
			snprintf(why, whylen, "a symbolic link in its path");
			return -1;
		}
		s += n;
		while (*s == '/')
			s++;
	}
	return 0;
}

int
ab_stale_pid_dead(long pid)
{
	return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int
ab_stale_clean(const char *dir, const char *prefix, const char *what)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t pl = strlen(prefix);
	int removed = 0;

	while (d && (de = readdir(d))) {
		char *end, *path, why[160];
		long pid;

		if (strncmp(de->d_name, prefix, pl))
			continue;
		pid = strtol(de->d_name + pl, &end, 10);
		if (end == de->d_name + pl || *end != '-' || !ab_stale_pid_dead(pid))
			continue;
		path = ab_path_join(dir, de->d_name);
		if (ab_stale_own(path, AB_STALE_DIR, 1, why, sizeof(why)) < 0) {
			ab_warn("'%s' is named like the temporary of an interrupted %s but is not provably one (%s): "
			    "left alone", path, what, why);
		} else if (ab_rm_rf(path) == 0) {
			ab_note("removed '%s', left by an interrupted %s (pid %ld)", path, what, pid);
			removed++;
		}
		free(path);
	}
	if (d)
		closedir(d);
	return removed;
}

/* a guard's action (lib/guard.h): only async-signal-safe calls */
static void
remove_tree(const void *arg)
{
	const char *path = arg;
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
		/* directories made read-only (as git's objects are) writable first, as ab_rm_rf does */
		char *const chmod_argv[] = {"chmod", "-R", "u+rwX", "--", (char *)path, NULL};
		char *const rm_argv[] = {"rm", "-rf", "--", (char *)path, NULL};
		char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
		pid_t pid = fork();

		if (pid == 0) {
			execve("/bin/chmod", chmod_argv, envp);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		execve("/bin/rm", rm_argv, envp);
	}
}

int
ab_stale_reaper_start(struct ab_guard *g, const char *path)
{
	return ab_guard_start(g, remove_tree, path);
}
