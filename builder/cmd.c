/* cmd: helpers shared by the subcommands (kept out of main.c so that any
 * object linking a cmd_*.c file, unit tests included, has them) */
#include "cmd.h"

#include <stdarg.h>

#include "util.h"

int
ab_cmd_usage_error(const char *name, const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ab_error("%s: %s", name, b.s);
	fprintf(stderr, "Try 'allocbuild help %s'.\n", name);
	ab_buf_free(&b);
	return AB_EXIT_USAGE;
}
