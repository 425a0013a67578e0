/*
 * Unit tests of lib/elffile and lib/arfile on files the real toolchain
 * makes here (cc, ar): symbols, sections, strings at addresses, archive
 * members with GNU long names, and malformed inputs refused.
 */
#include <elf.h>
#include <stdint.h>
#include <sys/wait.h>

#include "../../lib/atomic.h"
#include "../../lib/arfile.h"
#include "../../lib/elffile.h"
#include "../../lib/util.h"
#include "unit.h"

static const char src[] =
    "const char *const banner = \"unit-banner-string\";\n"
    "int unit_answer(void) { return 4242; }\n"
    "__attribute__((noinline)) static int hidden(int x) { return x * 3; }\n"
    "int unit_call(int x) { return hidden(x) + 1; }\n";

static int
run(const char *dir, const char *cmd)
{
	char *full = ab_sprintf("cd '%s' && %s", dir, cmd);
	int st = system(full);

	free(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_elf(const char *dir)
{
	char *obj = ab_path_join(dir, "a_long_member_name_for_gnu_ar.o");
	char *exe = ab_path_join(dir, "prog");
	const struct ab_elf_symbol *s;
	const struct ab_elf_section *rodata;
	const unsigned char *code;
	struct ab_elf *e = NULL;

	CHECK(ab_elf_open(&e, obj) == 0);
	if (e) {
		CHECK(e->type == ET_REL);
		CHECK(e->has_symtab);
		s = ab_elf_symbol(e, "unit_answer");
		CHECK(s && s->type == STT_FUNC && s->bind == STB_GLOBAL);
		s = ab_elf_symbol(e, "hidden");
		CHECK(s && s->bind == STB_LOCAL);
		CHECK(ab_elf_symbol(e, "nosuch") == NULL);
		CHECK(ab_elf_section(e, ".text") != NULL);
		ab_elf_close(e);
	}
	CHECK(ab_elf_open(&e, exe) == 0);
	if (e) {
		CHECK(e->type == ET_DYN || e->type == ET_EXEC);
		s = ab_elf_symbol(e, "unit_answer");
		CHECK(s != NULL);
		/* -O2 on x86-64: mov $4242,%eax; ret (an endbr64 may come first) */
		code = s ? ab_elf_at(e, s->value, 10) : NULL;
		CHECK(code != NULL);
		if (code && code[0] == 0xf3)
			code += 4;
		CHECK(code && code[0] == 0xb8 && code[1] == (4242 & 0xff) && code[2] == (4242 >> 8));
		rodata = ab_elf_section(e, ".rodata");
		CHECK(rodata != NULL);
		if (rodata) {
			const unsigned char *d = ab_elf_section_data(e, rodata);
			const unsigned char *hit = d ? memmem(d, rodata->size, "unit-banner-string", 18) : NULL;

			CHECK(hit != NULL);
			if (hit)
				CHECK_STR(ab_elf_string_at(e, rodata->addr + (uint64_t)(hit - d), 64), "unit-banner-string");
			CHECK(ab_elf_string_at(e, rodata->addr + (uint64_t)(hit - d), 4) == NULL);
		}
		CHECK(ab_elf_at(e, 0x7fffffffffffULL, 4) == NULL);
		ab_elf_close(e);
	}
	free(obj);
	free(exe);
}

static void
test_not_elf(const char *dir)
{
	char *txt = ab_path_join(dir, "src.c"), *trunc = ab_path_join(dir, "trunc");
	static const unsigned char head[] = {0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    1, 0};
	struct ab_elf *e = (struct ab_elf *)1;
	struct unit_catch uc;
	char *msg;

	CHECK(ab_elf_open(&e, txt) == 1 && e == NULL);
	CHECK(ab_write_file_atomic(trunc, head, sizeof(head)) == 0);
	unit_catch_begin(&uc);
	CHECK(ab_elf_open(&e, trunc) == AB_EFAIL && e == NULL);
	msg = unit_catch_end(&uc);
	CHECK(strstr(msg, "malformed ELF file: truncated header") != NULL);
	free(msg);
	free(txt);
	free(trunc);
}

static void
test_ar(const char *dir)
{
	char *lib = ab_path_join(dir, "libunit.a");
	struct ab_buf b = {0};
	struct ab_ar ar;
	struct ab_ar_member m;
	struct unit_catch uc;
	char *msg;
	int n = 0, r;

	CHECK(ab_read_file(&b, lib) == 0);
	CHECK(ab_ar_is_ar(b.s, b.len));
	ab_ar_init(&ar, b.s, b.len, lib);
	while ((r = ab_ar_next(&ar, &m)) > 0) {
		n++;
		if (n == 1) {
			CHECK_STR(m.name, "a_long_member_name_for_gnu_ar.o");
			CHECK(ab_elf_is_elf(m.data, m.size));
		} else {
			CHECK_STR(m.name, "b.o");
		}
		CHECK(m.mtime == 0 && m.uid == 0 && m.gid == 0); /* Debian's ar is deterministic */
	}
	CHECK(r == 0 && n == 2);
	/* cut inside the second member: refused, naming the archive */
	ab_ar_init(&ar, b.s, b.len - 10, lib);
	unit_catch_begin(&uc);
	while ((r = ab_ar_next(&ar, &m)) > 0)
		;
	msg = unit_catch_end(&uc);
	CHECK(r == AB_EFAIL);
	CHECK(strstr(msg, "malformed at byte") && strstr(msg, "member size outside the archive"));
	free(msg);
	ab_buf_free(&b);
	free(lib);
}

int
main(void)
{
	char *dir = unit_tmpdir("binfile");
	char *path = ab_path_join(dir, "src.c");

	CHECK(ab_write_file_atomic(path, src, sizeof(src) - 1) == 0);
	CHECK(run(dir, "cc -O2 -fno-asynchronous-unwind-tables -c -o a_long_member_name_for_gnu_ar.o src.c && "
	               "cp a_long_member_name_for_gnu_ar.o b.o && ar rcs libunit.a a_long_member_name_for_gnu_ar.o b.o && "
	               "printf 'int unit_answer(void); int main(void){return unit_answer()==4242?0:1;}\\n' >m.c && "
	               "cc -O2 -o prog m.c src.c") == 0);
	test_elf(dir);
	test_not_elf(dir);
	test_ar(dir);
	free(path);
	ab_rm_rf(dir);
	free(dir);
	return unit_done();
}
