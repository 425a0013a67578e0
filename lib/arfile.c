#include "arfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define HDR 60

int
ab_ar_is_ar(const void *data, size_t size)
{
	return size >= 8 && !memcmp(data, AB_AR_MAGIC, 8);
}

void
ab_ar_init(struct ab_ar *ar, const void *data, size_t size, const char *what)
{
	memset(ar, 0, sizeof(*ar));
	ar->data = data;
	ar->size = size;
	ar->pos = ab_ar_is_ar(data, size) ? 8 : size;
	ar->what = what;
}

/* a decimal (or octal) header field of n bytes, space padded */
static int
field(uint64_t *out, const unsigned char *p, size_t n, int base)
{
	uint64_t v = 0;
	size_t i = 0;
	int any = 0;

	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] != ' '; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (d >= (unsigned)base || v > (UINT64_MAX - d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + d;
		any = 1;
	}
	for (; i < n; i++)
		if (p[i] != ' ')
			return -1;
	*out = any ? v : 0;
	return 0;
}

static int
bad(const struct ab_ar *ar, const char *what)
{
	ab_error("archive '%s': malformed at byte %zu: %s", ar->what, ar->pos, what);
	return AB_EFAIL;
}

/* the member's name from its header (GNU "name/", "/N" into "//", BSD "#1/N"); *skip: BSD name bytes */
static int
member_name(struct ab_ar *ar, struct ab_ar_member *m, const unsigned char *h, size_t body, size_t *skip)
{
	size_t n = 16;

	*skip = 0;
	while (n > 0 && h[n - 1] == ' ')
		n--;
	if (n >= 2 && h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
		uint64_t off;
		size_t len = 0;

		if (field(&off, h + 1, 15, 10) < 0 || !ar->names || off >= ar->names_size)
			return bad(ar, "long name outside the name table");
		while (off + len < ar->names_size && ar->names[off + len] != '\n')
			len++;
		if (len && ar->names[off + len - 1] == '/')
			len--;
		if (len >= sizeof(m->name))
			return bad(ar, "name too long");
		memcpy(m->name, ar->names + off, len);
		m->name[len] = '\0';
		return 0;
	}
	if (n > 3 && !memcmp(h, "#1/", 3)) {
		uint64_t len;

		if (field(&len, h + 3, 13, 10) < 0 || len > body || len >= sizeof(m->name))
			return bad(ar, "BSD name outside the member");
		memcpy(m->name, h + HDR, (size_t)len);
		m->name[len] = '\0';
		m->name[strnlen(m->name, (size_t)len)] = '\0';
		*skip = (size_t)len;
		return 0;
	}
	if (n > 0 && h[n - 1] == '/')
		n--;
	memcpy(m->name, h, n);
	m->name[n] = '\0';
	return 0;
}

int
ab_ar_next(struct ab_ar *ar, struct ab_ar_member *m)
{
	for (;;) {
		const unsigned char *h;
		uint64_t size, v;
		size_t skip;

		if (ar->pos & 1)
			ar->pos++; /* members start at even offsets */
		if (ar->pos >= ar->size)
			return 0;
		if (ar->size - ar->pos < HDR)
			return bad(ar, "truncated member header");
		h = ar->data + ar->pos;
		if (h[58] != '`' || h[59] != '\n')
			return bad(ar, "bad member header");
		if (field(&size, h + 48, 10, 10) < 0 || size > ar->size - ar->pos - HDR)
			return bad(ar, "member size outside the archive");
		memset(m, 0, sizeof(*m));
		if (!memcmp(h, "/               ", 16) || !memcmp(h, "/SYM64/         ", 16) ||
		    !memcmp(h, "__.SYMDEF", 9)) {
			ar->pos += HDR + (size_t)size;
			continue;
		}
		if (!memcmp(h, "//              ", 16)) {
			ar->names = (const char *)h + HDR;
			ar->names_size = (size_t)size;
			ar->pos += HDR + (size_t)size;
			continue;
		}
		if (member_name(ar, m, h, (size_t)size, &skip) < 0)
			return AB_EFAIL;
		if (field(&m->mtime, h + 16, 12, 10) < 0)
			return bad(ar, "bad member time");
		if (field(&v, h + 28, 6, 10) < 0)
			return bad(ar, "bad member uid");
		m->uid = (unsigned)v;
		if (field(&v, h + 34, 6, 10) < 0)
			return bad(ar, "bad member gid");
		m->gid = (unsigned)v;
		if (field(&v, h + 40, 8, 8) < 0)
			return bad(ar, "bad member mode");
		m->mode = (unsigned)v;
		m->data = h + HDR + skip;
		m->size = (size_t)size - skip;
		ar->pos += HDR + (size_t)size;
		return 1;
	}
}

/* a header field: v in base, left-aligned, space padded to n bytes */
static void
put_field(struct ab_buf *out, uint64_t v, size_t n, int base)
{
	char t[24];
	int len = snprintf(t, sizeof(t), base == 8 ? "%llo" : "%llu", (unsigned long long)v);

	ab_buf_add(out, t, (size_t)len);
	for (size_t i = (size_t)len; i < n; i++)
		ab_buf_add(out, " ", 1);
}

static void
put_header(struct ab_buf *out, const char *name16, uint64_t size, unsigned mode)
{
	size_t n = strlen(name16);

	ab_buf_add(out, name16, n);
	for (size_t i = n; i < 16; i++)
		ab_buf_add(out, " ", 1);
	if (!strcmp(name16, "//")) {
		/* the name table: only its size, as GNU ar writes it */
		for (size_t i = 0; i < 32; i++)
			ab_buf_add(out, " ", 1);
	} else {
		put_field(out, 0, 12, 10); /* time */
		put_field(out, 0, 6, 10);  /* uid */
		put_field(out, 0, 6, 10);  /* gid */
		put_field(out, mode, 8, 8);
	}
	put_field(out, size, 10, 10);
	ab_buf_add(out, "`\n", 2);
}

int
ab_ar_write(struct ab_buf *out, const struct ab_ar_member *m, const size_t *order, size_t n, const char *what)
{
	struct ab_buf names = {0};
	size_t *off = ab_calloc(n ? n : 1, sizeof(*off));

	for (size_t i = 0; i < n; i++) {
		if (!m[i].name[0] || strchr(m[i].name, '/') || strchr(m[i].name, '\n')) {
			ab_error("archive '%s': member name '%s' cannot be written", what, m[i].name);
			free(off);
			ab_buf_free(&names);
			return AB_EFAIL;
		}
		off[i] = names.len;
		if (strlen(m[i].name) > 15)
			ab_buf_printf(&names, "%s/\n", m[i].name);
	}
	ab_buf_add(out, AB_AR_MAGIC, 8);
	if (names.len) {
		put_header(out, "//", names.len, 0);
		ab_buf_add(out, names.s, names.len);
		if (names.len & 1)
			ab_buf_add(out, "\n", 1);
	}
	for (size_t k = 0; k < n; k++) {
		const struct ab_ar_member *e = &m[order ? order[k] : k];
		char name[20];

		if (strlen(e->name) > 15)
			snprintf(name, sizeof(name), "/%zu", off[order ? order[k] : k]);
		else
			snprintf(name, sizeof(name), "%s/", e->name);
		put_header(out, name, e->size, 0644);
		ab_buf_add(out, e->data, e->size);
		if (e->size & 1)
			ab_buf_add(out, "\n", 1);
	}
	free(off);
	ab_buf_free(&names);
	return 0;
}
