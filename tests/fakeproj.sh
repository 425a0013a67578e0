# Helpers for the build tests (t4xxx): a tiny autotools-shaped project
# packed as a tarball in a --mirror-dir layout, so that failure paths are
# tested without compiling an allocator.
#   make_fakeproj DIR   ->  prints the tarball's sha256; DIR/mirror/sha256/<hex>
# The project's configure honours:
#   --fail        print 40 numbered lines and exit 1
#   --escape=DIR  make the symlink escape -> DIR in the build directory (a build step that escapes)
#   --fail-early  fail on line 12 of 224 (the cause, then a long banner), exit 1
# and its lib/libfake.a rule waits half-way while the file named by the
# environment variable FAKE_HOLD exists (set it through the recipe's build.env).
make_fakeproj() {
	local dir=$1 src=$1/fakeproj-1.0
	mkdir -p "$src" "$dir/mirror/sha256"
	cat >"$src/configure" <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
for a in "$@"; do
	case $a in
	--fail) i=1; while [ $i -le 40 ]; do echo "checking line $i"; i=$((i+1)); done
		echo "configure: error: asked to fail" >&2; exit 1 ;;
	--escape=*) ln -s "${a#--escape=}" escape ;;
	--fail-early) i=1; while [ $i -le 11 ]; do echo "checking line $i"; i=$((i+1)); done
		echo "./configure: 12: lib/jemalloc-5.3.0/configure: not found" >&2
		i=13; while [ $i -le 224 ]; do echo "libtool: install: line $i of the banner"; i=$((i+1)); done
		exit 1 ;;
	esac
done
sed -e "s|@srcdir@|$srcdir|" "$srcdir/Makefile.in" >Makefile
echo "configured in $(pwd)"
CFG
	chmod +x "$src/configure"
	printf 'all: lib/libfake.a bin/fake\n\nlib/libfake.a: @srcdir@/fake.c\n\tmkdir -p lib\n\techo partial >lib/libfake.a.tmp\n\tif [ -n "$$FAKE_HOLD" ]; then while [ -e "$$FAKE_HOLD" ]; do sleep 0.1; done; fi\n\techo "fake 1.2.3-0-gabcdef0123456789 library" >lib/libfake.a.tmp\n\tmv lib/libfake.a.tmp lib/libfake.a\n\nbin/fake: @srcdir@/fake.c lib/libfake.a\n\tmkdir -p bin\n\tcc -o bin/fake @srcdir@/fake.c\n' >"$src/Makefile.in"
	printf '#include <stdio.h>\nint main(void) { puts("fake"); return 0; }\n' >"$src/fake.c"
	pack_mirror "$dir" fakeproj-1.0
}

# make_fakecmake DIR -> prints the sha256 of a tiny CMake project (a static
# library "fakealloc" whose message depends on -DFLB_FAKE_TAG, and a program
# "prog" linked against it), stored in DIR/mirror/sha256/<hex>;
# -DFAKE_ESCAPE=DIR makes the symlink escape -> DIR in the build directory
make_fakecmake() {
	local dir=$1 src=$1/fakecmake-1.0
	mkdir -p "$src" "$dir/mirror/sha256"
	cat >"$src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(fakecmake C)
set(FLB_FAKE_TAG "plain" CACHE STRING "tag compiled into the library")
add_library(fakealloc STATIC alloc.c)
target_compile_definitions(fakealloc PRIVATE FAKE_TAG="${FLB_FAKE_TAG}")
add_executable(prog main.c)
target_link_libraries(prog fakealloc)
if(FAKE_ESCAPE)
  file(CREATE_LINK "${FAKE_ESCAPE}" "${CMAKE_BINARY_DIR}/escape" SYMBOLIC)
endif()
CM
	printf 'const char *fake_tag(void) { return "fake 2.0.0-0-g0123456789abcdef " FAKE_TAG; }\n' >"$src/alloc.c"
	printf '#include <stdio.h>\nconst char *fake_tag(void);\nint main(void) { puts(fake_tag()); return 0; }\n' >"$src/main.c"
	pack_mirror "$dir" fakecmake-1.0
}

# make_fakecmake_relink_recipe FILE: make_fakecmake in the current directory
# and write FILE, the recipe "cm": cmake variants a (FLB_FAKE_TAG=A, prog
# and libfakealloc.a) and b (FLB_FAKE_TAG=B, libfakealloc.a), and the
# relink a-with-b of a's prog with b's libfakealloc.a into prog-relinked
make_fakecmake_relink_recipe() {
	local sha
	sha=$(make_fakecmake "$PWD")
	cat >"$1" <<JSON
{
	"recipe": 1,
	"name": "cm",
	"sources": {
		"fc": {"archive": {"urls": ["https://example.invalid/fakecmake-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}
	},
	"variants": [
		{"label": "a", "source": "fc",
		 "build": {"system": "cmake", "defines": {"FLB_FAKE_TAG": "A"}, "targets": ["prog"]},
		 "artifacts": ["prog", "libfakealloc.a"]},
		{"label": "b", "source": "fc",
		 "build": {"system": "cmake", "defines": {"FLB_FAKE_TAG": "B"}, "targets": ["prog"]},
		 "artifacts": ["libfakealloc.a"]},
		{"label": "a-with-b", "relink": {"from": "a", "link_txt": "CMakeFiles/prog.dir/link.txt",
			"replace": [{"path": "libfakealloc.a", "with": {"variant": "b", "artifact": "libfakealloc.a"}}],
			"output": "prog-relinked"}}
	]
}
JSON
}

# make_fakecmake_shard_recipe FILE: make_fakecmake_relink_recipe plus a
# runtime_of variant b-env (FAKE_X=1) and a third build variant c
# (FLB_FAKE_TAG=C, prog): five variants to split into shards
make_fakecmake_shard_recipe() {
	make_fakecmake_relink_recipe "$1"
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["variants"].append({"label": "b-env", "runtime_of": "b", "runtime": {"env": {"FAKE_X": "1"}}})
d["variants"].append({"label": "c", "source": "fc",
    "build": {"system": "cmake", "defines": {"FLB_FAKE_TAG": "C"}, "targets": ["prog"]}, "artifacts": ["prog"]})
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
}

# make_noisyproj DIR -> prints the sha256 of a tiny autotools-shaped
# project, stored in DIR/mirror/sha256/<hex>, whose `make libnoise.a`
# writes 16 random bytes into noise.o (irreproducible on purpose) beside a
# stable.o, and whose `make libquiet.a` is reproducible. Both compile with
# -g from the absolute source directory (paths in the debug info), with
# that directory in a -D string (-D NAME=VALUE apart for stable.o), and
# archive with `ar rcU` and `ranlib -U` (real timestamps, unless a wrapper
# makes ar deterministic).
make_noisyproj() {
	local dir=$1 src=$1/noisyproj-1.0
	mkdir -p "$src" "$dir/mirror/sha256"
	cat >"$src/configure" <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
sed -e "s|@srcdir@|$srcdir|g" "$srcdir/Makefile.in" >Makefile
CFG
	chmod +x "$src/configure"
	cat >"$src/Makefile.in" <<'MK'
all: libnoise.a libquiet.a
noise.c:
	printf 'const char noise[] = "%s";\n' "$$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" >noise.c
noise.o: noise.c
	cc -g -c noise.c -o noise.o
stable.o: @srcdir@/stable.c
	cc -g -D STABLE_WHERE='"@srcdir@/stable.c"' -c @srcdir@/stable.c -o stable.o
quiet.o: @srcdir@/quiet.c
	cc -g -DQUIET_WHERE='"@srcdir@/quiet.c"' -c @srcdir@/quiet.c -o quiet.o
libnoise.a: noise.o stable.o
	ar rcU libnoise.a noise.o stable.o
libquiet.a: quiet.o
	ar rcU libquiet.a quiet.o
	ranlib -U libquiet.a
MK
	printf 'int stable(void) { return 42; }\nconst char *stable_where(void) { return STABLE_WHERE; }\n' >"$src/stable.c"
	printf 'int quiet(int x) { return x + 1; }\nconst char *quiet_where(void) { return QUIET_WHERE; }\n' >"$src/quiet.c"
	pack_mirror "$dir" noisyproj-1.0
}

# make_fakeproj_recipe FILE [NAME]: make_fakeproj in the current directory and
# write FILE, the recipe NAME (default "fk"): one autotools variant t1 of the
# fake project with its library and program as artifacts. A build takes a
# fraction of a second.
make_fakeproj_recipe() {
	local sha
	sha=$(make_fakeproj "$PWD")
	cat >"$1" <<JSON
{"recipe": 1, "name": "${2:-fk}",
 "sources": {"f": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "t1", "source": "f", "build": {"system": "autotools"},
               "artifacts": ["lib/libfake.a", "bin/fake"]}]}
JSON
}

# make_fakeproj_runtime_recipe FILE [ENV_JSON]: recipe "fk" of the fake
# project, variant a (lib/libfake.a, bin/fake) and a2, a runtime_of a with
# the environment ENV_JSON (default {}): the policy tests' small build
make_fakeproj_runtime_recipe() {
	local sha
	sha=$(make_fakeproj "$PWD")
	cat >"$1" <<JSON
{
	"recipe": 1, "name": "fk",
	"sources": {"fake": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
	"variants": [{"label": "a", "source": "fake",
		"build": {"system": "autotools", "configure": [], "targets": ["all"]},
		"artifacts": ["lib/libfake.a", "bin/fake"]},
		{"label": "a2", "runtime_of": "a", "runtime": {"env": ${2:-{\}}}}]
}
JSON
}

# drive_fixed_records: ./drive PROGRAM runs PROGRAM and reports a figure
# that is the same in every run (records=1000): an A/A control judged on
# it shows no difference whatever the machine does
drive_fixed_records() {
	cat >drive <<'SH'
#!/bin/sh
"$1" >/dev/null || exit
echo "ALLOCBUILD_METRIC records=1000 count"
SH
	chmod +x drive
}

# make_pathproj DIR -> prints the sha256 of two tiny projects, one a line,
# that compile where they were built in ways no prefix map can undo
# (stored in DIR/mirror/sha256/<hex>): an autotools-shaped project
# (pathproj-auto.tar.gz, top directory auto: its
# configure writes config.h) and a CMake project (configure_file):
# config.h holds the build directory configure ran in
# (BUILD_DIR) and the source directory (SOURCE_DIR); where.c compiles both
# and sizeof(SOURCE_DIR), a length; files.c a table of __FILE__ values (its
# own and a header's); lib/libpath.a holds both objects and bin/pathprog
# prints them. The CMake one is pathproj-cmake.tar.gz, top directory cmake.
make_pathproj() {
	local dir=$1 src=$1/pathproj-1.0
	mkdir -p "$src/auto" "$src/cmake" "$dir/mirror/sha256"
	for d in auto cmake; do
		cat >"$src/$d/where.c" <<'C'
#include "config.h"
const char build_dir[] = BUILD_DIR;
const char source_dir[] = SOURCE_DIR;
const unsigned long source_dir_len = sizeof(SOURCE_DIR);
C
		printf 'static const char files_h[] = __FILE__;\n' >"$src/$d/files.h"
		printf '#include "files.h"\nconst char *const files[] = {__FILE__, files_h};\n' >"$src/$d/files.c"
		cat >"$src/$d/main.c" <<'C'
#include <stdio.h>
extern const char build_dir[], source_dir[];
extern const unsigned long source_dir_len;
extern const char *const files[];
int main(void) { printf("%s %s %lu %s %s\n", build_dir, source_dir, source_dir_len, files[0], files[1]); return 0; }
C
	done
	cat >"$src/auto/configure" <<'CFG'
#!/bin/sh
# as many configure scripts do: where it ran, written into a generated header
srcdir=$(cd "$(dirname "$0")" && pwd)
printf '#define BUILD_DIR "%s"\n#define SOURCE_DIR "%s"\n' "$(pwd)" "$srcdir" >config.h
sed -e "s|@srcdir@|$srcdir|g" "$srcdir/Makefile.in" >Makefile
echo "configured in $(pwd)"
CFG
	chmod +x "$src/auto/configure"
	cat >"$src/auto/Makefile.in" <<'MK'
CFLAGS = -O2 -g
all: lib/libpath.a bin/pathprog
obj/where.o: @srcdir@/where.c config.h
	mkdir -p obj
	$(CC) $(CFLAGS) -I. -c @srcdir@/where.c -o obj/where.o
obj/files.o: @srcdir@/files.c @srcdir@/files.h
	mkdir -p obj
	$(CC) $(CFLAGS) -I@srcdir@ -c @srcdir@/files.c -o obj/files.o
lib/libpath.a: obj/where.o obj/files.o
	mkdir -p lib
	$(AR) rcs lib/libpath.a obj/where.o obj/files.o
bin/pathprog: @srcdir@/main.c lib/libpath.a
	mkdir -p bin
	$(CC) $(CFLAGS) -o bin/pathprog @srcdir@/main.c lib/libpath.a
MK
	cat >"$src/cmake/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(pathcmake C)
set(CMAKE_C_FLAGS "-O2 -g")
# where CMake ran, written into a generated header
configure_file(config.h.in config.h)
add_library(path STATIC where.c files.c)
target_include_directories(path PRIVATE ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(path PROPERTIES ARCHIVE_OUTPUT_DIRECTORY lib)
add_executable(pathprog main.c)
target_link_libraries(pathprog path)
set_target_properties(pathprog PROPERTIES RUNTIME_OUTPUT_DIRECTORY bin)
CM
	printf '#define BUILD_DIR "@CMAKE_CURRENT_BINARY_DIR@"\n#define SOURCE_DIR "@CMAKE_CURRENT_SOURCE_DIR@"\n' \
		>"$src/cmake/config.h.in"
	local h
	for d in auto cmake; do
		tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$src" -czf "$dir/pathproj-$d.tar.gz" $d
		h=$(sha256sum "$dir/pathproj-$d.tar.gz" | cut -d' ' -f1)
		cp "$dir/pathproj-$d.tar.gz" "$dir/mirror/sha256/$h"
		echo "$h"
	done
}

# make_pathproj_recipe FILE: make_pathproj in the current directory and
# write FILE, the recipe "paths": variants auto (autotools) and cmake
# (CMake), each with lib/libpath.a and bin/pathprog as artifacts
make_pathproj_recipe() {
	local sha a c
	sha=$(make_pathproj "$PWD")
	a=$(echo "$sha" | sed -n 1p)
	c=$(echo "$sha" | sed -n 2p)
	cat >"$1" <<JSON
{"recipe": 1, "name": "paths",
 "sources": {
  "auto": {"archive": {"urls": ["https://example.invalid/pathproj-auto.tar.gz"], "sha256": "$a", "strip": 1}},
  "cmake": {"archive": {"urls": ["https://example.invalid/pathproj-cmake.tar.gz"], "sha256": "$c", "strip": 1}}
 },
 "variants": [
  {"label": "auto", "source": "auto", "build": {"system": "autotools"}, "artifacts": ["lib/libpath.a", "bin/pathprog"]},
  {"label": "cmake", "source": "cmake", "build": {"system": "cmake", "targets": ["pathprog"]},
   "artifacts": ["lib/libpath.a", "bin/pathprog"]}
 ]}
JSON
}

# make_campaignproj DIR [A3H] -> prints the sha256 of campaignproj-1.0.tar.gz
# (stored in DIR/mirror/sha256/<hex>): a small program of 20 C files and
# main.c, autotools-shaped, linked with lib/liballoc.a, the allocator that
# `configure --alloc=aN` (N = 1, 2 or 3) picks: alloc/aN.c, the only
# compile that differs between its variants; alloc/a3.c alone includes
# alloc/a3.h, which names it A3H (default "alloc3"). bin/prog prints the
# allocator's name and a sum of the 20 files' functions.
make_campaignproj() {
	local dir=$1 src=$1/campaignproj-1.0 i
	rm -rf "$src"
	mkdir -p "$src/alloc" "$src/lib" "$dir/mirror/sha256"
	printf 'int scale(int x);\n' >"$src/lib/common.h"
	: >"$src/objs"
	for i in $(seq -w 1 20); do
		printf '#include "common.h"\nint f%s(int x) { return scale(x) + %d; }\n' "$i" "$((10#$i))" >"$src/lib/f$i.c"
		echo "obj/f$i.o" >>"$src/objs"
	done
	printf '#include "common.h"\nint scale(int x) { return 2 * x; }\n' >"$src/lib/scale.c"
	{
		printf '#include <stdio.h>\nconst char *alloc_name(void);\n'
		for i in $(seq -w 1 20); do printf 'int f%s(int);\n' "$i"; done
		printf 'int main(void) { int s = 0;\n'
		for i in $(seq -w 1 20); do printf '\ts += f%s(%d);\n' "$i" "$((10#$i))"; done
		printf '\tprintf("%%s %%d\\n", alloc_name(), s); return 0; }\n'
	} >"$src/main.c"
	for i in 1 2; do printf 'const char *alloc_name(void) { return "alloc%s"; }\n' $i >"$src/alloc/a$i.c"; done
	printf '#include "a3.h"\nconst char *alloc_name(void) { return A3_NAME; }\n' >"$src/alloc/a3.c"
	printf '#define A3_NAME "%s"\n' "${2:-alloc3}" >"$src/alloc/a3.h"
	cat >"$src/configure" <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
alloc=a1
for a in "$@"; do
	case $a in --alloc=*) alloc=${a#--alloc=} ;; esac
done
sed -e "s|@srcdir@|$srcdir|g" -e "s|@alloc@|$alloc|g" -e "s|@objs@|$(tr '\n' ' ' <"$srcdir/objs")|" \
	"$srcdir/Makefile.in" >Makefile
echo "configured in $(pwd) with $alloc"
CFG
	chmod +x "$src/configure"
	cat >"$src/Makefile.in" <<'MK'
CFLAGS = -O2 -g
OBJS = @objs@ obj/scale.o
all: bin/prog
obj/%.o: @srcdir@/lib/%.c @srcdir@/lib/common.h
	@mkdir -p obj
	$(CC) $(CFLAGS) -I@srcdir@/lib -c $< -o $@
obj/main.o: @srcdir@/main.c
	@mkdir -p obj
	$(CC) $(CFLAGS) -c @srcdir@/main.c -o obj/main.o
obj/alloc.o: @srcdir@/alloc/@alloc@.c
	@mkdir -p obj
	$(CC) $(CFLAGS) -I@srcdir@/alloc -c @srcdir@/alloc/@alloc@.c -o obj/alloc.o
lib/liballoc.a: obj/alloc.o
	@mkdir -p lib
	$(AR) rcs lib/liballoc.a obj/alloc.o
bin/prog: $(OBJS) obj/main.o lib/liballoc.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o bin/prog obj/main.o $(OBJS) lib/liballoc.a
MK
	pack_mirror "$dir" campaignproj-1.0
}

# make_campaignproj_recipe FILE [A3H]: make_campaignproj in the current
# directory and write FILE, the recipe "campaign": variants v1, v2 and v3
# of the one source, configured with --alloc=a1, a2, a3
make_campaignproj_recipe() {
	local sha
	sha=$(make_campaignproj "$PWD" "${2:-alloc3}")
	cat >"$1" <<JSON
{"recipe": 1, "name": "campaign",
 "sources": {"prog": {"archive": {"urls": ["https://example.invalid/campaignproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [
  {"label": "v1", "source": "prog", "build": {"system": "autotools", "configure": ["--alloc=a1"]}, "artifacts": ["bin/prog", "lib/liballoc.a"]},
  {"label": "v2", "source": "prog", "build": {"system": "autotools", "configure": ["--alloc=a2"]}, "artifacts": ["bin/prog", "lib/liballoc.a"]},
  {"label": "v3", "source": "prog", "build": {"system": "autotools", "configure": ["--alloc=a3"]}, "artifacts": ["bin/prog", "lib/liballoc.a"]}
 ]}
JSON
}

# make_twins_recipe FILE [LABEL...]: write the directory waitproj (a
# program, bin/wait, that allocates ARG MiB, prints "ready PID" and waits
# for a signal; "--once": exits then; a figure of its own with "--metric
# NAME=VALUE") and FILE, the recipe "twins": variants normal53 and
# relink53, two builds of one source with one configure that give the
# same bytes (as Fluent Bit's relink of 5.3.1 with the 5.3.0 archive is
# its normal 5.3.0 build), and other, configured with --other: other
# bytes. Each LABEL given adds a variant like other (another -DOTHER
# value each), for pages of many labels. A build takes about a second.
make_twins_recipe() {
	local file=$1 h extra="" n=1
	shift
	mkdir -p waitproj
	cat >waitproj/configure <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
cflags=
for a in "$@"; do
	case $a in --other) cflags=-DOTHER=1 ;; --other=*) cflags=-DOTHER=${a#--other=} ;; esac
done
sed -e "s|@srcdir@|$srcdir|" -e "s|@cflags@|$cflags|" "$srcdir/Makefile.in" >Makefile
CFG
	chmod +x waitproj/configure
	printf 'all: bin/wait\n\nbin/wait: @srcdir@/wait.c\n\tmkdir -p bin\n\tcc -O1 @cflags@ -o bin/wait @srcdir@/wait.c\n' \
		>waitproj/Makefile.in
	cat >waitproj/wait.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *volatile keep;

/* wait [MIB] [--once] [--metric NAME=VALUE]... */
int
main(int argc, char **argv)
{
	size_t mib = 1;
	int once = 0;
	char *p;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--once"))
			once = 1;
		else if (!strcmp(argv[i], "--metric") && i + 1 < argc)
			printf("ALLOCBUILD_METRIC %s\n", argv[++i]);
		else
			mib = (size_t)atoi(argv[i]);
	}
	if (!(p = malloc(mib << 20)))
		return 3;
	/* kept where the compiler must assume it is read: not a malloc, memset and free to leave out */
	keep = p;
	memset(p, 1, mib << 20);
#ifdef OTHER
	printf("other %d\n", OTHER);
#endif
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!once)
		pause();
	free(p);
	return 0;
}
C
	h=$("$AB" hash waitproj | cut -d' ' -f1)
	for l in "$@"; do
		n=$((n + 1))
		extra="$extra,
  {\"label\": \"$l\", \"source\": \"w\", \"build\": {\"system\": \"autotools\", \"configure\": [\"--other=$n\"]}, \"artifacts\": [\"bin/wait\"]}"
	done
	cat >"$file" <<JSON
{"recipe": 1, "name": "twins",
 "sources": {"w": {"dir": {"path": "waitproj", "dirHash": "$h"}}},
 "variants": [
  {"label": "normal53", "source": "w", "build": {"system": "autotools"}, "artifacts": ["bin/wait"]},
  {"label": "relink53", "source": "w", "build": {"system": "autotools"}, "artifacts": ["bin/wait"]},
  {"label": "other", "source": "w", "build": {"system": "autotools", "configure": ["--other"]}, "artifacts": ["bin/wait"]}$extra
 ]}
JSON
}

# make_allocproj DIR -> prints the sha256 of allocproj-1.0.tar.gz (stored in
# DIR/mirror/sha256/<hex>): a small program with a vendored allocator,
# buildable two ways, each shaped like a real campaign's. lib/minialloc is
# the allocator, jemalloc-shaped: its own configure
# (--with-lg-quantum=N, --with-malloc-conf=C) writes alloc_defs.h only
# when it changes (as config.status does) and a Makefile whose three
# objects depend on it. CMake (CMakeLists.txt): the allocator is an
# ExternalProject configured with ALLOC_OPTIONS, as Fluent Bit's jemalloc
# with FLB_JEMALLOC_OPTIONS, whose install step (`make install_include`)
# installs its public alloc.h into the build tree's include/, where
# main.c and f1.c include it (as every Fluent Bit object includes
# jemalloc.h), prog linked with its liballoc.a, PROG_TAG into config.h; artifacts prog and minialloc-prefix/src/minialloc-build/
# liballoc.a. Autotools-shaped (configure): --tag=T into config.h, every
# --with-* passed to the allocator's configure in alloc/, built there by a
# sub-make; artifacts bin/prog and alloc/liballoc.a. prog prints its tag,
# the quantum, the conf and a sum of four other files' functions.
make_allocproj() {
	local dir=$1 src=$1/allocproj-1.0 m i
	rm -rf "$src"
	mkdir -p "$src/lib/minialloc" "$dir/mirror/sha256"
	m=$src/lib/minialloc
	cat >"$m/configure" <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
q=3 conf=
for a in "$@"; do
	case $a in
	--with-lg-quantum=*) q=${a#*=} ;;
	--with-malloc-conf=*) conf=${a#*=} ;;
	esac
done
printf '#define LG_QUANTUM %s\n#define MALLOC_CONF "%s"\n' "$q" "$conf" >alloc_defs.h.new
if cmp -s alloc_defs.h.new alloc_defs.h; then
	rm alloc_defs.h.new
	echo "alloc_defs.h is unchanged"
else
	mv alloc_defs.h.new alloc_defs.h
fi
sed "s|@srcdir@|$srcdir|g" "$srcdir/Makefile.in" >Makefile
CFG
	chmod +x "$m/configure"
	printf 'CFLAGS = -O2 -g\nAOBJS = m1.o m2.o m3.o\nall: liballoc.a\n%%.o: @srcdir@/%%.c alloc_defs.h\n\t$(CC) $(CFLAGS) -I. -c $< -o $@\nliballoc.a: $(AOBJS)\n\trm -f $@\n\t$(AR) rcs $@ $(AOBJS)\ninstall_include:\n\tmkdir -p $(PREFIX)/include\n\tinstall -m 644 @srcdir@/alloc.h $(PREFIX)/include/alloc.h\n' >"$m/Makefile.in"
	printf 'int alloc_quantum(void), alloc_round(int), alloc_classes(void);\nconst char *alloc_conf(void);\n' >"$m/alloc.h"
	printf '#include "alloc_defs.h"\nint alloc_quantum(void) { return 1 << LG_QUANTUM; }\nconst char *alloc_conf(void) { return MALLOC_CONF; }\n' >"$m/m1.c"
	printf '#include "alloc_defs.h"\nint alloc_round(int n) { return (n + (1 << LG_QUANTUM) - 1) & ~((1 << LG_QUANTUM) - 1); }\n' >"$m/m2.c"
	printf '#include "alloc_defs.h"\nint alloc_classes(void) { return 64 >> LG_QUANTUM; }\n' >"$m/m3.c"
	for i in 1 2 3 4; do
		printf 'int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' $i $i >"$src/f$i.c"
	done
	printf '#ifdef HAVE_ALLOC_H\n#include "alloc.h"\n#endif\n' | cat - "$src/f2.c" >"$src/f2.c.new" && mv "$src/f2.c.new" "$src/f2.c"
	cat >"$src/main.c" <<'C'
#include <stdio.h>
#include "config.h"
#ifdef HAVE_ALLOC_H
#include "alloc.h"
#endif
int alloc_quantum(void), alloc_round(int), alloc_classes(void);
const char *alloc_conf(void);
int f1(int), f2(int), f3(int), f4(int);
int main(void)
{
	printf("%s %d %d %d '%s' %d\n", PROG_TAG, alloc_quantum(), alloc_round(5), alloc_classes(), alloc_conf(),
	    f1(3) + f2(4) + f3(5) + f4(6));
	return 0;
}
C
	printf '#define PROG_TAG "@PROG_TAG@"\n' >"$src/config.h.in"
	cat >"$src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(allocproj C)
include(ExternalProject)
set(PROG_TAG "plain" CACHE STRING "tag compiled into prog")
set(ALLOC_OPTIONS "" CACHE STRING "the allocator's configure options (as FLB_JEMALLOC_OPTIONS)")
separate_arguments(alloc_opts UNIX_COMMAND "${ALLOC_OPTIONS}")
ExternalProject_Add(minialloc
  SOURCE_DIR ${CMAKE_SOURCE_DIR}/lib/minialloc
  CONFIGURE_COMMAND <SOURCE_DIR>/configure ${alloc_opts}
  BUILD_COMMAND $(MAKE)
  INSTALL_COMMAND $(MAKE) install_include PREFIX=${CMAKE_BINARY_DIR}
  BUILD_BYPRODUCTS <BINARY_DIR>/liballoc.a)
ExternalProject_Get_Property(minialloc BINARY_DIR)
add_library(alloc STATIC IMPORTED)
set_target_properties(alloc PROPERTIES IMPORTED_LOCATION ${BINARY_DIR}/liballoc.a)
add_dependencies(alloc minialloc)
configure_file(config.h.in ${CMAKE_BINARY_DIR}/config.h)
add_executable(prog main.c f1.c f2.c f3.c f4.c)
target_include_directories(prog PRIVATE ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/include)
target_compile_definitions(prog PRIVATE HAVE_ALLOC_H)
target_link_libraries(prog alloc)
CM
	cat >"$src/configure" <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
tag=plain aopts=
for a in "$@"; do
	case $a in
	--tag=*) tag=${a#*=} ;;
	--with-*) aopts="$aopts $a" ;;
	esac
done
printf '#define PROG_TAG "%s"\n' "$tag" >config.h.new
if cmp -s config.h.new config.h; then rm config.h.new; else mv config.h.new config.h; fi
mkdir -p alloc && (cd alloc && "$srcdir/lib/minialloc/configure" $aopts) || exit 1
sed "s|@srcdir@|$srcdir|g" "$srcdir/Makefile.in" >Makefile
echo "configured in $(pwd) with tag $tag,$aopts"
CFG
	chmod +x "$src/configure"
	printf 'CFLAGS = -O2 -g\nOBJS = obj/f1.o obj/f2.o obj/f3.o obj/f4.o obj/main.o\nall: bin/prog\nalloc/liballoc.a: FORCE\n\t$(MAKE) -C alloc\nFORCE:\nobj/main.o: @srcdir@/main.c config.h\n\t@mkdir -p obj\n\t$(CC) $(CFLAGS) -I. -c @srcdir@/main.c -o $@\nobj/%%.o: @srcdir@/%%.c\n\t@mkdir -p obj\n\t$(CC) $(CFLAGS) -c $< -o $@\nbin/prog: $(OBJS) alloc/liballoc.a\n\t@mkdir -p bin\n\t$(CC) $(CFLAGS) -o $@ $(OBJS) alloc/liballoc.a\n' >"$src/Makefile.in"
	pack_mirror "$dir" allocproj-1.0
}

# make_allocproj_recipe FILE: make_allocproj in the current directory and
# write FILE, the recipe "derive": CMake variants c1, c2 (another
# --with-lg-quantum) and c3 (another tag and --with-malloc-conf), autotools
# variants m1 and m2 (another --with-lg-quantum), and p1, m2's settings on
# the source prog-patched (the same archive with f1.patch, also written)
make_allocproj_recipe() {
	local sha arts_c='["prog", "minialloc-prefix/src/minialloc-build/liballoc.a"]' arts_m='["bin/prog", "alloc/liballoc.a"]'
	sha=$(make_allocproj "$PWD")
	printf -- '--- a/f1.c\n+++ b/f1.c\n@@ -1 +1 @@\n-%s\n+%s\n' \
		'int f1(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 1; return s; }' \
		'int f1(int x) { int s = 1; for (int i = 0; i < x; i++) s += i * 1; return s; }' >f1.patch
	cat >"$1" <<JSON
{"recipe": 1, "name": "derive",
 "sources": {
  "prog": {"archive": {"urls": ["https://example.invalid/allocproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}},
  "prog-patched": {"archive": {"urls": ["https://example.invalid/allocproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1},
                   "patches": ["f1.patch"]}
 },
 "variants": [
  {"label": "c1", "source": "prog", "build": {"system": "cmake", "defines": {"PROG_TAG": "one", "ALLOC_OPTIONS": "--with-lg-quantum=3"}}, "artifacts": $arts_c},
  {"label": "c2", "source": "prog", "build": {"system": "cmake", "defines": {"PROG_TAG": "one", "ALLOC_OPTIONS": "--with-lg-quantum=4"}}, "artifacts": $arts_c},
  {"label": "c3", "source": "prog", "build": {"system": "cmake", "defines": {"PROG_TAG": "two", "ALLOC_OPTIONS": "--with-malloc-conf=background_thread:true"}}, "artifacts": $arts_c},
  {"label": "m1", "source": "prog", "build": {"system": "autotools", "configure": ["--tag=one", "--with-lg-quantum=3"]}, "artifacts": $arts_m},
  {"label": "m2", "source": "prog", "build": {"system": "autotools", "configure": ["--tag=one", "--with-lg-quantum=4"]}, "artifacts": $arts_m},
  {"label": "p1", "source": "prog-patched", "build": {"system": "autotools", "configure": ["--tag=one", "--with-lg-quantum=4"]}, "artifacts": $arts_m}
 ]}
JSON
}

# pack_mirror DIR NAME: DIR/NAME packed as DIR/NAME.tar.gz with fixed
# metadata (the same bytes every time), stored in DIR/mirror/sha256/<hex>
# (a --mirror-dir layout); prints the sha256
pack_mirror() {
	local dir=$1 name=$2 h
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$dir" -czf "$dir/$name.tar.gz" "$name"
	h=$(sha256sum "$dir/$name.tar.gz" | cut -d' ' -f1)
	cp "$dir/$name.tar.gz" "$dir/mirror/sha256/$h"
	echo "$h"
}
