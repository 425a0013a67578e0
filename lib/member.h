/*
 * member: the rules that decide which archive members are accepted, one
 * copy for extraction by fetch (builder/extract.c) and for the archive
 * sides of upstream-diff and identify (provenance/tree/tree.c), so that an
 * archive one accepts is one the other accepts, refused in the same words
 * (docs/sources.md lists them). Every refusal is reported here, naming the
 * archive and the member as in the archive:
 *   allocbuild: archive 'x.tar': member 'pkg/../x': '..' in path
 *
 * Calling protocol, over the members in archive order:
 *   struct ab_member_set *seen = ab_member_set_new(archive, strip);
 *   for each member:
 *           ab_member_check(&type, archive, raw, entry)   name, type, mode
 *           norm = ab_member_normalise(raw)                "./a//b/" -> "a/b"
 *           rel = ab_member_strip(norm, strip)              NULL: skip the member
 *           ab_member_accept(&linked, &value, seen, &m)     against the members before
 *   ab_member_set_free(seen);
 * ab_member_check needs no other member, so a reader that learns the strip
 * only at the end of the archive (tree.c) runs it while reading and the
 * rest afterwards.
 */
#ifndef AB_MEMBER_H
#define AB_MEMBER_H

#include <stddef.h>

/* the most leading components a strip removes (a recipe's archive.strip, --strip) */
#define AB_MEMBER_STRIP_MAX 64

struct archive_entry;

enum ab_member_type {
	AB_MEMBER_FILE = 1,
	AB_MEMBER_DIR,
	AB_MEMBER_SYMLINK,
	AB_MEMBER_HARDLINK, /* whatever type its header says */
};

/* one member, as ab_member_accept checks it */
struct ab_member {
	const char *raw;          /* the name in the archive, for messages */
	const char *rel;          /* normalised, after the strip, not empty */
	enum ab_member_type type;
	const char *link;         /* symlink target or hard link name as in the archive, else NULL */
	size_t value;             /* the caller's, kept with rel (tree.c: its entry index) */
};

/* the members accepted so far, by name after the strip (opaque) */
struct ab_member_set;

/*
 * The checks of one member that need no other member and not the strip:
 * a name (raw: as in the archive, "" when it cannot be decoded) that is
 * empty, absolute or holds a '..' component; a device node, fifo, socket
 * or other unsupported type; the setuid or setgid bit. Sets *type (a hard
 * link is AB_MEMBER_HARDLINK whatever its header says). Reports and
 * returns -1 for a refused member.
 */
int ab_member_check(enum ab_member_type *type, const char *archive, const char *raw,
    struct archive_entry *entry);

/* "./a//b/" -> "a/b": without empty and "." components; "" when none is left; caller frees */
char *ab_member_normalise(const char *name);

/*
 * The normalised name without its first `strip` components (a pointer into
 * name), or NULL when nothing is left (like tar --strip-components).
 */
const char *ab_member_strip(const char *name, int strip);

/*
 * Whether a symlink at rel (normalised) with this target stays inside the
 * tree, counting from the link's directory: the target is relative,
 * non-empty, and '..' appears only as leading components (after a name,
 * 'dir/..' could climb out through a symlinked dir).
 */
int ab_member_symlink_inside(const char *rel, const char *target);

/*
 * The rules for a symlink at rel (normalised) with this target: it has a
 * target, the target is not absolute and stays inside the tree
 * (ab_member_symlink_inside). Reports "<what>: symlink to absolute path
 * '/etc'" (what: "archive 'x.tar': member 'a/b'", or what a patch made)
 * and returns -1 when refused. Shared by archive members and the files
 * a patch creates (builder/patch.c).
 */
int ab_member_check_symlink(const char *what, const char *rel, const char *target);

/* an empty set for one archive (named in messages) read with `strip`; free with ab_member_set_free */
struct ab_member_set *ab_member_set_new(const char *archive, int strip);
void ab_member_set_free(struct ab_member_set *s);

/*
 * Check m against the members accepted before it and record it. Refused:
 * a path through a symlink or a file member, a name seen before (except a
 * directory repeated), a file or symlink where earlier members have a
 * directory, a symlink without a target, to an absolute path or leaving
 * the tree, a hard link outside the tree or to anything but an earlier
 * file (or hard link). For a hard link, *linked is set to the name of the
 * file it names after the strip (owned by the set) and *value to that
 * file's value; either may be NULL. Reports and returns -1 for a refused
 * member.
 */
int ab_member_accept(const char **linked, size_t *value, struct ab_member_set *s, const struct ab_member *m);

#endif
