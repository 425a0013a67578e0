#include "ccwrap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/linktxt.h"
#include "../lib/proc.h"
#include "../provenance/record/ccstats.h"

const char *const ab_ccwrap_tools[] = {
	"cc", "gcc", "c++", "g++", "x86_64-linux-gnu-gcc", "x86_64-linux-gnu-g++", "ar", "ranlib", "install", NULL,
};

enum tool_kind { TOOL_COMPILER, TOOL_AR, TOOL_RANLIB, TOOL_INSTALL };

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int
ab_ccwrap_is_tool(const char *argv0)
{
	const char *b = base_name(argv0);

	for (size_t i = 0; ab_ccwrap_tools[i]; i++)
		if (!strcmp(b, ab_ccwrap_tools[i]))
			return 1;
	return 0;
}

static enum tool_kind
tool_kind(const char *name)
{
	if (!strcmp(name, "ar"))
		return TOOL_AR;
	if (!strcmp(name, "ranlib"))
		return TOOL_RANLIB;
	if (!strcmp(name, "install"))
		return TOOL_INSTALL;
	return TOOL_COMPILER;
}

/*
 * May install(1) get -C (--compare: leave a destination with the same
 * bytes, owner and mode untouched, its time included)? Not when it makes
 * directories (-d) or strips (-s: GNU install refuses -C with it), nor
 * when -C is there already. Short options cluster (-sm 644); g, m, o, S
 * and t take an argument, in the rest of the word or the next one.
 */
static int
install_may_compare(int argc, char **argv)
{
	static const char *const off[] = {"--directory", "--strip", "--compare", NULL};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--", 2)) {
			for (size_t k = 0; off[k]; k++)
				if (!strcmp(a, off[k]))
					return 0;
			continue;
		}
		if (a[0] != '-' || !a[1])
			continue;
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'd' || *c == 's' || *c == 'C')
				return 0;
			if (strchr("gmoSt", *c)) {
				if (!c[1])
					i++;
				break;
			}
		}
	}
	return 1;
}

void
ab_ccwrap_prefix_maps(struct ab_strv *out, const char *outdir, const char *src, const char *build)
{
	ab_strv_pushf(out, "-ffile-prefix-map=%s=%s", outdir, AB_CCWRAP_MAP_OUTDIR);
	ab_strv_pushf(out, "-ffile-prefix-map=%s=%s", src, AB_CCWRAP_MAP_SRC);
	ab_strv_pushf(out, "-ffile-prefix-map=%s=%s", build, AB_CCWRAP_MAP_BUILD);
}

/* ---- running as the tool ---- */

/* is path an executable file, and is it allocbuild itself (*self)? */
static int
candidate(const char *path, const struct stat *me, int *self)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return 0;
	*self = st.st_dev == me->st_dev && st.st_ino == me->st_ino;
	return 1;
}

/*
 * The real tool: the first executable `name` in path that is not
 * allocbuild; *newpath receives path without the directories where
 * `name` is allocbuild. NULL when there is none.
 */
static char *
find_real(char **newpath, const char *name, const char *path, const struct stat *me)
{
	struct ab_buf np = {0};
	char *found = NULL;

	for (const char *p = path;;) {
		size_t n = strcspn(p, ":");
		char *dir = n ? ab_strndup(p, n) : ab_strdup(".");
		char *cand = ab_path_join(dir, name);
		int self = 0, exe = candidate(cand, me, &self);

		if (!(exe && self)) {
			if (np.len)
				ab_buf_putc(&np, ':');
			ab_buf_add(&np, p, n);
		}
		if (exe && !self && !found)
			found = cand;
		else
			free(cand);
		free(dir);
		if (!p[n])
			break;
		p += n + 1;
	}
	*newpath = ab_buf_detach(&np);
	if (!*newpath)
		*newpath = ab_strdup("");
	return found;
}

/* the injected compiler flags, from the environment; -1 after a message */
static int
injected_flags(struct ab_strv *out)
{
	const char *v = getenv(AB_CCWRAP_FLAGS_ENV);
	struct ab_linktxt lt = {0};

	if (!v || !*v)
		return 0;
	if (ab_linktxt_parse(&lt, AB_CCWRAP_FLAGS_ENV, v, strlen(v), stderr) < 0)
		return -1;
	for (size_t i = 0; i < lt.ncmds; i++)
		for (size_t k = 0; k < lt.cmds[i].argv.n; k++)
			ab_strv_push(out, lt.cmds[i].argv.v[k]);
	ab_linktxt_release(&lt);
	return 0;
}

/* the OLD=NEW pairs of the -ffile-prefix-map options among the injected flags */
struct prefix_map {
	const char *old, *new_;
	size_t oldlen;
};

static size_t
prefix_maps(struct prefix_map **out, const struct ab_strv *flags)
{
	static const char opt[] = "-ffile-prefix-map=";
	size_t n = 0;

	*out = ab_calloc(flags->n ? flags->n : 1, sizeof(**out));
	for (size_t i = 0; i < flags->n; i++) {
		const char *f = flags->v[i], *eq;

		if (strncmp(f, opt, sizeof(opt) - 1) || !(eq = strchr(f + sizeof(opt) - 1, '=')))
			continue;
		(*out)[n].old = f + sizeof(opt) - 1;
		(*out)[n].oldlen = (size_t)(eq - (*out)[n].old);
		(*out)[n].new_ = eq + 1;
		n++;
	}
	return n;
}

/* a character that may continue a path component: an OLD followed by one is not that directory */
static int
path_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	    c == '-' || c == '+';
}

/*
 * A -D definition with every directory of the maps in it replaced, the
 * last map tried first (GCC's order); NULL when none occurs. GCC's maps
 * reach __FILE__ and the debug info, not a macro whose value a build
 * system wrote with an absolute path in it (Fluent Bit's ctraces and
 * monkey: -D__FILENAME__='"$(subst /abs/src/,,$(abspath $<))"').
 */
static char *
map_definition(const char *arg, const struct prefix_map *maps, size_t nmaps)
{
	struct ab_buf b = {0};
	int changed = 0;

	for (const char *s = arg; *s;) {
		size_t k = nmaps;

		while (k-- > 0)
			if (!strncmp(s, maps[k].old, maps[k].oldlen) && !path_char(s[maps[k].oldlen]))
				break;
		if (k < nmaps) {
			ab_buf_puts(&b, maps[k].new_);
			s += maps[k].oldlen;
			changed = 1;
		} else {
			ab_buf_putc(&b, *s++);
		}
	}
	if (!changed) {
		ab_buf_free(&b);
		return NULL;
	}
	return ab_buf_detach(&b);
}

/*
 * GNU ar's operation argument: the first that is not a long option (and
 * not the value of --plugin or --target given apart); -1 when none
 */
static int
ar_key_index(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2)) {
			if (!strcmp(argv[i], "--plugin") || !strcmp(argv[i], "--target") || !strcmp(argv[i], "--output"))
				i++;
			continue;
		}
		if (!strncmp(argv[i], "-X", 2))
			continue;
		return i;
	}
	return -1;
}

/* the operation's modifiers in deterministic mode: no U, no u (refused with D), with D */
static char *
ar_deterministic_key(const char *key)
{
	struct ab_buf b = {0};
	int has_d = 0, modifies = 0;

	for (const char *k = key; *k; k++) {
		if (*k == 'U' || *k == 'u')
			continue;
		has_d |= *k == 'D';
		modifies |= strchr("dmqrs", *k) != NULL;
		ab_buf_putc(&b, *k);
	}
	/* t, x and p read only: D means nothing to them */
	if (modifies && !has_d)
		ab_buf_putc(&b, 'D');
	return ab_buf_detach(&b);
}

/* ---- the compile log ---- */

/* does the command compile without linking (-c)? */
static int
is_compile(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-c"))
			return 1;
	return 0;
}

static int
has_suffix(const char *s, const char *const *sfx)
{
	size_t n = strlen(s);

	for (size_t i = 0; sfx[i]; i++) {
		size_t k = strlen(sfx[i]);

		if (n > k && !strcmp(s + n - k, sfx[i]))
			return 1;
	}
	return 0;
}

/* the source file compiled and the object written (-o X, -oX, else the source's base name with .o) */
static void
compile_files(int argc, char **argv, const char **src, char **out)
{
	static const char *const sources[] = {".c", ".cc", ".cpp", ".cxx", ".C", ".c++", ".S", ".s", ".m", NULL};

	*src = NULL;
	*out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			*out = ab_strdup(argv[++i]);
		else if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			*out = ab_strdup(argv[i] + 2);
		else if (argv[i][0] != '-' && has_suffix(argv[i], sources) && !*src)
			*src = argv[i];
	}
	if (!*out && *src) {
		const char *b = base_name(*src), *dot = strrchr(b, '.');

		*out = ab_sprintf("%.*s.o", (int)(dot ? dot - b : (long)strlen(b)), b);
	}
}

/* a field of the log: the maps applied (the directories' fixed names), tabs and newlines escaped */
static void
log_field(struct ab_buf *b, const char *s, const struct prefix_map *maps, size_t nmaps)
{
	char *m = nmaps ? map_definition(s, maps, nmaps) : NULL;

	ab_buf_add_shown(b, m ? m : s, strlen(m ? m : s));
	free(m);
}

/* the digest of a regular file, saying nothing when it is not one (-o /dev/null): the build's output is its own */
static int
quiet_hash(char hex[AB_HEX_LEN + 1], const char *path)
{
	struct ab_sha256 *h;
	struct stat st;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	h = ab_sha256_new();
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			ab_sha256_update(h, buf, (size_t)n);
	ab_sha256_final(hex, h);
	close(fd);
	return n < 0 ? -1 : 0;
}

/*
 * A per-call statistics log for a child ccache, made empty in /tmp by
 * mkstemp (the variant's logs directory is read-only in the build
 * sandbox: builder/isolation.h); NULL without a variant's log
 */
static char *
call_statslog(void)
{
	const char *log = getenv("CCACHE_STATSLOG");
	char *tmpl;
	int fd;

	if (!log || !*log)
		return NULL;
	tmpl = ab_strdup("/tmp/allocbuild-ccache-call.XXXXXX");
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		free(tmpl);
		return NULL;
	}
	close(fd);
	return tmpl;
}

/*
 * What ccache did for this call, from its own statistics log at calllog
 * (removed), whose lines go on to the variant's log in one write, as
 * ccache would have appended them: one of AB_CCSTATS_*
 */
static const char *
call_result(const char *calllog)
{
	const char *res = AB_CCSTATS_NONE, *log = getenv("CCACHE_STATSLOG");
	struct ab_buf b = {0};
	char buf[4096];
	ssize_t n;
	int fd = calllog ? open(calllog, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return res;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			ab_buf_add(&b, buf, (size_t)n);
	close(fd);
	unlink(calllog);
	if (b.len) {
		res = ab_ccstats_call_result(b.s, b.len);
		fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			(void)!write(fd, b.s, b.len);
			close(fd);
		}
	}
	ab_buf_free(&b);
	return res;
}

/*
 * Run the compiler, and when it succeeded append to the log a line
 *   SHA256 <tab> CWD <tab> OUTPUT <tab> SOURCE <tab> COMMAND <tab> CCACHE
 * (the object's digest; the paths with the variant's directories under
 * their fixed names, so that two builds in other directories compare;
 * what ccache did, AB_CCSTATS_*, from a statistics log of the call's own),
 * in one write, so that the compiles of a parallel build never mix.
 * Returns the compiler's exit status; a compiler killed by a signal
 * kills the wrapper by the same signal.
 */
static int
run_and_log(struct ab_strv *args, int argc, char **argv, const struct prefix_map *maps, size_t nmaps)
{
	const char *src;
	char *out, cwd[PATH_MAX], hex[AB_HEX_LEN + 1], *calllog = call_statslog();
	const char *res;
	struct ab_buf line = {0};
	int status, fd;
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "allocbuild: %s: cannot fork: %s\n", base_name(argv[0]), strerror(errno));
		if (calllog)
			unlink(calllog);
		free(calllog);
		return 126;
	}
	if (pid == 0) {
		if (calllog)
			setenv("CCACHE_STATSLOG", calllog, 1);
		execv(args->v[0], ab_strv_argv(args));
		fprintf(stderr, "allocbuild: %s: cannot run '%s': %s\n", base_name(argv[0]), args->v[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			free(calllog);
			return 126;
		}
	res = call_result(calllog);
	free(calllog);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status) != 0)
		return WEXITSTATUS(status);
	compile_files(argc, argv, &src, &out);
	if (out && getcwd(cwd, sizeof(cwd)) && quiet_hash(hex, out) == 0) {
		char *cmd = ab_argv_quote(argv);

		ab_buf_printf(&line, "%s\t", hex);
		log_field(&line, cwd, maps, nmaps);
		ab_buf_putc(&line, '\t');
		log_field(&line, out, maps, nmaps);
		ab_buf_putc(&line, '\t');
		log_field(&line, src ? src : "", maps, nmaps);
		ab_buf_putc(&line, '\t');
		log_field(&line, cmd, maps, nmaps);
		ab_buf_printf(&line, "\t%s\n", res);
		fd = open(getenv(AB_CCWRAP_LOG_ENV), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			(void)!write(fd, line.s, line.len);
			close(fd);
		}
		free(cmd);
	}
	ab_buf_free(&line);
	free(out);
	return 0;
}

int
ab_ccwrap_main(int argc, char **argv)
{
	const char *name = base_name(argv[0]), *path = getenv("PATH");
	enum tool_kind kind = tool_kind(name);
	struct ab_strv args = {0};
	struct stat me;
	char *real, *newpath = NULL;
	struct prefix_map *maps = NULL;
	size_t nmaps = 0;
	int key = -1, rc;

	if (stat("/proc/self/exe", &me) < 0) {
		fprintf(stderr, "allocbuild: %s: cannot find the wrapper itself: %s\n", name, strerror(errno));
		return 127;
	}
	real = find_real(&newpath, name, path ? path : "/usr/local/bin:/usr/bin:/bin", &me);
	if (!real) {
		fprintf(stderr, "allocbuild: %s: no '%s' in PATH besides the allocbuild wrapper\n", name, name);
		free(newpath);
		return 127;
	}
	ab_strv_push(&args, real);
	if (kind == TOOL_COMPILER && injected_flags(&args) < 0) {
		ab_strv_free(&args);
		free(real);
		free(newpath);
		return 2;
	}
	if (kind == TOOL_COMPILER)
		nmaps = prefix_maps(&maps, &args);
	if (kind == TOOL_AR)
		key = ar_key_index(argc, argv);
	if (kind == TOOL_RANLIB)
		ab_strv_push(&args, "-D");
	if (kind == TOOL_INSTALL && install_may_compare(argc, argv))
		ab_strv_push(&args, "-C");
	for (int i = 1; i < argc; i++) {
		/* -DNAME=VALUE, or -D and NAME=VALUE apart */
		int def = kind == TOOL_COMPILER && (!strncmp(argv[i], "-D", 2) || (i > 1 && !strcmp(argv[i - 1], "-D")));
		char *mapped = def && nmaps ? map_definition(argv[i], maps, nmaps) : NULL;

		if (mapped)
			ab_strv_push_owned(&args, mapped);
		else if (i == key)
			ab_strv_push_owned(&args, ar_deterministic_key(argv[i]));
		else if (kind == TOOL_RANLIB && (!strcmp(argv[i], "-U") || !strcmp(argv[i], "-D")))
			continue;
		else
			ab_strv_push(&args, argv[i]);
	}
	setenv("PATH", newpath, 1);
	/* a compile the build wants logged: run, hashed, then logged; anything else: exec'd */
	if (kind == TOOL_COMPILER && getenv(AB_CCWRAP_LOG_ENV) && *getenv(AB_CCWRAP_LOG_ENV) && is_compile(argc, argv)) {
		rc = run_and_log(&args, argc, argv, maps, nmaps);
	} else {
		execv(real, ab_strv_argv(&args));
		fprintf(stderr, "allocbuild: %s: cannot run '%s': %s\n", name, real, strerror(errno));
		rc = errno == ENOENT ? 127 : 126;
	}
	free(maps);
	ab_strv_free(&args);
	free(real);
	free(newpath);
	return rc;
}

/* ---- the links ---- */

/* the running binary, absolute, symbolic links resolved; NULL after a message */
static char *
self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n < 0) {
		ab_error_errno("cannot read '/proc/self/exe'");
		return NULL;
	}
	buf[n] = '\0';
	return ab_strdup(buf);
}

int
ab_ccwrap_install(const char *dir)
{
	char *self = self_path();
	int error = AB_EFAIL;

	if (!self || ab_mkdir_p(dir, 0755) < 0)
		goto done;
	for (size_t i = 0; ab_ccwrap_tools[i]; i++) {
		char *link = ab_path_join(dir, ab_ccwrap_tools[i]), *tmp;
		char have[PATH_MAX];
		ssize_t n = readlink(link, have, sizeof(have) - 1);
		int e = 0;

		if (n >= 0) {
			have[n] = '\0';
			if (!strcmp(have, self)) {
				free(link);
				continue;
			}
		}
		/* a new link beside it, renamed over it: a concurrent reader sees one or the other */
		tmp = ab_sprintf("%s.tmp.%ld", link, (long)getpid());
		unlink(tmp);
		if (symlink(self, tmp) < 0 || rename(tmp, link) < 0) {
			ab_error_errno("cannot create the compiler wrapper '%s'", link);
			unlink(tmp);
			e = AB_EFAIL;
		}
		free(tmp);
		free(link);
		if (e < 0)
			goto done;
	}
	error = 0;
done:
	free(self);
	return error;
}
