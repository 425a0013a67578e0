#include "lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ab_lazy *loaded; /* with a fini, most recent first (under lazy_lock) */

/* report once, after "CONTEXT: " when there is one */
static void lazy_error(const char *context, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
lazy_error(const char *context, const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ab_error("%s%s%s", context ? context : "", context ? ": " : "", b.s);
	ab_buf_free(&b);
}

/* name in l's library, or NULL after reporting (under lazy_lock) */
static void *
lazy_sym(struct ab_lazy *l, const char *name, const char *context)
{
	void *p = dlsym(l->handle, name);

	if (!p)
		lazy_error(context, "cannot load %s: it has no %s (a version other than the one "
		    "allocbuild was built with?)", l->soname, name);
	return p;
}

/* the functions, the init and the fini of l, then the init called: 0, or AB_EFAIL after reporting */
static int
lazy_resolve(struct ab_lazy *l, void **fns, const char *context)
{
	int (*init)(void) = NULL;
	int rc;

	for (size_t i = 0; i < l->n; i++)
		if (!(fns[i] = lazy_sym(l, l->names[i], context)))
			return AB_EFAIL;
	if (l->init && !(init = (int (*)(void))lazy_sym(l, l->init, context)))
		return AB_EFAIL;
	if (l->fini && !(l->fini_fn = (int (*)(void))lazy_sym(l, l->fini, context)))
		return AB_EFAIL;
	if (init && (rc = init()) < 0) {
		lazy_error(context, "cannot start %s: %s failed (%d)", l->soname, l->init, rc);
		return AB_EFAIL;
	}
	return 0;
}

int
ab_lazy_load(struct ab_lazy *l, const char *context)
{
	int error = 0;

	if (atomic_load_explicit(&l->ready, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&lazy_lock);
	if (l->failed && !context) {
		/* reported already: another thread is on its way out (ab_lazy_fn) */
		error = AB_EFAIL;
	} else if (!atomic_load_explicit(&l->ready, memory_order_relaxed)) {
		void **fns = NULL;

		if (!*l->soname) {
			/* the Makefile's readelf found no SONAME */
			lazy_error(context, "cannot load %s: allocbuild was built without its file name", l->package);
			error = AB_EFAIL;
		} else if (!l->handle && !(l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL))) {
			lazy_error(context, "cannot load %s (%s; Debian: apt-get install %s)", l->soname, dlerror(),
			    l->package);
			error = AB_EFAIL;
		}
		if (!error) {
			fns = ab_calloc(l->n ? l->n : 1, sizeof(*fns));
			error = lazy_resolve(l, fns, context);
		}
		if (error) {
			free(fns);
			l->failed = 1;
		} else {
			l->fns = fns;
			if (l->fini) {
				l->next_loaded = loaded;
				loaded = l;
			}
			atomic_store_explicit(&l->ready, 1, memory_order_release);
		}
	}
	pthread_mutex_unlock(&lazy_lock);
	return error;
}

void
ab_lazy_finish(void)
{
	pthread_mutex_lock(&lazy_lock);
	for (struct ab_lazy *l = loaded; l; l = l->next_loaded) {
		l->fini_fn();
		atomic_store_explicit(&l->ready, 0, memory_order_release);
		free(l->fns);
		l->fns = NULL;
	}
	loaded = NULL;
	pthread_mutex_unlock(&lazy_lock);
}

void *
ab_lazy_fn(struct ab_lazy *l, size_t i)
{
	if (!atomic_load_explicit(&l->ready, memory_order_acquire) && ab_lazy_load(l, NULL) < 0) {
		/*
		 * _exit, not exit: this may be a pool's worker (upstream-diff
		 * reads its two sides in parallel), and exit would run the
		 * atexit handlers and destructors under the threads still running
		 */
		fflush(stdout);
		_exit(AB_EXIT_USAGE);
	}
	return l->fns[i];
}
