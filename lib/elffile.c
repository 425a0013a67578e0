#include "elffile.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* the name for messages and whether the map is ours to unmap */
struct owner {
	char *name;
	int mapped;
	void *copy; /* an aligned copy of a misaligned image (archive members are 2-byte aligned) */
};

struct elf_full {
	struct ab_elf pub;
	struct owner own;
};

int
ab_elf_is_elf(const void *data, size_t size)
{
	const unsigned char *p = data;

	return size >= EI_NIDENT && !memcmp(p, ELFMAG, SELFMAG);
}

/* is [off, off + n) inside the file? */
static int
in_file(const struct ab_elf *e, uint64_t off, uint64_t n)
{
	return off <= e->size && n <= e->size - off;
}

/* a string of a string table section, or NULL when it runs out of it */
static const char *
str_at(const struct ab_elf *e, const Elf64_Shdr *strtab, uint64_t idx)
{
	const char *base, *nul;

	if (!strtab || strtab->sh_type != SHT_STRTAB || !in_file(e, strtab->sh_offset, strtab->sh_size) ||
	    idx >= strtab->sh_size)
		return NULL;
	base = (const char *)e->map + strtab->sh_offset + idx;
	nul = memchr(base, '\0', strtab->sh_size - idx);
	return nul ? base : NULL;
}

static int
malformed(const char *name, const char *what)
{
	ab_error("'%s': malformed ELF file: %s", name, what);
	return AB_EFAIL;
}

static int
read_sections(struct ab_elf *e, const char *name)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->map;
	const Elf64_Shdr *sh, *shstr = NULL;
	size_t n = h->e_shnum;

	if (h->e_shoff == 0)
		return 0;
	if (h->e_shentsize != sizeof(Elf64_Shdr))
		return malformed(name, "section header size");
	if (n == 0 && in_file(e, h->e_shoff, sizeof(Elf64_Shdr)))
		n = ((const Elf64_Shdr *)(e->map + h->e_shoff))->sh_size; /* more than 0xff00 sections */
	if (n > e->size / sizeof(Elf64_Shdr) || !in_file(e, h->e_shoff, (uint64_t)n * sizeof(Elf64_Shdr)))
		return malformed(name, "section headers outside the file");
	sh = (const Elf64_Shdr *)(e->map + h->e_shoff);
	if (h->e_shstrndx != SHN_UNDEF && h->e_shstrndx < n)
		shstr = &sh[h->e_shstrndx];
	e->sections = ab_calloc(n ? n : 1, sizeof(*e->sections));
	e->nsections = n;
	for (size_t i = 0; i < n; i++) {
		const char *nm = str_at(e, shstr, sh[i].sh_name);

		e->sections[i].name = nm ? nm : "";
		e->sections[i].type = sh[i].sh_type;
		e->sections[i].flags = sh[i].sh_flags;
		e->sections[i].addr = sh[i].sh_addr;
		e->sections[i].offset = sh[i].sh_offset;
		e->sections[i].size = sh[i].sh_size;
	}
	return 0;
}

/* the symbols of one symbol table section (SHT_SYMTAB or SHT_DYNSYM) */
static int
read_symtab(struct ab_elf *e, size_t si, const char *name)
{
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(e->map + ((const Elf64_Ehdr *)e->map)->e_shoff);
	const Elf64_Shdr *tab = &sh[si], *strtab;
	const Elf64_Sym *sym;
	size_t n;

	if (tab->sh_entsize != sizeof(Elf64_Sym) || !in_file(e, tab->sh_offset, tab->sh_size))
		return malformed(name, "symbol table outside the file");
	if (tab->sh_link >= e->nsections)
		return malformed(name, "symbol table without strings");
	strtab = &sh[tab->sh_link];
	sym = (const Elf64_Sym *)(e->map + tab->sh_offset);
	n = tab->sh_size / sizeof(Elf64_Sym);
	e->symbols = ab_realloc(e->symbols, (e->nsymbols + n + 1) * sizeof(*e->symbols));
	for (size_t i = 0; i < n; i++) {
		struct ab_elf_symbol *s;
		const char *nm;

		if (sym[i].st_shndx == SHN_UNDEF || sym[i].st_name == 0)
			continue;
		nm = str_at(e, strtab, sym[i].st_name);
		if (!nm || !*nm)
			continue;
		s = &e->symbols[e->nsymbols++];
		s->name = nm;
		s->value = sym[i].st_value;
		s->size = sym[i].st_size;
		s->type = ELF64_ST_TYPE(sym[i].st_info);
		s->bind = ELF64_ST_BIND(sym[i].st_info);
		s->shndx = sym[i].st_shndx;
		s->dynamic = tab->sh_type == SHT_DYNSYM;
	}
	return 0;
}

static int
index_file(struct ab_elf *e, const char *name)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->map;

	if (e->size < sizeof(Elf64_Ehdr))
		return malformed(name, "truncated header");
	e->type = h->e_type;
	e->machine = h->e_machine;
	if (read_sections(e, name) < 0)
		return AB_EFAIL;
	/* .symtab before .dynsym: a lookup by name finds the full table's entry first */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < e->nsections; i++)
			if (e->sections[i].type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) {
				if (read_symtab(e, i, name) < 0)
					return AB_EFAIL;
				e->has_symtab |= pass == 0;
			}
	return 0;
}

static int
open_mapped(struct ab_elf **out, const unsigned char *map, size_t size, const char *name, int mapped)
{
	struct elf_full *f;

	*out = NULL;
	if (!ab_elf_is_elf(map, size) || map[EI_CLASS] != ELFCLASS64 || map[EI_DATA] != ELFDATA2LSB)
		return 1;
	f = ab_calloc(1, sizeof(*f));
	f->pub.map = map;
	f->pub.size = size;
	f->own.name = ab_strdup(name);
	f->own.mapped = mapped;
	if (index_file(&f->pub, name) < 0) {
		f->own.mapped = 0; /* the caller unmaps on failure */
		ab_elf_close(&f->pub);
		return AB_EFAIL;
	}
	*out = &f->pub;
	return 0;
}

int
ab_elf_open_mem(struct ab_elf **out, const void *data, size_t size, const char *name)
{
	void *copy;
	int r;

	/* the ELF structures are read in place: they need their natural alignment */
	if (((uintptr_t)data & 7) == 0)
		return open_mapped(out, data, size, name, 0);
	copy = ab_malloc(size ? size : 1);
	memcpy(copy, data, size);
	r = open_mapped(out, copy, size, name, 0);
	if (r == 0)
		((struct elf_full *)*out)->own.copy = copy;
	else
		free(copy);
	return r;
}

int
ab_elf_open(struct ab_elf **out, const char *path)
{
	const unsigned char *map;
	size_t size;
	int r;

	*out = NULL;
	if ((r = ab_map_file(&map, &size, path)) != 0)
		return r;
	r = open_mapped(out, map, size, path, 1);
	if (r != 0)
		ab_unmap_file(map, size);
	return r;
}

void
ab_elf_close(struct ab_elf *e)
{
	struct elf_full *f = (struct elf_full *)e;

	if (!e)
		return;
	if (f->own.mapped)
		ab_unmap_file(e->map, e->size);
	free(f->own.copy);
	free(f->own.name);
	free(e->sections);
	free(e->symbols);
	free(f);
}

const struct ab_elf_section *
ab_elf_section(const struct ab_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsections; i++)
		if (!strcmp(e->sections[i].name, name))
			return &e->sections[i];
	return NULL;
}

const unsigned char *
ab_elf_section_data(const struct ab_elf *e, const struct ab_elf_section *s)
{
	if (s->type == SHT_NOBITS || !in_file(e, s->offset, s->size))
		return NULL;
	return e->map + s->offset;
}

const struct ab_elf_symbol *
ab_elf_symbol(const struct ab_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsymbols; i++)
		if (!strcmp(e->symbols[i].name, name))
			return &e->symbols[i];
	return NULL;
}

const unsigned char *
ab_elf_at(const struct ab_elf *e, uint64_t addr, size_t n)
{
	for (size_t i = 0; i < e->nsections; i++) {
		const struct ab_elf_section *s = &e->sections[i];
		uint64_t off;

		if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOBITS || addr < s->addr || addr - s->addr > s->size ||
		    n > s->size - (addr - s->addr))
			continue;
		off = s->offset + (addr - s->addr);
		return in_file(e, off, n) ? e->map + off : NULL;
	}
	return NULL;
}

const unsigned char *
ab_elf_symbol_bytes(const struct ab_elf *e, const struct ab_elf_symbol *s, size_t n)
{
	const struct ab_elf_section *sec;

	if (e->type != ET_REL)
		return ab_elf_at(e, s->value, n);
	if (s->shndx >= e->nsections)
		return NULL;
	sec = &e->sections[s->shndx];
	if (sec->type == SHT_NOBITS || s->value > sec->size || n > sec->size - s->value ||
	    !in_file(e, sec->offset + s->value, n))
		return NULL;
	return e->map + sec->offset + s->value;
}

const char *
ab_elf_string_at(const struct ab_elf *e, uint64_t addr, size_t max)
{
	for (size_t i = 0; i < e->nsections; i++) {
		const struct ab_elf_section *s = &e->sections[i];
		uint64_t off, left;
		const char *p;

		if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOBITS || addr < s->addr || addr - s->addr >= s->size)
			continue;
		off = s->offset + (addr - s->addr);
		left = s->size - (addr - s->addr);
		if (!in_file(e, off, left))
			return NULL;
		if (left > max + 1)
			left = max + 1;
		p = (const char *)e->map + off;
		return memchr(p, '\0', left) ? p : NULL;
	}
	return NULL;
}
