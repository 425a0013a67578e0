#include "stale.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
