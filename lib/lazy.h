/*
 * lazy: a shared library loaded when one of its functions is first
 * called, rather than linked. Linked, libgit2 and libarchive and the
 * twenty-five libraries they need (TLS, SSH, Kerberos, XML with ICU and
 * the C++ runtime) were mapped and relocated at every start of allocbuild:
 * about 5 of the 7 ms a start took, paid by every command, every run of
 * `allocbuild run` and every compile through the compiler wrapper, most of
 * which never touch a repository or an archive.
 *
 * lib/lazy_git2.c and lib/lazy_archive.c are generated (`make lazy`,
 * scripts/gen-lazy.py): one function for each library function allocbuild
 * calls, with the library's own prototype (the compiler checks it against
 * the header), forwarding to the real one. The first call loads the
 * library and every name at once (thread-safe); a library or a name that
 * cannot be loaded is reported, naming the Debian package, and allocbuild
 * exits with 2 (the environment failed), since a forwarder cannot return
 * an error of its own. builder/download.c loads libcurl with ab_lazy_load,
 * which reports (in the caller's context) and returns instead, so that
 * allocbuild without libcurl still runs when nothing is downloaded.
 *
 * A library that must be initialised before its first call (libgit2:
 * git_libgit2_init, which also reads the system's CA certificates) names
 * its init function: the loader calls it once, right after loading, so no
 * command initialises libgit2 that never uses it. Its fini function
 * (git_libgit2_shutdown) is called by ab_lazy_finish at the end of main,
 * only when the library was loaded.
 */
#ifndef AB_LAZY_H
#define AB_LAZY_H

#include <stdatomic.h>
#include <stddef.h>

struct ab_lazy {
	const char *soname;       /* for dlopen: "libgit2.so.1.5" */
	const char *package;      /* the Debian package that has it, for the message */
	const char *const *names; /* the functions to look up */
	size_t n;
	const char *init;         /* int (void), called once when loaded (a negative return: cannot load), or NULL */
	const char *fini;         /* int (void), called by ab_lazy_finish when loaded, or NULL */
	/* private */
	atomic_int ready;
	int failed;               /* a load failed and was reported (under the loader's lock) */
	void *handle;
	void **fns;
	int (*fini_fn)(void);
	struct ab_lazy *next_loaded; /* the loaded ones with a fini, most recent first */
};

/* load l and look up every name (once); 0, or AB_EFAIL after reporting, after "CONTEXT: " if not NULL */
int ab_lazy_load(struct ab_lazy *l, const char *context);
/* function i of l, loading l first; when it cannot, reports and _exits with 2 (from any thread) */
void *ab_lazy_fn(struct ab_lazy *l, size_t i);
/*
 * The fini of every library loaded, most recent first (the end of main:
 * no other thread runs); a later call would load and init it again.
 */
void ab_lazy_finish(void);

#endif
