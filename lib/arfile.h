/*
 * arfile: the members of a Unix ar archive (a static library, GNU or BSD
 * long names), read from memory without copying. The archive is
 * untrusted input: a header or name that runs out of the archive is an
 * error, never a read outside it.
 *
 *   struct ab_ar ar;
 *   struct ab_ar_member m;
 *   ab_ar_init(&ar, data, size, "lib/libjemalloc_pic.a");
 *   while ((r = ab_ar_next(&ar, &m)) > 0)
 *           ... m.name, m.data, m.size ...
 *   r < 0: malformed (reported)
 *
 * The archive symbol table ("/" or "/SYM64/") and the GNU name table
 * ("//") are not members; every other entry is, in archive order (a name
 * may repeat).
 */
#ifndef AB_ARFILE_H
#define AB_ARFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define AB_AR_MAGIC "!<arch>\n"

struct ab_ar {
	const unsigned char *data;
	size_t size, pos;
	const char *names;    /* the GNU "//" table, when met */
	size_t names_size;
	const char *what;     /* for messages */
};

struct ab_ar_member {
	char name[256];       /* without GNU's trailing '/' */
	const unsigned char *data;
	size_t size;
	uint64_t mtime;
	unsigned uid, gid, mode;
};

/* is this the start of an ar archive? */
int ab_ar_is_ar(const void *data, size_t size);
/* start reading; data must stay valid; what names the archive in messages */
void ab_ar_init(struct ab_ar *ar, const void *data, size_t size, const char *what);
/* the next member: 1 one more, 0 the end, AB_EFAIL malformed (reported) */
int ab_ar_next(struct ab_ar *ar, struct ab_ar_member *m);
/*
 * An archive of members m[order[0]], m[order[1]], ... (order NULL: m's
 * own order) into out, as GNU ar D writes one: time, uid and gid 0, mode
 * 644, names longer than 15 bytes in a "//" table; no symbol table
 * (ranlib adds one). A name may not hold '/' or '\n'. 0, or AB_EFAIL
 * (reported, naming what).
 */
int ab_ar_write(struct ab_buf *out, const struct ab_ar_member *m, const size_t *order, size_t n, const char *what);

#endif
