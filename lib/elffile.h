/*
 * elffile: read-only access to a 64-bit little-endian ELF file (an
 * executable, a shared object or a relocatable object), mapped into
 * memory. The file is untrusted input: every offset, size and string is
 * checked against the mapping, and a malformed file is an error, never a
 * read outside it.
 *
 *   struct ab_elf *e;
 *   int r = ab_elf_open(&e, path);
 *   if (r < 0) ...                             reported
 *   if (r > 0) ...                             not an ELF file: nothing to read
 *   for (size_t i = 0; i < e->nsections; i++)  e->sections[i].name ...
 *   const struct ab_elf_symbol *s = ab_elf_symbol(e, "mi_version");
 *   const unsigned char *code = ab_elf_at(e, s->value, 16);  NULL when unmapped
 *   ab_elf_close(e);
 *
 * Symbols come from .symtab and .dynsym (both when present, .symtab
 * first); only defined symbols (st_shndx != SHN_UNDEF) are listed.
 * Addresses are the file's virtual addresses (for an object file, offsets
 * into their section).
 */
#ifndef AB_ELFFILE_H
#define AB_ELFFILE_H

#include <stddef.h>
#include <stdint.h>

struct ab_elf_section {
	const char *name;  /* from .shstrtab; "" when it has none */
	uint32_t type;     /* SHT_* */
	uint64_t flags;    /* SHF_* */
	uint64_t addr, offset, size;
};

struct ab_elf_symbol {
	const char *name;
	uint64_t value, size;
	unsigned char type;    /* STT_FUNC, STT_OBJECT, ... */
	unsigned char bind;    /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint16_t shndx;
	int dynamic;           /* from .dynsym */
};

struct ab_elf {
	const unsigned char *map;
	size_t size;
	uint16_t type;         /* ET_EXEC, ET_DYN, ET_REL */
	uint16_t machine;
	struct ab_elf_section *sections;
	size_t nsections;
	struct ab_elf_symbol *symbols;
	size_t nsymbols;
	int has_symtab;        /* a .symtab (not stripped) */
};

/*
 * Map and index the ELF file at path. 0; 1 when the file is not a 64-bit
 * little-endian ELF file (*out NULL, nothing reported: the caller decides
 * whether that is an error); AB_EFAIL when it cannot be read or is
 * malformed (reported, naming the file).
 */
int ab_elf_open(struct ab_elf **out, const char *path);
/* the same over bytes the caller keeps valid while e is used (an archive member); name is for messages */
int ab_elf_open_mem(struct ab_elf **out, const void *data, size_t size, const char *name);
void ab_elf_close(struct ab_elf *e);

/* is this the start of an ELF file? */
int ab_elf_is_elf(const void *data, size_t size);
/* the first section with that name, or NULL */
const struct ab_elf_section *ab_elf_section(const struct ab_elf *e, const char *name);
/* the bytes of a section in the file (NULL for SHT_NOBITS or out of the file) */
const unsigned char *ab_elf_section_data(const struct ab_elf *e, const struct ab_elf_section *s);
/* the first defined symbol with that exact name, or NULL */
const struct ab_elf_symbol *ab_elf_symbol(const struct ab_elf *e, const char *name);
/*
 * n bytes at virtual address addr, from an allocated section with file
 * contents (never .bss), or NULL when the file does not hold all of them
 */
const unsigned char *ab_elf_at(const struct ab_elf *e, uint64_t addr, size_t n);
/*
 * n bytes of the file at a symbol's value: by address in a linked file, by
 * the symbol's section offset in an object file (whose code bytes before
 * relocation are final where nothing is relocated); NULL when outside
 */
const unsigned char *ab_elf_symbol_bytes(const struct ab_elf *e, const struct ab_elf_symbol *s, size_t n);
/* the NUL-terminated string at addr (at most max bytes before the NUL), or NULL */
const char *ab_elf_string_at(const struct ab_elf *e, uint64_t addr, size_t max);

#endif
