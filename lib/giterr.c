/*
 * ab_error_git (declared in lib/util.h): libgit2's last error after the
 * message. Apart from lib/util, which calls no libgit2 function: libgit2's
 * functions are lib/lazy_git2.c's forwarders, which lib/lazy builds on
 * lib/util.
 */
#include <git2.h>
#include <stdarg.h>

#include "util.h"

void
ab_error_git(const char *fmt, ...)
{
	const git_error *ge = git_error_last();
	struct ab_buf msg = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	ab_error("%s: %s", msg.s ? msg.s : "", ge && ge->message ? ge->message : "unknown libgit2 error");
	ab_buf_free(&msg);
}
