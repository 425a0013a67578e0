#include "member.h"

#include <archive_entry.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strmap.h"
#include "util.h"

/* what the set knows of a name */
enum seen_type {
	SEEN_NONE,
	SEEN_FILE,    /* a file or a hard link */
	SEEN_DIR,     /* a directory member */
	SEEN_IMPLIED, /* a leading directory of members, not a member itself */
	SEEN_SYMLINK,
};

/* open addressing over names after the strip */
struct ab_member_set {
	char *archive;
	int strip;
	struct ab_strv keys;     /* every name seen, in order */
	unsigned char *types;    /* per key */
	size_t *values;
	size_t cap;              /* of types and values */
	struct ab_strmap index;  /* a key to its position */
};

/*
 * Report a refused member: "archive 'A': member 'R': " and the reason,
 * fmt holding at most one %s, for another name (a link's target, a
 * leading directory); every name escaped (ab_shown), as it is shown
 */
static void
refuse(const char *archive, const char *raw, const char *fmt, const char *name)
{
	char *a = ab_shown(archive), *r = ab_shown(raw), *n = ab_shown(name ? name : "");
	struct ab_buf b = {0};

	ab_buf_printf(&b, "archive '%s': member '%s': ", a, r);
	ab_buf_printf(&b, fmt, n);
	ab_error("%s", b.s);
	ab_buf_free(&b);
	free(a);
	free(r);
	free(n);
}

int
ab_member_check_symlink(const char *what, const char *rel, const char *target)
{
	char *t = ab_shown(target ? target : "");
	int error = -1;

	if (!target || !target[0])
		ab_error("%s: symlink without a target", what);
	else if (target[0] == '/')
		ab_error("%s: symlink to absolute path '%s'", what, t);
	else if (!ab_member_symlink_inside(rel, target))
		ab_error("%s: symlink points outside the tree ('%s')", what, t);
	else
		error = 0;
	free(t);
	return error;
}

int
ab_member_check(enum ab_member_type *type, const char *archive, const char *raw, struct archive_entry *entry)
{
	mode_t ft = archive_entry_filetype(entry), perm = archive_entry_perm(entry);

	if (!raw[0]) {
		char *a = ab_shown(archive);

		ab_error("archive '%s': a member has no name", a);
		free(a);
		return -1;
	}
	if (raw[0] == '/') {
		refuse(archive, raw, "absolute path%s", NULL);
		return -1;
	}
	if (!ab_path_is_safe_relative(raw)) {
		refuse(archive, raw, "'..' in path%s", NULL);
		return -1;
	}
	if (ft == AE_IFCHR || ft == AE_IFBLK) {
		refuse(archive, raw, "device node%s", NULL);
		return -1;
	}
	if (ft == AE_IFIFO) {
		refuse(archive, raw, "fifo%s", NULL);
		return -1;
	}
	if (ft == AE_IFSOCK) {
		refuse(archive, raw, "socket%s", NULL);
		return -1;
	}
	if (perm & (S_ISUID | S_ISGID)) {
		refuse(archive, raw, "setuid or setgid bit%s", NULL);
		return -1;
	}
	if (archive_entry_hardlink(entry)) {
		*type = AB_MEMBER_HARDLINK;
	} else if (ft == AE_IFREG) {
		*type = AB_MEMBER_FILE;
	} else if (ft == AE_IFDIR) {
		*type = AB_MEMBER_DIR;
	} else if (ft == AE_IFLNK) {
		*type = AB_MEMBER_SYMLINK;
	} else {
		refuse(archive, raw, "unsupported file type%s", NULL);
		return -1;
	}
	return 0;
}

char *
ab_member_normalise(const char *name)
{
	struct ab_buf b = {0};
	const char *s = name;

	while (*s) {
		size_t n = strcspn(s, "/");

		if (n && !(n == 1 && s[0] == '.')) {
			if (b.len)
				ab_buf_putc(&b, '/');
			ab_buf_add(&b, s, n);
		}
		s += n;
		while (*s == '/')
			s++;
	}
	return ab_buf_detach(&b);
}

const char *
ab_member_strip(const char *name, int strip)
{
	if (!*name)
		return NULL;
	while (strip-- > 0) {
		const char *slash = strchr(name, '/');

		if (!slash)
			return NULL;
		name = slash + 1;
	}
	return name;
}

int
ab_member_symlink_inside(const char *rel, const char *target)
{
	int depth = 0, named = 0;
	const char *s = target;

	for (const char *p = rel; *p; p++)
		if (*p == '/')
			depth++;
	if (!target[0] || target[0] == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (named || --depth < 0)
				return 0;
		} else if (n && !(n == 1 && s[0] == '.')) {
			named = 1;
		}
		s += n;
		while (*s == '/')
			s++;
	}
	return 1;
}

struct ab_member_set *
ab_member_set_new(const char *archive, int strip)
{
	struct ab_member_set *s = ab_calloc(1, sizeof(*s));

	s->archive = ab_strdup(archive);
	s->strip = strip;
	return s;
}

void
ab_member_set_free(struct ab_member_set *s)
{
	if (!s)
		return;
	ab_strmap_free(&s->index);
	ab_strv_free(&s->keys);
	free(s->types);
	free(s->values);
	free(s->archive);
	free(s);
}

/* the type recorded for key; its value and stored name too when asked */
static enum seen_type
get(const struct ab_member_set *s, const char *key, size_t *value, const char **stored)
{
	size_t i;

	if (!ab_strmap_get(&s->index, key, &i))
		return SEEN_NONE;
	if (value)
		*value = s->values[i];
	if (stored)
		*stored = s->keys.v[i];
	return s->types[i];
}

static void
put(struct ab_member_set *s, const char *key, enum seen_type type, size_t value)
{
	size_t i;

	if (!ab_strmap_get(&s->index, key, &i)) {
		i = s->keys.n;
		ab_strv_push(&s->keys, key);
		if (s->keys.n > s->cap) {
			s->cap = s->cap ? 2 * s->cap : 1024;
			s->types = ab_realloc(s->types, s->cap * sizeof(*s->types));
			s->values = ab_realloc(s->values, s->cap * sizeof(*s->values));
		}
		ab_strmap_put(&s->index, s->keys.v[i], i);
	}
	s->types[i] = (unsigned char)type;
	s->values[i] = value;
}

/* every leading directory of rel: a symlink or a file cannot hold members */
static int
accept_parents(struct ab_member_set *s, const struct ab_member *m)
{
	char *p = ab_strdup(m->rel);
	int error = -1;

	for (char *slash = strchr(p, '/'); slash; slash = strchr(slash + 1, '/')) {
		enum seen_type prev;

		*slash = '\0';
		prev = get(s, p, NULL, NULL);
		if (prev == SEEN_SYMLINK) {
			refuse(s->archive, m->raw, "path goes through symlink '%s'", p);
			goto done;
		}
		if (prev == SEEN_FILE) {
			refuse(s->archive, m->raw, "path goes through file '%s'", p);
			goto done;
		}
		if (prev == SEEN_NONE)
			put(s, p, SEEN_IMPLIED, SIZE_MAX);
		*slash = '/';
	}
	error = 0;
done:
	free(p);
	return error;
}

static int
accept_symlink(const struct ab_member_set *s, const struct ab_member *m)
{
	char *a = ab_shown(s->archive), *r = ab_shown(m->raw);
	char *what = ab_sprintf("archive '%s': member '%s'", a, r);
	int error = ab_member_check_symlink(what, m->rel, m->link);

	free(what);
	free(a);
	free(r);
	return error;
}

static int
accept_hardlink(const char **linked, size_t *value, const struct ab_member_set *s, const struct ab_member *m)
{
	const char *link = m->link ? m->link : "", *target;
	char *norm;
	int ok;

	if (link[0] == '/' || !ab_path_is_safe_relative(link)) {
		refuse(s->archive, m->raw, "hard link to '%s' outside the tree", link);
		return -1;
	}
	norm = ab_member_normalise(link);
	target = ab_member_strip(norm, s->strip);
	ok = target && get(s, target, value, linked) == SEEN_FILE;
	free(norm);
	if (!ok) {
		refuse(s->archive, m->raw, "hard link to '%s', which is not an earlier file", link);
		return -1;
	}
	return 0;
}

int
ab_member_accept(const char **linked, size_t *value, struct ab_member_set *s, const struct ab_member *m)
{
	enum seen_type prev;

	if (accept_parents(s, m) < 0)
		return -1;
	prev = get(s, m->rel, NULL, NULL);
	if (prev == SEEN_IMPLIED && m->type != AB_MEMBER_DIR) {
		/* extraction would find the directory there and drop the member */
		refuse(s->archive, m->raw, "earlier members use it as a directory%s", NULL);
		return -1;
	}
	if (prev && !(m->type == AB_MEMBER_DIR && (prev == SEEN_DIR || prev == SEEN_IMPLIED))) {
		refuse(s->archive, m->raw, "duplicate member%s", NULL);
		return -1;
	}
	if (m->type == AB_MEMBER_SYMLINK && accept_symlink(s, m) < 0)
		return -1;
	if (m->type == AB_MEMBER_HARDLINK && accept_hardlink(linked, value, s, m) < 0)
		return -1;
	put(s, m->rel, m->type == AB_MEMBER_DIR ? SEEN_DIR : m->type == AB_MEMBER_SYMLINK ? SEEN_SYMLINK : SEEN_FILE,
	    m->value);
	return 0;
}
