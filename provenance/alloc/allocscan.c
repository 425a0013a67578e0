#include "allocscan.h"

#include <ctype.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/arfile.h"
#include "../../lib/elffile.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "allocreg.h"
#include "allocver.h"

#define STATS_SUFFIX "malloc_stats_print"

static struct ab_allocator *
add(struct ab_allocators *out, const char *kind, const char *file, int shared)
{
	struct ab_allocator *a;

	out->v = ab_realloc(out->v, (out->n + 1) * sizeof(*out->v));
	a = &out->v[out->n++];
	memset(a, 0, sizeof(*a));
	a->kind = ab_strdup(kind);
	a->file = ab_strdup(file);
	a->shared = shared;
	a->secure = -1;
	return a;
}

char *
ab_allocscan_conf_var(const char *prefix)
{
	struct ab_buf b = {0};

	for (const char *p = prefix; *p; p++)
		ab_buf_putc(&b, toupper((unsigned char)*p));
	ab_buf_puts(&b, "MALLOC_CONF");
	return ab_buf_detach(&b);
}

/* ---- x86-64 code: the few instruction shapes the answers need ---- */

/*
 * Is code[i..] `lea disp32(%rip), %reg` (REX.W 8D, mod 00, r/m 101)?
 * *target its address (insn at addr), *reg the destination (0 rax .. 15).
 */
static int
lea_rip(const unsigned char *code, size_t n, size_t i, uint64_t addr, uint64_t *target, int *reg)
{
	int32_t disp;

	if (i + 7 > n || (code[i] != 0x48 && code[i] != 0x4c) || code[i + 1] != 0x8d || (code[i + 2] & 0xc7) != 0x05)
		return 0;
	memcpy(&disp, code + i + 3, 4);
	*target = addr + i + 7 + (uint64_t)(int64_t)disp;
	*reg = ((code[i + 2] >> 3) & 7) | (code[i] == 0x4c ? 8 : 0);
	return 1;
}

/* the first `lea disp32(%rip)` of a function whose target is a string: the string, or NULL */
static const char *
first_lea_string(const struct ab_elf *e, const struct ab_elf_symbol *fn)
{
	size_t n = fn->size ? (size_t)fn->size : 64;
	const unsigned char *code;

	if (e->machine != EM_X86_64 || n > 4096)
		return NULL;
	code = ab_elf_at(e, fn->value, n);
	for (size_t i = 0; code && i < n; i++) {
		uint64_t t;
		int reg;

		if (lea_rip(code, n, i, fn->value, &t, &reg))
			return ab_elf_string_at(e, t, 4096);
	}
	return NULL;
}

/* a function that returns a constant: `mov $imm32, %eax; ret`, after an endbr64 */
static int
returns_constant(long *out, const struct ab_elf *e, const struct ab_elf_symbol *fn)
{
	const unsigned char *c = ab_elf_symbol_bytes(e, fn, 10);
	int32_t v;

	if (e->machine != EM_X86_64 || !c)
		return 0;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		c += 4;
	if (c[0] != 0xb8 || c[5] != 0xc3)
		return 0;
	memcpy(&v, c + 1, 4);
	*out = v;
	return 1;
}

/* the value moved into 32-bit register reg (`mov $imm32` or `xor reg, reg`) within window bytes of code[at] */
static int
constant_near(long *out, const unsigned char *code, size_t n, size_t at, int reg, size_t window)
{
	size_t lo = at > window ? at - window : 0, hi = at + window < n ? at + window : n;

	if (reg > 7)
		return 0;
	for (size_t i = lo; i + 5 <= hi; i++) {
		if (code[i] == 0xb8 + reg && (i == 0 || (code[i - 1] & 0xf0) != 0x40)) {
			int32_t v;

			memcpy(&v, code + i + 1, 4);
			if (v >= 0 && v <= 16) {
				*out = v;
				return 1;
			}
		}
		if (code[i] == 0x31 && code[i + 1] == (0xc0 | reg << 3 | reg)) {
			*out = 0;
			return 1;
		}
	}
	return 0;
}

/*
 * mimalloc's secure level: the constant passed with "secure level: %d\n".
 * The format is the first (rdi: value in esi) or third (rdx: value in ecx)
 * argument of the call that prints it.
 */
static int
secure_level(long *out, const struct ab_elf *e)
{
	static const char fmt[] = "secure level: %d\n";
	const struct ab_elf_section *text = ab_elf_section(e, ".text");
	uint64_t str = 0;
	const unsigned char *code;

	if (e->machine != EM_X86_64 || !text)
		return 0;
	for (size_t i = 0; i < e->nsections && !str; i++) {
		const struct ab_elf_section *s = &e->sections[i];
		const unsigned char *d = (s->flags & SHF_ALLOC) && !(s->flags & SHF_EXECINSTR) ? ab_elf_section_data(e, s)
		                                                                                 : NULL;
		const unsigned char *hit = d ? memmem(d, s->size, fmt, sizeof(fmt)) : NULL;

		if (hit)
			str = s->addr + (uint64_t)(hit - d);
	}
	code = str ? ab_elf_section_data(e, text) : NULL;
	for (size_t i = 0; code && i + 7 <= text->size; i++) {
		uint64_t t;
		int reg;

		if (!lea_rip(code, text->size, i, text->addr, &t, &reg) || t != str)
			continue;
		if ((reg == 7 && constant_near(out, code, text->size, i, 6, 24)) ||
		    (reg == 2 && constant_near(out, code, text->size, i, 1, 24)))
			return 1;
	}
	return 0;
}

/* ---- one ELF file (an executable, a shared object or an archive member) ---- */

/* the read-only data's first jemalloc version string */
static char *
version_in(const struct ab_elf *e)
{
	for (size_t i = 0; i < e->nsections; i++) {
		const struct ab_elf_section *s = &e->sections[i];
		const unsigned char *d;
		char *v = NULL;

		if (!(s->flags & SHF_ALLOC) || (s->flags & (SHF_EXECINSTR | SHF_WRITE)) || s->type == SHT_NOBITS)
			continue;
		if (!strncmp(s->name, ".rodata", 7) && (d = ab_elf_section_data(e, s)) &&
		    ab_allocver_scan_mem(&v, d, (size_t)s->size) == 0 && v)
			return v;
	}
	return NULL;
}

void
ab_allocscan_jemalloc(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e,
    const char *file, int shared)
{
	for (size_t i = 0; i < e->nsymbols; i++) {
		const struct ab_elf_symbol *s = &e->symbols[i], *fn;
		size_t n = strlen(s->name), pl = n - (sizeof(STATS_SUFFIX) - 1);
		struct ab_allocator *a;
		char *mallctl;

		if (s->type != STT_FUNC || s->bind == STB_LOCAL || n < sizeof(STATS_SUFFIX) - 1 ||
		    strcmp(s->name + pl, STATS_SUFFIX))
			continue;
		mallctl = ab_sprintf("%.*smallctl", (int)pl, s->name);
		fn = ab_elf_symbol(e, mallctl);
		free(mallctl);
		if (!fn)
			continue;
		a = add(out, k->name, file, shared);
		a->prefix = ab_strndup(s->name, pl);
		a->conf_var = ab_allocscan_conf_var(a->prefix);
		a->replaces_malloc = pl == 0 && ab_elf_symbol(e, "malloc") != NULL;
		a->version = version_in(e);
		a->version_from = a->version ? "version string" : NULL;
		fn = ab_elf_symbol(e, "config_malloc_conf_ctl");
		if (fn && e->type != ET_REL) {
			const char *conf = first_lea_string(e, fn);

			if (conf)
				a->baked_conf = ab_strdup(conf);
		}
		return; /* one jemalloc per file */
	}
}

void
ab_allocscan_mimalloc(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e,
    const char *file, int shared)
{
	const struct ab_elf_symbol *fn = ab_elf_symbol(e, "mi_malloc");
	const char *base = strrchr(file, '/');
	struct ab_allocator *a;
	long v;

	if (!fn || fn->type != STT_FUNC)
		return;
	a = add(out, k->name, file, shared);
	fn = ab_elf_symbol(e, "mi_version");
	if (fn && returns_constant(&v, e, fn)) {
		a->version = ab_mimalloc_version_string(v);
		a->version_from = "mi_version()";
	}
	if (e->type != ET_REL && secure_level(&v, e)) {
		a->secure = (int)v;
		a->secure_from = "code printing the secure level";
	} else if (strstr(base ? base + 1 : file, "-secure")) {
		a->secure = 4; /* cmake's MI_SECURE=ON names the library so */
		a->secure_from = "file name";
	}
	a->replaces_malloc = ab_elf_symbol(e, "malloc") != NULL;
}

/* gperftools' TC_VERSION_STRING, "gperftools 2.10", in the read-only data */
static char *
gperftools_version(const struct ab_elf *e)
{
	static const char mark[] = "gperftools ";

	for (size_t i = 0; i < e->nsections; i++) {
		const struct ab_elf_section *s = &e->sections[i];
		const char *d, *p, *end;

		if (strncmp(s->name, ".rodata", 7) || s->type == SHT_NOBITS || !(d = (const char *)ab_elf_section_data(e, s)))
			continue;
		for (p = d; (p = memmem(p, (size_t)s->size - (size_t)(p - d), mark, sizeof(mark) - 1)) != NULL; p++) {
			const char *v = p + sizeof(mark) - 1;

			for (end = v; end < d + s->size && (isdigit((unsigned char)*end) || *end == '.'); end++)
				;
			if (end > v && isdigit((unsigned char)*v) && end < d + s->size && *end == '\0')
				return ab_strndup(v, (size_t)(end - v));
		}
	}
	return NULL;
}

void
ab_allocscan_tcmalloc(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e,
    const char *file, int shared)
{
	const struct ab_elf_symbol *fn = ab_elf_symbol(e, "tc_malloc");
	struct ab_allocator *a;

	if (!fn || fn->type != STT_FUNC)
		return;
	a = add(out, k->name, file, shared);
	a->replaces_malloc = ab_elf_symbol(e, "malloc") != NULL;
	a->version = gperftools_version(e);
	a->version_from = a->version ? "TC_VERSION_STRING" : NULL;
}

static void
scan_elf(struct ab_allocators *out, const struct ab_elf *e, const char *file, int shared)
{
	for (const struct ab_allockind *k = ab_allockinds; k->name; k++)
		if (k->scan)
			k->scan(k, out, e, file, shared);
}

/* a static archive: the allocators of its members, each kind once */
static int
scan_archive(struct ab_allocators *out, const unsigned char *data, size_t size, const char *file)
{
	struct ab_allocators found = {0};
	struct ab_ar ar;
	struct ab_ar_member m;
	int r;

	ab_ar_init(&ar, data, size, file);
	while ((r = ab_ar_next(&ar, &m)) > 0) {
		struct ab_elf *e;
		char *what = ab_sprintf("%s(%s)", file, m.name);

		r = ab_elf_open_mem(&e, m.data, m.size, what);
		free(what);
		if (r < 0)
			break;
		if (r == 0) {
			scan_elf(&found, e, file, 0);
			ab_elf_close(e);
		}
	}
	/* the version string and the symbols sit in different members: merge by kind */
	for (size_t i = 0; i < found.n; i++) {
		struct ab_allocator *a = NULL;

		for (size_t k = 0; k < out->n && !a; k++)
			if (!strcmp(out->v[k].kind, found.v[i].kind) && !strcmp(out->v[k].file, file))
				a = &out->v[k];
		if (!a) {
			out->v = ab_realloc(out->v, (out->n + 1) * sizeof(*out->v));
			out->v[out->n++] = found.v[i];
			memset(&found.v[i], 0, sizeof(found.v[i]));
		}
	}
	ab_allocators_release(&found);
	if (r < 0)
		return AB_EFAIL;
	/* a version string in another member than the API (jemalloc's): the row's scanner over the whole archive */
	for (size_t k = 0; k < out->n; k++) {
		struct ab_allocator *a = &out->v[k];
		const struct ab_allockind *ak = ab_allockind_find(a->kind);

		if (!strcmp(a->file, file) && ak && ak->scan_version && !a->version &&
		    ak->scan_version(&a->version, data, size) == 0 && a->version)
			a->version_from = "version string";
	}
	return 0;
}

int
ab_allocscan_file(struct ab_allocators *out, const char *path, int shared)
{
	const unsigned char *map;
	struct ab_elf *e;
	size_t size;
	int r = ab_map_file(&map, &size, path);

	if (r != 0)
		return r < 0 ? AB_EFAIL : 0;
	if (ab_ar_is_ar(map, size)) {
		r = scan_archive(out, map, size, path);
	} else {
		r = ab_elf_open_mem(&e, map, size, path);
		if (r == 0) {
			scan_elf(out, e, path, shared);
			ab_elf_close(e);
		}
		r = r < 0 ? AB_EFAIL : 0;
	}
	ab_unmap_file(map, size);
	return r;
}

void
ab_allocscan_add_glibc(struct ab_allocators *out, const char *libc_path)
{
	static const char mark[] = "stable release version ";
	const struct ab_allockind *k = ab_allockind_fallback();
	struct ab_allocator *a = add(out, k->name, libc_path ? libc_path : "", 1);
	struct ab_buf b = {0};
	const char *p;

	a->replaces_malloc = 1;
	if (!libc_path)
		return;
	ab_report_mute();
	if (ab_read_file(&b, libc_path) == 0 && (p = memmem(b.s, b.len, mark, sizeof(mark) - 1)) != NULL) {
		const char *v = p + sizeof(mark) - 1, *end = v;

		while (end < b.s + b.len && (isdigit((unsigned char)*end) || *end == '.'))
			end++;
		if (end > v && end[-1] == '.')
			end--;
		if (end > v) {
			a->version = ab_strndup(v, (size_t)(end - v));
			a->version_from = "GNU C Library banner";
		}
	}
	ab_report_unmute();
	ab_buf_free(&b);
}

void
ab_allocators_release(struct ab_allocators *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct ab_allocator *a = &l->v[i];

		free(a->kind);
		free(a->file);
		free(a->version);
		free(a->prefix);
		free(a->conf_var);
		free(a->baked_conf);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

cJSON *
ab_allocator_json(const struct ab_allocator *a)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "kind", a->kind);
	cJSON_AddStringToObject(o, "file", a->file);
	cJSON_AddStringToObject(o, "linked", a->shared ? "shared" : "static");
	ab_json_add_str_or_null(o, "version", a->version);
	ab_json_add_str_or_null(o, "version_from", a->version_from);
	cJSON_AddBoolToObject(o, "replaces_malloc", a->replaces_malloc);
	if (a->prefix) {
		cJSON_AddStringToObject(o, "prefix", a->prefix);
		ab_json_add_str_or_null(o, "conf_var", a->conf_var);
		ab_json_add_str_or_null(o, "baked_conf", a->baked_conf);
	}
	if (ab_allockind_find(a->kind) && ab_allockind_find(a->kind)->has_secure) {
		if (a->secure >= 0)
			cJSON_AddNumberToObject(o, "secure", a->secure);
		else
			cJSON_AddNullToObject(o, "secure");
		ab_json_add_str_or_null(o, "secure_from", a->secure_from);
	}
	return o;
}
