/* which: the one PATH lookup, as execvp does it (which.h) */
#include "which.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The paths execve should try for argv[0], as execvp would with envp's PATH
 * (computed before fork: the child of a threaded process only calls
 * async-signal-safe functions).
 */
void
ab_exec_candidates(struct ab_strv *c, const char *prog, char *const *envp)
{
	const char *path = NULL;

	if (strchr(prog, '/')) {
		ab_strv_push(c, prog);
		return;
	}
	if (envp) {
		for (char *const *p = envp; *p; p++)
			if (!strncmp(*p, "PATH=", 5))
				path = *p + 5;
	} else {
		path = getenv("PATH");
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (1) {
		size_t n = strcspn(path, ":");

		if (n == 0)
			ab_strv_push(c, prog);
		else
			ab_strv_pushf(c, "%.*s/%s", (int)n, path, prog);
		if (!path[n])
			break;
		path += n + 1;
	}
}

char *
ab_proc_which(const char *prog, char *const *envp)
{
	struct ab_strv c = {0};
	char *found = NULL;

	ab_exec_candidates(&c, prog, envp);
	for (size_t i = 0; i < c.n && !found; i++) {
		struct stat st;

		if (stat(c.v[i], &st) == 0 && S_ISREG(st.st_mode) && access(c.v[i], X_OK) == 0)
			found = ab_strdup(c.v[i]);
	}
	ab_strv_free(&c);
	return found;
}

int
ab_proc_findable(const char *prog, char *const *envp)
{
	char *found = ab_proc_which(prog, envp);

	free(found);
	return found != NULL;
}
