/*
 * hostprobe: what jemalloc's configure measured on the build host
 * (docs/build.md, "Host probes"). Unless a recipe pins them, configure
 * runs a program for the page size (LG_PAGE), reads the virtual address
 * bits from CPUID on x86-64 (LG_VADDR: 48, or 57 with 5-level paging)
 * and the huge page size from /proc/meminfo (LG_HUGEPAGE), and bakes
 * them into the library: two hosts that measure differently build
 * different bytes from the same recipe.
 *
 * ab_hostprobe_jemalloc() finds the jemalloc_internal_defs.h a build
 * generated (include/jemalloc/internal/ of an autotools build directory,
 * or of an ExternalProject's <name>-prefix/src/<name>-build/ inside a
 * CMake build directory, as Fluent Bit's) and records
 *   {"header": "<path relative to the build directory>",
 *    "LG_PAGE": 12, "LG_HUGEPAGE": 21, "LG_VADDR": 48,
 *    "pinned": ["--with-lg-page=12", ...]}   the options of the configure
 *                                             line in config.log that set them
 * A value the header does not define is null.
 */
#ifndef AB_HOSTPROBE_H
#define AB_HOSTPROBE_H

#include <cjson/cJSON.h>

/* the names recorded, NULL-terminated: LG_PAGE, LG_HUGEPAGE, LG_VADDR */
extern const char *const ab_hostprobe_names[];

/* the record of the jemalloc built in build_dir into *out, NULL when there is none; AB_EFAIL reported */
int ab_hostprobe_jemalloc(cJSON **out, const char *build_dir);
/* the values that differ between records a and b, as "NAME: A -> B" strings onto a new array */
cJSON *ab_hostprobe_diff(const cJSON *a, const cJSON *b);

#endif
