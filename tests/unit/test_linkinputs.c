/* unit tests for provenance/tree/linkinputs: which files a link command reads */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../provenance/tree/linkinputs.h"
#include "unit.h"

static char root[4096];

static void
touch(const char *rel, const char *content)
{
	char *p = ab_path_join(root, rel);
	char *d = ab_path_dirname(p);
	FILE *f;

	ab_mkdir_p(d, 0755);
	f = fopen(p, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
	free(d);
	free(p);
}

/* the input at i as "arg|path-relative-to-root|kind|via" */
static char *
show(const struct ab_link_inputs *in, size_t i)
{
	const struct ab_link_input *x = &in->v[i];
	const char *p = x->path ? x->path : "(null)";
	size_t rl = strlen(root);

	const char *via = x->via, *at = strstr(via, root);

	if (x->path && !strncmp(p, root, rl))
		p += rl + 1;
	if (at)
		return ab_sprintf("%s|%s|%s|%.*s%s", x->arg, p, x->kind, (int)(at - via), via, at + rl + 1);
	return ab_sprintf("%s|%s|%s|%s", x->arg, p, x->kind, via);
}

#define CHECK_INPUT(in, i, want)                                  \
	do {                                                      \
		char *s_ = (i) < (in)->n ? show((in), (i)) : NULL; \
		CHECK_STR(s_, want);                              \
		free(s_);                                         \
	} while (0)

int
main(void)
{
	struct ab_link_inputs in = {0};
	char *cwd, *sys;
	char *defaults[2];

	snprintf(root, sizeof(root), "/tmp/ab-linkinputs-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	touch("b/src/a.o", "x");
	touch("b/src/lib dir/libfoo.so", "\177ELF");
	touch("b/src/lib dir/libfoo.a", "!<arch>\n");
	touch("b/src/L2/libbar.a", "!<arch>\n");
	touch("b/src/v.map", "{ global: *; };");
	touch("b/src/o.rsp", "\"a.o\" -Lrsp\n-lq\n");
	touch("b/src/rsp/libq.a", "!<arch>\n");
	touch("sys/libm.so", "/* GNU ld script */\nGROUP ( SYSM6 AS_NEEDED ( SYSLD ) )\n");
	touch("sys/libm.so.6", "\177ELF");
	touch("sys/ld.so.2", "\177ELF");
	touch("sys/libexact.a", "!<arch>\n");
	/* make the ld script name absolute paths */
	{
		char *m6 = ab_path_join(root, "sys/libm.so.6"), *ld = ab_path_join(root, "sys/ld.so.2");
		char *text = ab_sprintf("/* GNU ld script */\nGROUP ( %s AS_NEEDED ( %s ) )\n", m6, ld);

		touch("sys/libm.so", text);
		free(text);
		free(m6);
		free(ld);
	}
	cwd = ab_path_join(root, "b/src");
	sys = ab_path_join(root, "sys");
	defaults[0] = sys;
	defaults[1] = NULL;

	{
		/* -l after its -L; -L after the -l still applies (ld semantics) */
		char *argv[] = {"cc", "a.o", "-o", "x", "-lfoo", "-L", "lib dir", "-lbar", "-LL2",
		    "-Wl,--version-script=v.map,-rpath,/nonexistent", "-lm", "-l:libexact.a", "-lmissing",
		    "@o.rsp", NULL};

		CHECK(ab_linkinputs_collect(&in, argv, cwd, defaults, NULL) == 0);
		CHECK(in.n == 12);
		CHECK_INPUT(&in, 0, "a.o|b/src/a.o|object|argv");
		CHECK_INPUT(&in, 1, "-lfoo|b/src/lib dir/libfoo.so|shared-library|-L b/src/lib dir");
		CHECK_INPUT(&in, 3, "-Wl,--version-script=v.map,-rpath,/nonexistent|b/src/v.map|linker-script|argv");
		CHECK_INPUT(&in, 4, "-lm|sys/libm.so|linker-script|default search path");
		CHECK_INPUT(&in, 7, "-l:libexact.a|sys/libexact.a|archive|default search path");
		CHECK_INPUT(&in, 8, "-lmissing|(null)|library|not found");
		CHECK_INPUT(&in, 9, "@o.rsp|b/src/o.rsp|response-file|argv");
		CHECK_INPUT(&in, 10, "a.o|b/src/a.o|object|response file o.rsp");
		CHECK_INPUT(&in, 11, "-lq|b/src/rsp/libq.a|archive|-L b/src/rsp");
		CHECK(in.search_dirs.n == 3);
		CHECK(ab_linkinputs_hash(&in, 2) == 0);
		CHECK(in.n > 0 && strlen(in.v[0].sha256) == 64);
		CHECK(in.n > 10 && !strcmp(in.v[0].sha256, in.v[10].sha256)); /* a.o twice */
		CHECK(in.v[8].sha256[0] == '\0');
		ab_linkinputs_release(&in);
	}
	{
		/* -Wl,-Bstatic prefers the archive; -Xlinker pairs */
		char *argv[] = {"cc", "-Llib dir", "-Wl,-Bstatic", "-lfoo", "-Wl,-Bdynamic", "-lfoo", "-Xlinker", "-T",
		    "-Xlinker", "v.map", NULL};

		CHECK(ab_linkinputs_collect(&in, argv, cwd, NULL, NULL) == 0);
		CHECK(in.n == 3);
		CHECK(in.n == 3 && strstr(in.v[0].path, "libfoo.a") && strstr(in.v[1].path, "libfoo.so"));
		CHECK(in.n == 3 && !strcmp(in.v[2].kind, "linker-script"));
		ab_linkinputs_release(&in);
	}
	{
		/* a missing operand is an error */
		char *argv[] = {"cc", "gone.o", "-o", "x", NULL};

		CHECK(ab_linkinputs_collect(&in, argv, cwd, NULL, NULL) == -1);
		CHECK(in.n == 0);
	}
	free(cwd);
	free(sys);
	ab_rm_rf(root);
	return unit_done();
}
