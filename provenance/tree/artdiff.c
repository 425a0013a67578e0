#include "artdiff.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/arfile.h"
#include "../../lib/elffile.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"

#define SHT_NOBITS_ 8

/* ---- fingerprints ---- */

static void
add_part(cJSON *arr, const char *name, const void *data, size_t size, int have_bytes)
{
	cJSON *p = cJSON_CreateObject();
	char hex[AB_HEX_LEN + 1];

	cJSON_AddStringToObject(p, "name", name);
	cJSON_AddNumberToObject(p, "size", (double)size);
	if (have_bytes) {
		ab_hash_buf(hex, data, size);
		cJSON_AddStringToObject(p, "sha256", hex);
	} else {
		cJSON_AddNullToObject(p, "sha256");
	}
	cJSON_AddItemToArray(arr, p);
}

/* the sections of an ELF image with their digests onto arr */
static void
elf_sections(cJSON *arr, const struct ab_elf *e)
{
	for (size_t i = 0; i < e->nsections; i++) {
		const struct ab_elf_section *s = &e->sections[i];
		const unsigned char *d = s->type == SHT_NOBITS_ ? NULL : ab_elf_section_data(e, s);

		/* section 0 is the null section */
		if (i == 0 && !s->name[0] && !s->size)
			continue;
		add_part(arr, s->name, d, (size_t)s->size, d != NULL);
	}
}

static int
ar_fingerprint(cJSON **out, const struct ab_buf *b, const char *path)
{
	struct ab_ar ar;
	struct ab_ar_member m;
	cJSON *doc = cJSON_CreateObject(), *members;
	int r;

	cJSON_AddStringToObject(doc, "format", "ar");
	members = cJSON_AddArrayToObject(doc, "members");
	ab_ar_init(&ar, b->s, b->len, path);
	while ((r = ab_ar_next(&ar, &m)) > 0) {
		add_part(members, m.name, m.data, m.size, 1);
		if (m.mtime || m.uid || m.gid || (m.mode & 0777) != 0644) {
			char *h = ab_sprintf("mtime %llu uid %u gid %u mode %o", (unsigned long long)m.mtime, m.uid, m.gid, m.mode);

			cJSON_AddStringToObject(cJSON_GetArrayItem(members, cJSON_GetArraySize(members) - 1), "header", h);
			free(h);
		}
	}
	if (r < 0) {
		cJSON_Delete(doc);
		return AB_EFAIL;
	}
	*out = doc;
	return 0;
}

int
ab_artdiff_fingerprint(cJSON **out, const char *path)
{
	struct ab_buf b = {0};
	struct ab_elf *e = NULL;
	int r;

	*out = NULL;
	if (ab_read_file(&b, path) < 0)
		return AB_EFAIL;
	if (ab_ar_is_ar(b.s, b.len)) {
		r = ar_fingerprint(out, &b, path);
		ab_buf_free(&b);
		return r;
	}
	r = ab_elf_is_elf(b.s, b.len) ? ab_elf_open_mem(&e, b.s, b.len, path) : 1;
	if (r == 0) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "format", "elf");
		elf_sections(cJSON_AddArrayToObject(doc, "sections"), e);
		ab_elf_close(e);
		*out = doc;
	}
	ab_buf_free(&b);
	return r < 0 ? AB_EFAIL : 0;
}

/* ---- comparing ---- */

/* the k-th (from 0) part named name in arr, or NULL */
static const cJSON *
nth_named(const cJSON *arr, const char *name, int k)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr) {
		const char *n = ab_json_str(it, "name");

		if (n && !strcmp(n, name) && k-- == 0)
			return it;
	}
	return NULL;
}

/* how many parts before it in arr share the name of it */
static int
occurrence(const cJSON *arr, const cJSON *it)
{
	const cJSON *x;
	int k = 0;

	cJSON_ArrayForEach(x, arr) {
		if (x == it)
			break;
		if (!strcmp(ab_json_str(x, "name"), ab_json_str(it, "name")))
			k++;
	}
	return k;
}

static int
same_part(const cJSON *x, const cJSON *y)
{
	const char *hx = ab_json_str(x, "sha256"), *hy = ab_json_str(y, "sha256");
	const char *ex = ab_json_str(x, "header"), *ey = ab_json_str(y, "header");
	const cJSON *sx = ab_json_get(x, "size"), *sy = ab_json_get(y, "size");

	if (!cJSON_IsNumber(sx) || !cJSON_IsNumber(sy) || sx->valuedouble != sy->valuedouble)
		return 0;
	if ((hx == NULL) != (hy == NULL) || (hx && strcmp(hx, hy)))
		return 0;
	return (ex == NULL) == (ey == NULL) && (!ex || !strcmp(ex, ey));
}

/* {differ, missing, extra} of two part lists */
static cJSON *
compare_parts(const cJSON *a, const cJSON *b, int *any)
{
	cJSON *d = cJSON_CreateObject(), *differ = cJSON_AddArrayToObject(d, "differ");
	cJSON *missing = cJSON_AddArrayToObject(d, "missing"), *extra = cJSON_AddArrayToObject(d, "extra");
	const cJSON *it;

	cJSON_ArrayForEach(it, a) {
		const char *name = ab_json_str(it, "name");
		const cJSON *other;

		if (!name)
			continue;
		other = nth_named(b, name, occurrence(a, it));
		if (!other)
			cJSON_AddItemToArray(missing, cJSON_CreateString(name));
		else if (!same_part(it, other))
			cJSON_AddItemToArray(differ, cJSON_CreateString(name));
	}
	cJSON_ArrayForEach(it, b) {
		const char *name = ab_json_str(it, "name");

		if (name && !nth_named(a, name, occurrence(b, it)))
			cJSON_AddItemToArray(extra, cJSON_CreateString(name));
	}
	*any = cJSON_GetArraySize(differ) + cJSON_GetArraySize(missing) + cJSON_GetArraySize(extra) > 0;
	return d;
}

/* the sections of the member named name (its k-th) of the archive at path, NULL when unreadable */
static cJSON *
member_sections(const char *path, const char *name, int k)
{
	struct ab_buf b = {0};
	struct ab_ar ar;
	struct ab_ar_member m;
	cJSON *arr = NULL;

	ab_report_mute();
	if (ab_read_file(&b, path) == 0) {
		ab_ar_init(&ar, b.s, b.len, path);
		while (ab_ar_next(&ar, &m) > 0) {
			struct ab_elf *e;

			if (strcmp(m.name, name) || k-- > 0)
				continue;
			if (ab_elf_is_elf(m.data, m.size) && ab_elf_open_mem(&e, m.data, m.size, name) == 0) {
				arr = cJSON_CreateArray();
				elf_sections(arr, e);
				ab_elf_close(e);
			}
			break;
		}
	}
	ab_report_unmute();
	ab_buf_free(&b);
	return arr;
}

/* the sections that differ in each differing member, when both archives are at hand */
static void
add_member_sections(cJSON *diff, const cJSON *a, const char *path_a, const char *path_b)
{
	const cJSON *it, *members = ab_json_get(a, "members");
	cJSON *ms = NULL;

	cJSON_ArrayForEach(it, ab_json_get(ab_json_get(diff, "members"), "differ")) {
		const cJSON *part = NULL, *x;
		int k = 0, any = 0;
		cJSON *sa, *sb, *d;

		/* which occurrence: the first differing one of that name is enough to show */
		cJSON_ArrayForEach(x, members)
			if (!strcmp(ab_json_str(x, "name"), it->valuestring)) {
				part = x;
				break;
			}
		if (!part)
			continue;
		k = occurrence(members, part);
		sa = member_sections(path_a, it->valuestring, k);
		sb = member_sections(path_b, it->valuestring, k);
		if (sa && sb) {
			d = compare_parts(sa, sb, &any);
			if (!ms)
				ms = cJSON_AddObjectToObject(diff, "member_sections");
			{
				cJSON *names = cJSON_CreateArray();
				const char *lists[] = {"differ", "missing", "extra"};

				for (size_t i = 0; i < 3; i++)
					cJSON_ArrayForEach(x, ab_json_get(d, lists[i]))
						cJSON_AddItemToArray(names, cJSON_CreateString(x->valuestring));
				cJSON_AddItemToObject(ms, it->valuestring, names);
			}
			cJSON_Delete(d);
		}
		cJSON_Delete(sa);
		cJSON_Delete(sb);
	}
}

cJSON *
ab_artdiff_compare(const cJSON *a, const cJSON *b, const char *path_a, const char *path_b)
{
	cJSON *d = cJSON_CreateObject();
	const char *fa = ab_json_str(a, "format"), *fb = ab_json_str(b, "format");
	int any = 0;

	if (!fa || !fb || strcmp(fa, fb)) {
		cJSON_AddBoolToObject(d, "identical", 0);
		cJSON_AddStringToObject(d, "note", !fa || !fb ? "no fingerprint of the artifact to compare (not an ar archive or ELF file)" :
		    "the two files are of different formats");
		return d;
	}
	cJSON_AddStringToObject(d, "format", fa);
	if (!strcmp(fa, "ar")) {
		cJSON_AddItemToObject(d, "members", compare_parts(ab_json_get(a, "members"), ab_json_get(b, "members"), &any));
		if (any && path_a && path_b)
			add_member_sections(d, a, path_a, path_b);
	} else {
		cJSON_AddItemToObject(d, "sections", compare_parts(ab_json_get(a, "sections"), ab_json_get(b, "sections"), &any));
	}
	cJSON_AddBoolToObject(d, "identical", !any);
	if (!any)
		cJSON_AddStringToObject(d, "note", !strcmp(fa, "ar") ? "every member is the same: the archive's symbol table or headers differ"
		    : "every section is the same: the ELF headers or section table differ");
	return d;
}

static void
put_list(struct ab_buf *b, const char *what, const cJSON *arr, const cJSON *member_sections)
{
	const cJSON *it;
	int n = 0;

	if (!cJSON_GetArraySize(arr))
		return;
	if (b->len)
		ab_buf_puts(b, "; ");
	ab_buf_printf(b, "%s: ", what);
	cJSON_ArrayForEach(it, arr) {
		const cJSON *secs = ab_json_get(member_sections, it->valuestring), *s;
		int k = 0;

		ab_buf_printf(b, "%s%s", n++ ? ", " : "", it->valuestring);
		if (cJSON_GetArraySize(secs)) {
			ab_buf_puts(b, " (sections ");
			cJSON_ArrayForEach(s, secs)
				ab_buf_printf(b, "%s%s", k++ ? " " : "", s->valuestring);
			ab_buf_puts(b, ")");
		}
	}
}

char *
ab_artdiff_summary(const cJSON *diff)
{
	struct ab_buf b = {0};
	const cJSON *parts = ab_json_get(diff, "members");
	const char *kind = "members";

	if (!parts) {
		parts = ab_json_get(diff, "sections");
		kind = "sections";
	}
	if (parts) {
		char *w;

		w = ab_sprintf("%s differ", kind);
		put_list(&b, w, ab_json_get(parts, "differ"), ab_json_get(diff, "member_sections"));
		free(w);
		w = ab_sprintf("%s missing", kind);
		put_list(&b, w, ab_json_get(parts, "missing"), NULL);
		free(w);
		w = ab_sprintf("%s extra", kind);
		put_list(&b, w, ab_json_get(parts, "extra"), NULL);
		free(w);
	}
	if (!b.len && ab_json_str(diff, "note"))
		ab_buf_puts(&b, ab_json_str(diff, "note"));
	return b.len ? ab_buf_detach(&b) : ab_strdup("identical");
}
