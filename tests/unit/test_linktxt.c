/* unit tests for lib/linktxt: link.txt and response-file splitting */
#include <stdlib.h>
#include <string.h>

#include "../../lib/linktxt.h"
#include "unit.h"

static struct ab_linktxt lt;
static char errbuf[4096];

/* parse s; returns 0/-1 and leaves the error message (without the prefix) in errbuf */
static int
parse(const char *s)
{
	FILE *f = tmpfile();
	size_t n;
	int r;

	ab_linktxt_release(&lt);
	r = ab_linktxt_parse(&lt, "link.txt", s, strlen(s), f);
	rewind(f);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, f);
	errbuf[n] = '\0';
	if (n && errbuf[n - 1] == '\n')
		errbuf[n - 1] = '\0';
	fclose(f);
	return r;
}

static const char *
arg(size_t c, size_t i)
{
	return c < lt.ncmds && i < lt.cmds[c].argv.n ? lt.cmds[c].argv.v[i] : NULL;
}

static void
bad(const char *s, const char *want)
{
	CHECK(parse(s) == -1);
	CHECK_STR(errbuf, want);
	CHECK(lt.ncmds == 0);
}

int
main(void)
{
	struct ab_strv sv = {0};
	int joined;
	char *d;

	CHECK(parse("/usr/bin/cc -O2 CMakeFiles/x.dir/main.c.o -o ../bin/x  ../lib/libjemalloc_pic.a -lpthread\n") == 0);
	CHECK(lt.ncmds == 1);
	CHECK(lt.cmds[0].argv.n == 7);
	CHECK_STR(arg(0, 0), "/usr/bin/cc");
	CHECK_STR(arg(0, 5), "../lib/libjemalloc_pic.a");
	CHECK(lt.cmds[0].line == 1);
	CHECK(ab_linktxt_output_index(lt.cmds[0].argv.v, &joined) == 4 && !joined);

	/* archives: several commands, blank lines skipped */
	CHECK(parse("/usr/bin/ar qc libx.a a.o b.o\n\n  \t\n/usr/bin/ranlib libx.a\n") == 0);
	CHECK(lt.ncmds == 2);
	CHECK(lt.cmds[1].line == 4);
	CHECK_STR(arg(1, 0), "/usr/bin/ranlib");
	CHECK(ab_linktxt_output_index(lt.cmds[1].argv.v, &joined) == -1);

	/* quoting */
	CHECK(parse("cc \"/a b/c.o\" '/d e/f.a' g\\ h.o \"q\\\"x\\$y\\\\z\\`\" '' \"\" a\"b\"'c'\n") == 0);
	CHECK(lt.cmds[0].argv.n == 8);
	CHECK_STR(arg(0, 1), "/a b/c.o");
	CHECK_STR(arg(0, 2), "/d e/f.a");
	CHECK_STR(arg(0, 3), "g h.o");
	CHECK_STR(arg(0, 4), "q\"x$y\\z`");
	CHECK_STR(arg(0, 5), "");
	CHECK_STR(arg(0, 6), "");
	CHECK_STR(arg(0, 7), "abc");
	CHECK(parse("cc -oout x.o -Wl,-rpath,/x:/y -DX=1 a=b") == 0);
	CHECK(ab_linktxt_output_index(lt.cmds[0].argv.v, &joined) == 1 && joined);
	CHECK(parse("cc -o a -o b") == 0);
	CHECK(ab_linktxt_output_index(lt.cmds[0].argv.v, &joined) == -2);
	CHECK(parse("cc x.o -o") == 0);
	CHECK(ab_linktxt_output_index(lt.cmds[0].argv.v, &joined) == -2);
	CHECK(parse("") == 0 && lt.ncmds == 0);
	CHECK(parse("cc 'a;b|c&d>e<f$g*h'") == 0);
	CHECK_STR(arg(0, 1), "a;b|c&d>e<f$g*h");
	CHECK(parse("cc \"a;b|c&d>e<f*h\" x\\;y") == 0);
	CHECK_STR(arg(0, 1), "a;b|c&d>e<f*h");
	CHECK_STR(arg(0, 2), "x;y");
	CHECK(parse("cc a~b c#d") == 0);

	/* refusals, with line and column */
	bad("cc 'abc\n", "link.txt:1:4: unbalanced single quote");
	bad("cc\ncc \"abc\nd\"\n", "link.txt:2:4: unbalanced double quote");
	bad("cc a.o && echo x", "link.txt:1:8: shell operator '&&' is not supported");
	bad("cc a.o; rm x", "link.txt:1:7: shell operator ';' is not supported");
	bad("cc a.o | tee x", "link.txt:1:8: shell operator '|' is not supported");
	bad("cc a.o || true", "link.txt:1:8: shell operator '||' is not supported");
	bad("cc a.o &", "link.txt:1:8: shell operator '&' is not supported");
	bad("cc a.o >log", "link.txt:1:8: redirection '>' is not supported");
	bad("cc a.o 2>log", "link.txt:1:8: redirection '2>' is not supported");
	bad("cc a.o 2>>log", "link.txt:1:8: redirection '2>>' is not supported");
	bad("cc a.o &>log", "link.txt:1:8: redirection '&>' is not supported");
	bad("cc <in", "link.txt:1:4: redirection '<' is not supported");
	bad("cc $(pkg-config --libs x)", "link.txt:1:4: command substitution '$(' is not supported");
	bad("cc `pkg-config --libs x`", "link.txt:1:4: command substitution '`' is not supported");
	bad("cc \"`x`\"", "link.txt:1:5: command substitution '`' is not supported");
	bad("cc $LDFLAGS", "link.txt:1:4: variable expansion '$LDFLAGS' is not supported");
	bad("cc \"${X}\"", "link.txt:1:5: variable expansion '${' is not supported");
	bad("cc $1", "link.txt:1:4: variable expansion '$1' is not supported");
	bad("cc a$", "link.txt:1:5: unescaped '$' is not supported: write '\\$'");
	bad("cc *.o", "link.txt:1:4: unquoted glob character '*' is not supported");
	bad("cc a?.o", "link.txt:1:5: unquoted glob character '?' is not supported");
	bad("cc [ab].o", "link.txt:1:4: unquoted glob character '[' is not supported");
	bad("cc {a,b}.o", "link.txt:1:4: unquoted '{' is not supported (brace expansion)");
	bad("cc (x)", "link.txt:1:4: unquoted '(' is not supported");
	bad("cc ~/x.o", "link.txt:1:4: tilde expansion '~' is not supported");
	bad("cc x.o # comment", "link.txt:1:8: comment '#' is not supported");
	bad("cc x.o \\", "link.txt:1:8: backslash at the end of a line is not supported");
	bad("cc x.o \\\n-o y", "link.txt:1:8: backslash at the end of a line is not supported");
	bad("cc 'a\\b'", "link.txt:1:6: backslash inside single quotes is not supported");
	bad("cc \"a\\b\"", "link.txt:1:6: backslash before 'b' inside double quotes is not supported");
	bad("cc x.o\r\n", "link.txt:1:7: carriage return is not supported");
	bad("LD_PRELOAD=x cc x.o", "link.txt:1:1: variable assignment 'LD_PRELOAD=' in command position is not supported");
	CHECK(parse("cc a\0b") == 0); /* strlen stops at NUL: tested through the file path below */
	{
		FILE *f = tmpfile();
		size_t n;

		/* a parse fills lt afresh: release what the last one left */
		ab_linktxt_release(&lt);
		CHECK(ab_linktxt_parse(&lt, "n.txt", "cc a\0b", 6, f) == -1);
		rewind(f);
		n = fread(errbuf, 1, sizeof(errbuf) - 1, f);
		errbuf[n] = '\0';
		CHECK_STR(errbuf, "n.txt:1:5: NUL byte is not supported\n");
		fclose(f);
	}
	/* an escaped NUL is refused too, quoted or not, in a response file as well */
	{
		static const struct {
			const char *text;
			size_t len;
			int rsp;
			const char *want;
		} nul[] = {
			{"cc \"a\\\0b\"", 9, 0, "n.txt:1:7: NUL byte is not supported\n"},
			{"a \"b\\\0\"", 7, 1, "n.txt:1:6: NUL byte is not supported\n"},
			{"a b\\\0c", 6, 1, "n.txt:1:5: NUL byte is not supported\n"},
		};

		for (size_t k = 0; k < sizeof(nul) / sizeof(nul[0]); k++) {
			FILE *f = tmpfile();
			size_t n;
			int r;

			if (nul[k].rsp)
				r = ab_linktxt_parse_rsp(&sv, "n.txt", nul[k].text, nul[k].len, f);
			else
				r = ab_linktxt_parse(&lt, "n.txt", nul[k].text, nul[k].len, f);
			CHECK(r == -1);
			rewind(f);
			n = fread(errbuf, 1, sizeof(errbuf) - 1, f);
			errbuf[n] = '\0';
			CHECK_STR(errbuf, nul[k].want);
			fclose(f);
			ab_strv_free(&sv);
		}
	}

	/* response files: newlines separate, quotes may span them, backslash escapes */
	{
		const char *rsp = "a.o\n\"b c.o\"\r\n'd\\'e' f\\ g *.o\n";

		CHECK(ab_linktxt_parse_rsp(&sv, "o.rsp", rsp, strlen(rsp), NULL) == 0);
	}
	CHECK(sv.n == 5);
	CHECK(sv.n == 5 && !strcmp(sv.v[1], "b c.o") && !strcmp(sv.v[2], "d'e") && !strcmp(sv.v[3], "f g") &&
	    !strcmp(sv.v[4], "*.o"));
	ab_strv_free(&sv);

	d = ab_linktxt_build_dir("/b/src/CMakeFiles/fluent-bit-bin.dir/link.txt");
	CHECK_STR(d, "/b/src");
	free(d);
	d = ab_linktxt_build_dir("/b/src/fluent-bit-bin.dir/link.txt");
	CHECK(d == NULL);

	ab_linktxt_release(&lt);
	return unit_done();
}
