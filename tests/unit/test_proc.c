/* proc: argv execution, capture, logs, environment scrubbing, timeouts */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "../../lib/atomic.h"
#include "../../lib/proc.h"
#include "../../lib/which.h"
#include "../../lib/util.h"
#include "unit.h"

static int
run(struct ab_proc_result *res, struct ab_buf *out, struct ab_buf *err, char **argv, double timeout,
    size_t max)
{
	struct ab_proc p = {.argv = argv, .out = out, .err = err, .timeout = timeout, .max_output = max};

	return ab_proc_run(res, &p);
}

int
main(void)
{
	struct ab_proc_result res;
	struct ab_buf out = {0}, err = {0};

	/* capture both streams and the exit status */
	{
		char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};

		CHECK(run(&res, &out, &err, argv, 0, 0) == 0);
		CHECK_STR(out.s, "out\n");
		CHECK_STR(err.s, "err\n");
		CHECK(res.exit_code == 3 && res.signal == 0 && !res.timed_out && res.pid > 0);
	}
	/* a missing program is an error of ours, reported, not an exit status */
	{
		char *argv[] = {"allocbuild-no-such-program", NULL};

		CHECK(run(&res, NULL, NULL, argv, 0, 0) == -1);
	}
	/* a missing directory too */
	{
		char *argv[] = {"true", NULL};
		struct ab_proc p = {.argv = argv, .cwd = "/nonexistent/dir"};

		CHECK(ab_proc_run(&res, &p) == -1);
	}
	/* a timeout kills the whole group, grandchildren holding the pipes included */
	{
		char *argv[] = {"sh", "-c", "sleep 30 & sleep 30; echo never", NULL};
		double t0 = ab_now();
		char why[128];

		ab_buf_clear(&out);
		CHECK(run(&res, &out, NULL, argv, 0.3, 0) == 0);
		CHECK(res.timed_out && res.signal == SIGKILL && res.exit_code == -1);
		CHECK(ab_now() - t0 < 5);
		CHECK(out.len == 0);
		ab_proc_describe(why, sizeof(why), &res);
		CHECK(!strncmp(why, "timed out, killed by signal 9", 29));
	}
	/* a timeout without capture (a log-only step) */
	{
		char *argv[] = {"sleep", "30", NULL};
		struct ab_proc p = {.argv = argv, .timeout = 0.2};
		double t0 = ab_now();

		CHECK(ab_proc_run(&res, &p) == 0);
		CHECK(res.timed_out && ab_now() - t0 < 5);
	}
	/* captured output is capped, and the child still runs to its end */
	{
		char *argv[] = {"head", "-c", "1000000", "/dev/zero", NULL};

		ab_buf_clear(&out);
		CHECK(run(&res, &out, NULL, argv, 0, 4096) == 0);
		CHECK(out.len == 4096 && res.truncated && res.exit_code == 0);
	}
	/* which names are the toolchain's */
	{
		static const char *const yes[] = {"CC", "CC=gcc", "CFLAGS=-O0", "LD", "MAKEFLAGS=-k", "CMAKE_GENERATOR=Ninja",
			"CMAKE_X", "PKG_CONFIG_PATH=/x", "CPATH", "LIBS="};
		static const char *const no[] = {"CCACHE_DIR=/x", "CMAKE_", "CFLAGSX", "LD_PRELOAD", "LD_LIBRARY_PATH=/x",
			"C", "PATH=/bin", "MAKELEVEL=1", "XCC", ""};

		for (size_t i = 0; i < AB_NELEM(yes); i++)
			CHECK(ab_env_is_toolchain_var(yes[i]));
		for (size_t i = 0; i < AB_NELEM(no); i++)
			CHECK(!ab_env_is_toolchain_var(no[i]));
	}
	/* the scrubbed environment: allocator and toolchain variables removed and recorded */
	{
		struct ab_env env;
		char *argv[] = {"sh", "-c",
			"echo \"$MALLOC_CONF|$MIMALLOC_VERBOSE|$JE_MALLOC_CONF|$CFLAGS|$CMAKE_GENERATOR|$LC_ALL|$TZ|$KEEP\"", NULL};
		struct ab_proc p = {.argv = argv, .out = &out};
		size_t toolchain = 0;

		setenv("MALLOC_CONF", "narenas:1", 1);
		setenv("MIMALLOC_VERBOSE", "1", 1);
		setenv("JE_MALLOC_CONF", "x:1", 1);
		setenv("CFLAGS", "-O0", 1);
		setenv("CMAKE_GENERATOR", "Ninja", 1);
		setenv("KEEP", "kept", 1);
		/* the runner's own (MAKEFLAGS under make) go as well */
		for (char **e = environ; *e; e++)
			toolchain += ab_env_is_toolchain_var(*e) != 0;
		ab_env_scrubbed(&env);
		p.envp = ab_env_envp(&env);
		ab_buf_clear(&out);
		CHECK(ab_proc_run(&res, &p) == 0);
		CHECK_STR(out.s, "|||||C|UTC|kept\n");
		CHECK(toolchain >= 2 && env.removed.n == 3 + toolchain);
		CHECK(ab_strv_has(&env.removed, "CFLAGS") && ab_strv_has(&env.removed, "CMAKE_GENERATOR"));
		CHECK(ab_env_get(&env, "LC_ALL") && !strcmp(ab_env_get(&env, "LC_ALL"), "C"));
		ab_env_set(&env, "MALLOC_CONF", "lg_extent_max_active_fit:30");
		CHECK_STR(ab_env_get(&env, "MALLOC_CONF"), "lg_extent_max_active_fit:30");
		ab_env_unset(&env, "KEEP");
		CHECK(ab_env_get(&env, "KEEP") == NULL);
		ab_env_release(&env);
	}
	/* logs: stdout and stderr appended to the log file */
	{
		char path[] = "/tmp/ab-test-proc-XXXXXX";
		int fd = mkstemp(path);
		char *argv[] = {"sh", "-c", "echo one; echo two >&2", NULL};
		struct ab_proc p = {.argv = argv, .log_path = path};
		struct ab_buf log = {0};

		CHECK(fd >= 0);
		close(fd);
		CHECK(ab_proc_run(&res, &p) == 0 && res.exit_code == 0);
		CHECK(ab_read_file(&log, path) == 0);
		CHECK_STR(log.s, "one\ntwo\n");
		unlink(path);
		ab_buf_free(&log);
	}
	/* quoting for logs */
	{
		char *argv[] = {"cc", "-o", "a b", "it's", "--x=$HOME", NULL};
		char *q = ab_argv_quote(argv);

		CHECK_STR(q, "cc -o 'a b' 'it'\\''s' '--x=$HOME'");
		free(q);
	}
	/* the one PATH lookup: execvp's rule over envp's PATH */
	{
		char *dir = unit_tmpdir("which"), *a = ab_path_join(dir, "a"), *b = ab_path_join(dir, "b"),
		     *sub = ab_path_join(dir, "sub"), *tool = ab_path_join(dir, "b/tool"), *env0 = NULL, *w;
		char *envp[] = {NULL, NULL};

		CHECK(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
		/* a/tool is no executable, a/sub a directory: both passed over for b's */
		{
			char *atool = ab_path_join(a, "tool"), *asub = ab_path_join(a, "sub");

			CHECK(ab_write_file_atomic(atool, "x", 1) == 0);
			CHECK(mkdir(asub, 0755) == 0);
			free(asub);
			free(atool);
		}
		CHECK(ab_write_file_atomic(tool, "#!/bin/sh\n", 10) == 0 && chmod(tool, 0755) == 0);
		CHECK(mkdir(sub, 0755) == 0);
		env0 = ab_sprintf("PATH=%s:%s", a, b);
		envp[0] = env0;
		w = ab_proc_which("tool", envp);
		CHECK_STR(w, tool);
		free(w);
		CHECK(ab_proc_which("sub", envp) == NULL);
		CHECK(ab_proc_which("missing", envp) == NULL);
		CHECK(ab_proc_findable("tool", envp) && !ab_proc_findable("missing", envp));
		/* a name with a '/' is itself, when it is an executable file */
		w = ab_proc_which(tool, envp);
		CHECK_STR(w, tool);
		free(w);
		CHECK(ab_proc_which(sub, envp) == NULL);
		/* an empty element is the current directory */
		free(env0);
		env0 = ab_sprintf("PATH=%s:", a);
		envp[0] = env0;
		CHECK(chdir(b) == 0);
		w = ab_proc_which("tool", envp);
		CHECK_STR(w, "tool");
		free(w);
		CHECK(chdir("/") == 0);
		ab_rm_rf(dir);
		free(env0);
		free(tool);
		free(sub);
		free(b);
		free(a);
		free(dir);
	}
	ab_buf_free(&out);
	ab_buf_free(&err);
	return unit_done();
}
