/*
 * Unit tests of provenance/record/cmakeprov: exact parsing of CMakeCache.txt,
 * flags.make, CMake<LANG>Compiler.cmake and ExternalProject cfgcmd text
 * written here, build-type detection, whole records of synthetic build
 * directories and their diffs.
 *
 * With TEST_CMAKE_BUILD_DIR set (a colon-separated list of real build
 * directories), it also writes the cmake-cache-provenance document of
 * those directories (labels: their base names) to TEST_CMAKE_OUT, for the
 * end-to-end tests t55xx; the synthetic cases run either way.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "../../provenance/record/cmakeprov.h"
#include "../../lib/jsonio.h"
#include "unit.h"

static char *tmp;

static void
put(const char *dir, const char *rel, const char *text)
{
	char *path = ab_sprintf("%s/%s", dir, rel), *d = ab_path_dirname(path);

	if (ab_mkdir_p(d, 0777) < 0 || ab_write_file_atomic(path, text, strlen(text)) < 0)
		exit(1);
	free(d);
	free(path);
}

static const char *
key_field(const cJSON *o, const char *key, const char *field)
{
	return ab_json_str(cJSON_GetObjectItemCaseSensitive(o, key), field);
}

static const char cache_text[] =
	"# This is the CMakeCache file.\n"
	"# For build in directory: /b\n"
	"\n"
	"//Build with Jemalloc support\n"
	"FLB_JEMALLOC:BOOL=On\n"
	"   // an indented comment\n"
	"   FLB_INDENTED:BOOL=OFF\n"
	"FLB_JEMALLOC_OPTIONS:UNINITIALIZED=--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30,dirty_decay_ms:0\n"
	"\"FLB_QUOTED:KEY=1\":STRING=a=b:c\n"
	"CMAKE_C_FLAGS:STRING='  padded  '\n"
	"CMAKE_BUILD_TYPE:STRING=\n"
	"ALLBLANK:STRING=   \n"
	"TRAIL:STRING=value \t \n"
	"CRLF:STRING=x y\r\n"
	"CMAKE_AR:FILEPATH=/usr/bin/ar\n"
	"CMAKE_C_FLAGS_DEBUG:STRING=-g\n"
	"CMAKE_C_FLAGS_RELEASE:STRING=-O3 -DNDEBUG\n"
	"CMAKE_C_FLAGS_RELWITHDEBINFO:STRING=-O2 -g -DNDEBUG\n"
	"CMAKE_C_FLAGS_MINSIZEREL:STRING=-Os -DNDEBUG\n"
	"WITH_JEMALLOC:BOOL=ON\n"
	"JEMALLOC_LIBRARY:FILEPATH=/usr/lib/libjemalloc.so\n"
	"JEMALLOC_INCLUDE_DIR:PATH=/usr/include\n"
	"MI_SECURE:BOOL=ON\n"
	"SANITIZE_ADDRESS:BOOL=Off\n"
	"DUP:STRING=first\n"
	"DUP:STRING=second\n"
	"########################\n"
	"# INTERNAL cache entries\n"
	"########################\n"
	"//ADVANCED property for variable: CMAKE_AR\n"
	"CMAKE_AR-ADVANCED:INTERNAL=1\n"
	"MI_SECURE-MODIFIED:INTERNAL=ON\n"
	"CMAKE_BUILD_TYPE-STRINGS:INTERNAL=Debug;Release\n"
	"NO_SUCH_BASE-ADVANCED:INTERNAL=1\n"
	"-ADVANCED:INTERNAL=1\n"
	"NOT_A_PROPERTY-ADVANCED:STRING=x\n"
	"FLB_HAVE_C_TLS:INTERNAL=1\n"
	"PC_JEMALLOC_FOUND:INTERNAL=1\n"
	"CMAKE_HOME_DIRECTORY:INTERNAL=/src\n"
	"CMAKE_CACHEFILE_DIR:INTERNAL=/b\n";

static void
test_cache_parse(void)
{
	cJSON *c = NULL;
	const cJSON *e;

	CHECK(ab_cmakeprov_parse_cache(&c, cache_text, strlen(cache_text), "CMakeCache.txt") == 0);
	CHECK_STR(key_field(c, "FLB_JEMALLOC", "type"), "BOOL");
	CHECK_STR(key_field(c, "FLB_JEMALLOC", "value"), "On");
	CHECK_STR(key_field(c, "FLB_INDENTED", "value"), "OFF");
	CHECK_STR(key_field(c, "FLB_JEMALLOC_OPTIONS", "type"), "UNINITIALIZED");
	CHECK_STR(key_field(c, "FLB_JEMALLOC_OPTIONS", "value"),
	          "--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30,dirty_decay_ms:0");
	CHECK_STR(key_field(c, "FLB_QUOTED:KEY=1", "type"), "STRING");
	CHECK_STR(key_field(c, "FLB_QUOTED:KEY=1", "value"), "a=b:c");
	CHECK_STR(key_field(c, "CMAKE_C_FLAGS", "value"), "  padded  ");
	CHECK_STR(key_field(c, "CMAKE_BUILD_TYPE", "value"), "");
	CHECK_STR(key_field(c, "ALLBLANK", "value"), "   ");
	CHECK_STR(key_field(c, "TRAIL", "value"), "value");
	CHECK_STR(key_field(c, "CRLF", "value"), "x y");
	CHECK_STR(key_field(c, "DUP", "value"), "second");
	/* properties fold into their entries */
	e = cJSON_GetObjectItemCaseSensitive(c, "CMAKE_AR");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "advanced")));
	CHECK_STR(key_field(c, "CMAKE_AR", "value"), "/usr/bin/ar");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "MI_SECURE"), "modified")));
	CHECK_STR(key_field(c, "CMAKE_BUILD_TYPE", "strings"), "Debug;Release");
	CHECK(!cJSON_GetObjectItemCaseSensitive(c, "CMAKE_AR-ADVANCED"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(c, "NO_SUCH_BASE-ADVANCED"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(c, "NO_SUCH_BASE"));
	/* "-ADVANCED" alone names no base entry: an ordinary INTERNAL entry */
	CHECK_STR(key_field(c, "-ADVANCED", "type"), "INTERNAL");
	CHECK_STR(key_field(c, "NOT_A_PROPERTY-ADVANCED", "value"), "x");
	CHECK_STR(key_field(c, "FLB_HAVE_C_TLS", "type"), "INTERNAL");
	CHECK(cJSON_GetArraySize(c) == 26);
	cJSON_Delete(c);

	/* malformed entries are refused */
	CHECK(ab_cmakeprov_parse_cache(&c, "A:STRING=1\nNOCOLON=1\n", 21, "x") < 0 && !c);
	CHECK(ab_cmakeprov_parse_cache(&c, "KEY:TYPE\n", 9, "x") < 0);
	CHECK(ab_cmakeprov_parse_cache(&c, "A=B:STRING=x\n", 13, "x") < 0);
	CHECK(ab_cmakeprov_parse_cache(&c, "\"unterminated:STRING=1\n", 23, "x") < 0);
	CHECK(ab_cmakeprov_parse_cache(&c, "\"Q\"STRING=1\n", 12, "x") < 0);
	/* empty text and no final newline */
	CHECK(ab_cmakeprov_parse_cache(&c, "", 0, "x") == 0 && cJSON_GetArraySize(c) == 0);
	cJSON_Delete(c);
	CHECK(ab_cmakeprov_parse_cache(&c, "A:BOOL=ON", 9, "x") == 0);
	CHECK_STR(key_field(c, "A", "value"), "ON");
	cJSON_Delete(c);
	/* a NUL byte inside a line never crashes */
	CHECK(ab_cmakeprov_parse_cache(&c, "A:BOOL=O\0N\n", 11, "x") == 0);
	cJSON_Delete(c);
}

static void
test_flags_parse(void)
{
	static const char text[] =
		"# CMAKE generated file: DO NOT EDIT!\n"
		"# Generated by \"Unix Makefiles\" Generator, CMake Version 3.25\n"
		"\n"
		"# compile C with /usr/bin/cc\n"
		"C_DEFINES = -DFLB_HAVE_JEMALLOC -DX=\"a = b\"\n"
		"\n"
		"C_INCLUDES = -I/b/include -I/src/include\n"
		"\n"
		"C_FLAGS =  -Wall -g -fPIE  \n"
		"CXX_FLAGS=-O2\n"
		"CXX_DEFINES = \n"
		"# Custom flags: src/a.c.o_FLAGS = -O0\n";
	cJSON *f = NULL;

	CHECK(ab_cmakeprov_parse_flags(&f, text, strlen(text), "flags.make") == 0);
	CHECK_STR(ab_json_str(f, "C_DEFINES"), "-DFLB_HAVE_JEMALLOC -DX=\"a = b\"");
	CHECK_STR(ab_json_str(f, "C_INCLUDES"), "-I/b/include -I/src/include");
	CHECK_STR(ab_json_str(f, "C_FLAGS"), "-Wall -g -fPIE");
	CHECK_STR(ab_json_str(f, "CXX_FLAGS"), "-O2");
	CHECK_STR(ab_json_str(f, "CXX_DEFINES"), "");
	CHECK(cJSON_GetArraySize(f) == 5);
	cJSON_Delete(f);
	CHECK(ab_cmakeprov_parse_flags(&f, "C_FLAGS -g\n", 11, "x") < 0 && !f);
	CHECK(ab_cmakeprov_parse_flags(&f, "= -g\n", 5, "x") < 0);
	CHECK(ab_cmakeprov_parse_flags(&f, "C-FLAGS = -g\n", 13, "x") < 0);
}

static void
test_compiler_parse(void)
{
	static const char text[] =
		"set(CMAKE_C_COMPILER \"/usr/bin/cc\")\n"
		"set(CMAKE_C_COMPILER_ARG1 \"\")\n"
		"set(CMAKE_C_COMPILER_ID \"GNU\")\n"
		"set(CMAKE_C_COMPILER_VERSION \"12.2.0\")\n"
		"set(CMAKE_C_COMPILER_ID_RUN 1)\n"
		"set(CMAKE_C_ESC \"a\\\"b\\\\c;d\")\n"
		"set(CMAKE_C_LIST a b c)\n"
		"set(CMAKE_C_EMPTY)\n"
		"if(CMAKE_C_SIZEOF_DATA_PTR)\n"
		"  set(CMAKE_SIZEOF_VOID_P \"${CMAKE_C_SIZEOF_DATA_PTR}\")\n"
		"endif()\n";
	cJSON *v = NULL;

	CHECK(ab_cmakeprov_parse_compiler(&v, text, strlen(text), "CMakeCCompiler.cmake") == 0);
	CHECK_STR(ab_json_str(v, "CMAKE_C_COMPILER"), "/usr/bin/cc");
	CHECK_STR(ab_json_str(v, "CMAKE_C_COMPILER_ARG1"), "");
	CHECK_STR(ab_json_str(v, "CMAKE_C_COMPILER_ID"), "GNU");
	CHECK_STR(ab_json_str(v, "CMAKE_C_COMPILER_VERSION"), "12.2.0");
	CHECK_STR(ab_json_str(v, "CMAKE_C_COMPILER_ID_RUN"), "1");
	CHECK_STR(ab_json_str(v, "CMAKE_C_ESC"), "a\"b\\c;d");
	CHECK_STR(ab_json_str(v, "CMAKE_C_EMPTY"), "");
	CHECK_STR(ab_json_str(v, "CMAKE_SIZEOF_VOID_P"), "${CMAKE_C_SIZEOF_DATA_PTR}");
	CHECK(!cJSON_GetObjectItemCaseSensitive(v, "CMAKE_C_LIST"));
	cJSON_Delete(v);
	CHECK(ab_cmakeprov_parse_compiler(&v, "set(A \"open\n", 12, "x") < 0 && !v);
}

static void
test_cfgcmd_parse(void)
{
	static const char text[] =
		"cmd='/s/lib/jemalloc-5.3.0/configure;--with-lg-quantum=3;"
		"--with-malloc-conf=a:1,b:2;--prefix=<INSTALL_DIR>;"
		"CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'\n";
	static const char tricky[] = "cmd='a\\;b;[c;d];;e\\f;'it's''";
	cJSON *a = NULL;

	CHECK(ab_cmakeprov_parse_cfgcmd(&a, text, strlen(text), "jemalloc-cfgcmd.txt") == 0);
	CHECK(cJSON_GetArraySize(a) == 5);
	CHECK_STR(cJSON_GetArrayItem(a, 0)->valuestring, "/s/lib/jemalloc-5.3.0/configure");
	CHECK_STR(cJSON_GetArrayItem(a, 2)->valuestring, "--with-malloc-conf=a:1,b:2");
	CHECK_STR(cJSON_GetArrayItem(a, 4)->valuestring, "CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops");
	cJSON_Delete(a);
	CHECK(ab_cmakeprov_parse_cfgcmd(&a, tricky, strlen(tricky), "x") == 0);
	CHECK(cJSON_GetArraySize(a) == 4);
	CHECK_STR(cJSON_GetArrayItem(a, 0)->valuestring, "a;b");
	CHECK_STR(cJSON_GetArrayItem(a, 1)->valuestring, "[c;d]");
	CHECK_STR(cJSON_GetArrayItem(a, 2)->valuestring, "e\\f");
	CHECK_STR(cJSON_GetArrayItem(a, 3)->valuestring, "'it's'");
	cJSON_Delete(a);
	CHECK(ab_cmakeprov_parse_cfgcmd(&a, "cmd=x", 5, "x") < 0 && !a);
	CHECK(ab_cmakeprov_parse_cfgcmd(&a, "cmd='abc\n", 9, "x") < 0);
	CHECK(ab_cmakeprov_parse_cfgcmd(&a, "cmd='", 5, "x") < 0);
}

static void
test_build_type(void)
{
	cJSON *c = NULL;

	CHECK(ab_cmakeprov_parse_cache(&c, cache_text, strlen(cache_text), "x") == 0);
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", "-Wall -g -fPIE"), "Debug");
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", "-Wall -O2 -g -DNDEBUG -fPIE"), "RelWithDebInfo");
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", "-g -O3 -DNDEBUG"), "Release");
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", "-Os -DNDEBUG"), "MinSizeRel");
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", "-Wall -fPIE"), "");
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", "-Wall -g3 -O3"), "");
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "C", ""), "");
	/* no CXX flags in this cache */
	CHECK_STR(ab_cmakeprov_detect_build_type(c, "CXX", "-g"), "");
	cJSON_Delete(c);
}

/* a synthetic build directory of the flb-like shape */
static char *
make_build(const char *name, const char *src, const char *jemalloc_options, int release)
{
	char *b = ab_sprintf("%s/%s", tmp, name);
	struct ab_buf t = {0};

	ab_buf_printf(&t,
	              "# For build in directory: %s\n"
	              "CMAKE_AR:FILEPATH=/usr/bin/ar\n"
	              "CMAKE_BUILD_TYPE:STRING=%s\n"
	              "CMAKE_C_COMPILER:FILEPATH=/usr/bin/cc\n"
	              "CMAKE_C_FLAGS:STRING=\n"
	              "CMAKE_C_FLAGS_DEBUG:STRING=-g\n"
	              "CMAKE_C_FLAGS_RELEASE:STRING=-O3 -DNDEBUG\n"
	              "CMAKE_C_FLAGS_RELWITHDEBINFO:STRING=-O2 -g -DNDEBUG\n"
	              "CMAKE_C_FLAGS_MINSIZEREL:STRING=-Os -DNDEBUG\n"
	              "FLB_DEBUG:BOOL=%s\n"
	              "FLB_RELEASE:BOOL=%s\n"
	              "FLB_JEMALLOC:BOOL=On\n",
	              b, release ? "Release" : "", release ? "Off" : "ON", release ? "On" : "OFF");
	if (jemalloc_options)
		ab_buf_printf(&t, "FLB_JEMALLOC_OPTIONS:UNINITIALIZED=%s\n", jemalloc_options);
	ab_buf_printf(&t,
	              "WITH_JEMALLOC:BOOL=ON\n"
	              "CMAKE_AR-ADVANCED:INTERNAL=1\n"
	              "CMAKE_CACHEFILE_DIR:INTERNAL=%s\n"
	              "CMAKE_CACHE_MAJOR_VERSION:INTERNAL=3\n"
	              "CMAKE_CACHE_MINOR_VERSION:INTERNAL=25\n"
	              "CMAKE_CACHE_PATCH_VERSION:INTERNAL=1\n"
	              "CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n"
	              "CMAKE_HOME_DIRECTORY:INTERNAL=%s\n", b, src);
	put(b, "CMakeCache.txt", t.s);
	put(b, "CMakeFiles/3.25.1/CMakeCCompiler.cmake",
	    "set(CMAKE_C_COMPILER \"/usr/bin/cc\")\n"
	    "set(CMAKE_C_COMPILER_ID \"GNU\")\n"
	    "set(CMAKE_C_COMPILER_VERSION \"12.2.0\")\n");
	ab_buf_clear(&t);
	ab_buf_printf(&t, "%s/CMakeFiles/jemalloc.dir\n%s/src/CMakeFiles/fluent-bit-bin.dir\n"
	              "%s/src/CMakeFiles/fluent-bit-static.dir\n%s/lib/co/CMakeFiles/co.dir\n", b, b, b, b);
	put(b, "CMakeFiles/TargetDirectories.txt", t.s);
	/* a bundled library that sets its own build type, as Fluent Bit's co does */
	put(b, "lib/co/CMakeFiles/co.dir/flags.make", "C_FLAGS = -Wall -g -fPIC\n");
	ab_buf_clear(&t);
	ab_buf_printf(&t, "# compile C with /usr/bin/cc\nC_DEFINES = -DFLB_HAVE_JEMALLOC\n\n"
	              "C_INCLUDES = -I%s/include -I%s/include\n\nC_FLAGS =  -Wall %s -fPIE\n",
	              b, src, release ? "-O2 -g -DNDEBUG" : "-g");
	put(b, "src/CMakeFiles/fluent-bit-bin.dir/flags.make", t.s);
	put(b, "src/CMakeFiles/fluent-bit-static.dir/flags.make", t.s);
	ab_buf_clear(&t);
	ab_buf_printf(&t, "/usr/bin/c++ %s \"CMakeFiles/fluent-bit-bin.dir/fluent-bit.c.o\" -o ../bin/fluent-bit  "
	              "../lib/libjemalloc_pic.a ../library/libfluent-bit.a -lpthread -ldl -lm ../lib/libjemalloc_pic.a \n",
	              release ? "-O2 -g -DNDEBUG" : "-g");
	put(b, "src/CMakeFiles/fluent-bit-bin.dir/link.txt", t.s);
	put(b, "CMakeFiles/jemalloc.dir/build.make", "# no flags.make for a custom target\n");
	ab_buf_clear(&t);
	ab_buf_printf(&t, "cmd='%s/lib/jemalloc-5.3.0/configure;%s;--prefix=<INSTALL_DIR>;"
	              "CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'\n",
	              src, jemalloc_options ? "--with-lg-quantum=3;--with-malloc-conf=lg_extent_max_active_fit:30"
	                                    : "--with-lg-quantum=3");
	put(b, "jemalloc-prefix/tmp/jemalloc-cfgcmd.txt", t.s);
	put(b, "jemalloc-prefix/src/jemalloc-build/VERSION", "0.0.0-0-g000000missing_version_try_git_fetch_tags\n");
	ab_buf_free(&t);
	return b;
}

static const cJSON *
diff_find(const cJSON *d, const char *key)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, d)
		if (strcmp(ab_json_str(it, "key"), key) == 0)
			return it;
	return NULL;
}

static void
test_records(void)
{
	char *src1 = ab_sprintf("%s/src-a", tmp), *src2 = ab_sprintf("%s/src-b", tmp);
	char *b1 = make_build("stock", src1, NULL, 0);
	char *b2 = make_build("special", src2, "--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30", 0);
	char *b3 = make_build("release", src1, NULL, 1);
	char *want[] = {"fluent-bit-bin", "no-such-target"};
	cJSON *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL, *d = NULL, *doc;
	const cJSON *keys, *t, *bt, *j, *x;
	char *s;

	CHECK(ab_cmakeprov_read(&r1, b1, NULL, 0) == 0);
	CHECK(ab_cmakeprov_read(&r2, b2, NULL, 0) == 0);
	CHECK(ab_cmakeprov_read(&r3, b3, want, 2) == 0);
	if (!r1 || !r2 || !r3)
		return;
	CHECK_STR(ab_json_str(r1, "build_dir"), b1);
	CHECK_STR(ab_json_str(r1, "source_dir"), src1);
	CHECK_STR(key_field(r1, "cmake", "version"), "3.25.1");
	CHECK_STR(key_field(r1, "cmake", "generator"), "Unix Makefiles");
	CHECK(strlen(key_field(r1, "cache", "sha256")) == 64);
	keys = cJSON_GetObjectItemCaseSensitive(r1, "keys");
	CHECK_STR(key_field(keys, "FLB_JEMALLOC", "value"), "On");
	CHECK_STR(key_field(keys, "FLB_JEMALLOC", "type"), "BOOL");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(keys, "FLB_JEMALLOC_OPTIONS"), "defaulted")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(keys, "FLB_IPO")));
	CHECK(!cJSON_GetObjectItemCaseSensitive(keys, "WITH_JEMALLOC"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(keys, "CMAKE_CACHEFILE_DIR"));
	CHECK_STR(key_field(keys, "CMAKE_C_FLAGS_RELWITHDEBINFO", "value"), "-O2 -g -DNDEBUG");
	/* keys are sorted */
	CHECK_STR(keys->child->string, "CMAKE_AR");
	keys = cJSON_GetObjectItemCaseSensitive(r2, "keys");
	CHECK_STR(key_field(keys, "FLB_JEMALLOC_OPTIONS", "type"), "UNINITIALIZED");

	/* every target with a flags.make, sorted */
	t = cJSON_GetObjectItemCaseSensitive(r1, "targets");
	CHECK(cJSON_GetArraySize(t) == 3);
	CHECK_STR(t->child->string, "co");
	t = t->child->next;
	CHECK_STR(t->string, "fluent-bit-bin");
	CHECK_STR(ab_json_str(t, "dir"), "src/CMakeFiles/fluent-bit-bin.dir");
	CHECK_STR(key_field(t, "flags", "C_FLAGS"), "-Wall -g -fPIE");
	CHECK_STR(ab_json_str(t, "build_type"), "Debug");
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "link")) == 1);
	x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r1, "targets"), "fluent-bit-static");
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(x, "link")));

	bt = cJSON_GetObjectItemCaseSensitive(r1, "build_type");
	CHECK_STR(ab_json_str(bt, "cache"), "");
	CHECK_STR(ab_json_str(bt, "effective"), "Debug");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bt, "shadowed")));
	CHECK_STR(ab_json_str(bt, "evidence"), "co: C_FLAGS '-Wall -g -fPIC' has CMAKE_C_FLAGS_DEBUG '-g'");
	CHECK(!cJSON_GetObjectItemCaseSensitive(bt, "other_targets"));
	bt = cJSON_GetObjectItemCaseSensitive(r3, "build_type");
	CHECK_STR(ab_json_str(bt, "cache"), "Release");
	CHECK_STR(ab_json_str(bt, "effective"), "RelWithDebInfo");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bt, "shadowed")));
	CHECK_STR(ab_json_str(bt, "evidence"), "fluent-bit-bin: C_FLAGS '-Wall -O2 -g -DNDEBUG -fPIE' has CMAKE_C_FLAGS_RELWITHDEBINFO '-O2 -g -DNDEBUG'");
	/* the first named target decides */
	{
		char *co_first[] = {"co", "fluent-bit-bin"};
		cJSON *r5 = NULL;
		char *o;

		CHECK(ab_cmakeprov_read(&r5, b3, co_first, 2) == 0);
		bt = cJSON_GetObjectItemCaseSensitive(r5, "build_type");
		CHECK_STR(ab_json_str(bt, "effective"), "Debug");
		o = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(bt, "other_targets"));
		CHECK_STR(o, "{\"RelWithDebInfo\":[\"fluent-bit-bin\"]}");
		free(o);
		cJSON_Delete(r5);
	}

	/* named targets only; an unknown one is recorded as not found */
	t = cJSON_GetObjectItemCaseSensitive(r3, "targets");
	CHECK(cJSON_GetArraySize(t) == 2);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "no-such-target"), "found")));

	x = cJSON_GetObjectItemCaseSensitive(r1, "compilers");
	CHECK_STR(key_field(x, "C", "version"), "12.2.0");
	CHECK_STR(key_field(x, "C", "id"), "GNU");
	CHECK_STR(key_field(x, "C", "path"), "/usr/bin/cc");
	CHECK_STR(key_field(x, "C", "file"), "CMakeFiles/3.25.1/CMakeCCompiler.cmake");
	CHECK(!cJSON_GetObjectItemCaseSensitive(x, "CXX"));

	j = cJSON_GetObjectItemCaseSensitive(r2, "jemalloc");
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "configure")) == 5);
	CHECK_STR(ab_json_str(j, "version"), "0.0.0-0-g000000missing_version_try_git_fetch_tags");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "bogus_version")));

	/* a record agrees with itself */
	CHECK(ab_cmakeprov_diff(&d, r1, r1) == 0 && cJSON_GetArraySize(d) == 0);
	cJSON_Delete(d);

	/* two variants in other directories differ exactly where configured */
	CHECK(ab_cmakeprov_diff(&d, r1, r2) == 0);
	s = cJSON_PrintUnformatted(d);
	CHECK_STR(s, "[{\"section\":\"keys\",\"key\":\"FLB_JEMALLOC_OPTIONS\",\"a\":\"absent\","
	             "\"b\":\"UNINITIALIZED=--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30\"},"
	             "{\"section\":\"jemalloc\",\"key\":\"configure\","
	             "\"a\":\"<source>/lib/jemalloc-5.3.0/configure --with-lg-quantum=3 '--prefix=<INSTALL_DIR>' "
	             "'CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'\","
	             "\"b\":\"<source>/lib/jemalloc-5.3.0/configure --with-lg-quantum=3 "
	             "--with-malloc-conf=lg_extent_max_active_fit:30 '--prefix=<INSTALL_DIR>' "
	             "'CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'\"}]");
	free(s);
	cJSON_Delete(d);

	/* FLB_DEBUG against FLB_RELEASE: keys, effective type, flags, link */
	CHECK(ab_cmakeprov_read(&r4, b3, NULL, 0) == 0);
	CHECK(ab_cmakeprov_diff(&d, r1, r4) == 0);
	CHECK(cJSON_GetArraySize(d) == 10);
	/* the majority decides; the others are listed */
	x = diff_find(d, "other_targets");
	CHECK_STR(ab_json_str(x, "a"), "absent");
	CHECK_STR(ab_json_str(x, "b"), "Debug: co");
	x = diff_find(d, "CMAKE_BUILD_TYPE");
	CHECK_STR(ab_json_str(x, "a"), "STRING=");
	CHECK_STR(ab_json_str(x, "b"), "STRING=Release");
	CHECK_STR(ab_json_str(diff_find(d, "FLB_DEBUG"), "b"), "BOOL=Off");
	CHECK_STR(ab_json_str(diff_find(d, "FLB_RELEASE"), "b"), "BOOL=On");
	CHECK_STR(ab_json_str(diff_find(d, "effective"), "a"), "Debug");
	CHECK_STR(ab_json_str(diff_find(d, "effective"), "b"), "RelWithDebInfo");
	CHECK_STR(ab_json_str(diff_find(d, "fluent-bit-bin:C_FLAGS"), "b"), "-Wall -O2 -g -DNDEBUG -fPIE");
	CHECK_STR(ab_json_str(diff_find(d, "fluent-bit-static:build_type"), "b"), "RelWithDebInfo");
	CHECK(diff_find(d, "fluent-bit-bin:link") != NULL);
	cJSON_Delete(d);

	/* the document: records per variant, diffs against the first */
	doc = ab_cmakeprov_doc_new();
	CHECK(ab_cmakeprov_doc_add(doc, "stock", r1) == 0);
	CHECK(ab_cmakeprov_doc_add(doc, "special", r2) == 0);
	CHECK(ab_cmakeprov_doc_add(doc, "release", r4) == 0);
	/* r3 is taken (and freed) on error too */
	CHECK(ab_cmakeprov_doc_add(doc, "stock", r3) < 0);
	CHECK_STR(ab_json_str(doc, "_type"), "https://allocbuild.dev/cmake-cache-provenance/v1");
	CHECK_STR(ab_json_str(doc, "baseline"), "stock");
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "variants")) == 3);
	x = cJSON_GetObjectItemCaseSensitive(doc, "diffs");
	CHECK(cJSON_GetArraySize(x) == 2);
	CHECK_STR(ab_json_str(cJSON_GetArrayItem(x, 0), "b"), "special");
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(x, 0), "differences")) == 2);
	cJSON_Delete(doc);

	/* errors: no cache, a malformed cache, a malformed flags.make */
	CHECK(ab_cmakeprov_read(&r1, src1, NULL, 0) < 0 && !r1);
	put(b2, "CMakeCache.txt", "garbage\n");
	CHECK(ab_cmakeprov_read(&r2, b2, NULL, 0) < 0 && !r2);
	put(b1, "src/CMakeFiles/fluent-bit-bin.dir/flags.make", "C_FLAGS -g\n");
	CHECK(ab_cmakeprov_read(&r1, b1, NULL, 0) < 0 && !r1);
	x = cJSON_CreateObject();
	CHECK(ab_cmakeprov_diff(&d, NULL, x) < 0 && !d);
	CHECK(ab_cmakeprov_diff(&d, x, x) < 0 && !d);
	cJSON_Delete((cJSON *)x);
	free(src1), free(src2), free(b1), free(b2), free(b3);
}

/* the t55xx end-to-end tests: a document of real build directories */
static int
real_builds(const char *dirs, const char *out)
{
	char *copy = ab_strdup(dirs), *save = NULL, *dir;
	cJSON *doc = ab_cmakeprov_doc_new();
	int error = -1;

	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		const char *label = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
		cJSON *rec;

		if (ab_cmakeprov_read(&rec, dir, NULL, 0) < 0 || ab_cmakeprov_doc_add(doc, label, rec) < 0)
			goto done;
	}
	error = ab_json_write(out, doc);
done:
	cJSON_Delete(doc);
	free(copy);
	return error;
}

int
main(void)
{
	const char *base = getenv("TMPDIR"), *real = getenv("TEST_CMAKE_BUILD_DIR");

	tmp = ab_sprintf("%s/ab-test-cmakeprov.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_cache_parse();
	test_flags_parse();
	test_compiler_parse();
	test_cfgcmd_parse();
	test_build_type();
	test_records();
	ab_rm_rf(tmp);
	free(tmp);
	if (real && *real) {
		const char *out = getenv("TEST_CMAKE_OUT");

		CHECK(out && *out);
		CHECK(out && real_builds(real, out) == 0);
	}
	return unit_done();
}
