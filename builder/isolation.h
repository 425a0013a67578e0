/*
 * isolation: where a variant's steps run (docs/build.md, "Sandbox").
 *
 * Every step that runs build-system code (prepare commands, configure,
 * cmake, make, cmake --build, cargo, a relink's link, the probe runs of
 * built programs) runs in the build sandbox (lib/sandbox.h) where the
 * variant's trees always have the same names, whatever directory OUTDIR
 * really is:
 *
 *   /allocbuild/src        its source tree             OUTDIR/variants/L/src        read-write
 *   /allocbuild/build      its build tree              OUTDIR/variants/L/build      read-write
 *                          (a relink: its from variant's build tree)
 *   /allocbuild/logs       its logs                     OUTDIR/variants/L/logs       read-only
 *                          but for the files its steps write there (the compile
 *                          log, ccache's statistics), each bound alone  read-write
 *   /allocbuild/probe      its probe programs          OUTDIR/variants/L/probe      read-write
 *   /allocbuild/variants   every variant's directory   OUTDIR/variants              read-only
 *                          ({variant:LABEL:PATH} is /allocbuild/variants/LABEL/build/PATH)
 *   /allocbuild/ccwrap     the compiler wrapper's links to /allocbuild/bin/allocbuild
 *   /allocbuild/bin        allocbuild itself                                        read-only
 *   /allocbuild/ccache     ccache's local cache (--ccache)                          read-write
 *   /allocbuild/net        the sockets of the remote compile cache (--ccache-remote)
 *   /allocbuild/home       HOME, empty
 *
 * on top of the host's system directories (read-only), a private /tmp, no
 * network, its own PID namespace, and an environment of its own: PATH
 * (the wrapper's and ccache's directories, then AB_SANDBOX_PATH), HOME,
 * LC_ALL, TZ and what the recipe and allocbuild set, nothing else of the
 * caller's (ab_env_sandboxed).
 */
#ifndef AB_ISOLATION_H
#define AB_ISOLATION_H

#include "../lib/netfwd.h"
#include "../lib/sandbox.h"

#define AB_FIXED_ROOT "/allocbuild"
#define AB_FIXED_SRC "/allocbuild/src"
#define AB_FIXED_BUILD "/allocbuild/build"
#define AB_FIXED_LOGS "/allocbuild/logs"
#define AB_FIXED_PROBE "/allocbuild/probe"
#define AB_FIXED_VARIANTS "/allocbuild/variants"
#define AB_FIXED_CCWRAP "/allocbuild/ccwrap"
#define AB_FIXED_BIN "/allocbuild/bin/allocbuild"
#define AB_FIXED_CCACHE "/allocbuild/ccache"
#define AB_FIXED_NET "/allocbuild/net"
#define AB_FIXED_HOME "/allocbuild/home"

/* the real directories a variant's sandbox shows; NULL members are left out */
struct ab_isolation_dirs {
	const char *variants;   /* OUTDIR/variants */
	const char *src, *build, *logs, *probe;
	const char *const *log_files; /* the files of logs its steps write, NULL-terminated (they must exist) */
	const char *self;       /* the allocbuild binary (the wrapper's target) */
	const char *ccache;     /* ccache's local cache directory, with --ccache */
	const char *const *tools; /* more read-only files or directories at their own paths (a recipe's cargo: the file alone), NULL-terminated */
};

/* the sandbox of a variant's steps, as above, onto sb */
void ab_isolation_variant(struct ab_sandbox *sb, const struct ab_isolation_dirs *d);
/*
 * Make each of names (NULL-terminated) an empty regular file in logs, as
 * the sandbox binds them: before a variant's first step. A name already
 * there that is not a regular file (a link) is replaced. 0, or AB_EFAIL
 * (reported).
 */
int ab_isolation_log_files(const char *logs, const char *const *names);
/* a source tree alone at /allocbuild/src (prepare commands, fetch's trees) */
void ab_isolation_source(struct ab_sandbox *sb, const char *src);
/* "/allocbuild/variants/LABEL/build/PATH"; caller frees */
char *ab_isolation_artifact(const char *label, const char *path);

/*
 * A remote compile cache as a sandboxed ccache reaches it (lib/netfwd.h):
 * ccache's CCACHE_REMOTE_STORAGE value (URLs apart by spaces, each with
 * its |attributes) with every redis:// and http:// address replaced by
 * 127.0.0.1:AB_NETFWD_PORT+i, its path and its attributes but the secret
 * ones kept, its user information and query dropped: the credentials stay
 * with the relay (lib/cacheproto.h); the remotes onto targets (release
 * with ab_isolation_targets_free);
 * the paths of file: and redis+unix: storages onto paths, to be shown
 * in the sandbox where they are. Caller frees the result.
 */
char *ab_isolation_remote(const char *urls, struct ab_cacheproto_remote **targets, size_t *ntargets,
    struct ab_strv *paths);
void ab_isolation_targets_free(struct ab_cacheproto_remote *t, size_t n);
/* the sandbox's first process for n forwarded addresses, onto sb (and its link to allocbuild) */
void ab_isolation_net(struct ab_sandbox *sb, const char *net, size_t n);

#endif
