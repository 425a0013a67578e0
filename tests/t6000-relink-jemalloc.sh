#!/usr/bin/env bash
# relink: a Fluent-Bit-shaped CMake project (an executable in src/ named
# fixture, written to bin/, linking ../lib/libjemalloc_pic.a twice) built
# with the real jemalloc 5.3.0, relinked with a second jemalloc build that
# bakes in another malloc_conf. Both jemalloc builds happen once, here, and
# serve every check of this file.
. "$TOP/tests/lib.sh"

# --- two jemalloc 5.3.0 builds: stock and --with-malloc-conf=lg_extent_max_active_fit:30
if [ -n "${RELINK_TEST_ARCHIVES:-}" ]; then
	# development shortcut: DIR/stock.a and DIR/fit.a from earlier builds
	mkdir -p je-stock/lib je-fit/lib
	cp "$RELINK_TEST_ARCHIVES/stock.a" je-stock/lib/libjemalloc_pic.a
	cp "$RELINK_TEST_ARCHIVES/fit.a" je-fit/lib/libjemalloc_pic.a
else
	for v in stock fit; do
		mkdir je-$v
		tar xjf "$JEMALLOC_TARBALL" -C je-$v --strip-components=1
	done
	(cd je-stock && ./configure >../configure-stock.log 2>&1) &
	(cd je-fit && ./configure --with-malloc-conf=lg_extent_max_active_fit:30 >../configure-fit.log 2>&1) &
	wait %1 || fail "configure (stock) failed"
	wait %2 || fail "configure (fit) failed"
	make -C je-stock -j2 build_lib_static >make-stock.log 2>&1 || fail "jemalloc stock build failed"
	make -C je-fit -j2 build_lib_static >make-fit.log 2>&1 || fail "jemalloc fit build failed"
fi
# the replacement lives in a directory whose name has a space
mkdir "alt je"
cp je-fit/lib/libjemalloc_pic.a "alt je/libjemalloc_pic.a"

# --- the CMake project, shaped like Fluent Bit's fluent-bit-bin
mkdir -p proj/src build/lib
cat >proj/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(fixture C)
add_subdirectory(src)
EOF
cat >proj/src/CMakeLists.txt <<'EOF'
set(JEMALLOC_LIB ${CMAKE_BINARY_DIR}/lib/libjemalloc_pic.a)
add_library(fixture-core STATIC core.c)
target_link_libraries(fixture-core ${JEMALLOC_LIB} pthread dl m)
add_executable(fixture-bin main.c)
set_target_properties(fixture-bin PROPERTIES OUTPUT_NAME fixture RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
target_link_libraries(fixture-bin ${JEMALLOC_LIB} fixture-core)
EOF
cat >proj/src/core.c <<'EOF'
#include <stdlib.h>
#include <string.h>
size_t core_churn(void)
{
	size_t total = 0;
	for (int i = 1; i < 2000; i++) {
		char *p = malloc((size_t)i * 64);
		memset(p, 1, (size_t)i * 64);
		total += (size_t)p[i];
		free(p);
	}
	return total;
}
EOF
cat >proj/src/main.c <<'EOF'
#include <stdio.h>
size_t core_churn(void);
int main(void)
{
	printf("churn %zu\n", core_churn());
	return 0;
}
EOF
cp je-stock/lib/libjemalloc_pic.a build/lib/libjemalloc_pic.a
(cd build && cmake ../proj >../cmake.log 2>&1 && make >>../cmake.log 2>&1) || { cat cmake.log; fail "cmake build failed"; }
LT=build/src/CMakeFiles/fixture-bin.dir/link.txt
expect_grep ' ../lib/libjemalloc_pic.a libfixture-core.a ../lib/libjemalloc_pic.a ' $LT
cp $LT link.txt.orig
BIN_SHA=$(sha256sum build/bin/fixture | cut -d' ' -f1)

stats() { # binary -> the jemalloc statistics on stderr
	MALLOC_CONF=stats_print:true "$1" 2>&1 >/dev/null
}
stats build/bin/fixture >stats-normal
expect_grep '  config.malloc_conf: ""' stats-normal
expect_grep '  opt.lg_extent_max_active_fit: 6' stats-normal

# --- dry run: argv and cwd, nothing written
expect_exit 0 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a="alt je/libjemalloc_pic.a" \
	--output rl/fixture-relink --dry-run
expect_file out <<EOF
cwd: $PWD/build/src
argv: /usr/bin/cc CMakeFiles/fixture-bin.dir/main.c.o -o $PWD/rl/fixture-relink '$PWD/alt je/libjemalloc_pic.a' libfixture-core.a '$PWD/alt je/libjemalloc_pic.a' -lpthread -ldl -lm
EOF
expect_file err <<EOF
allocbuild: replaced '../lib/libjemalloc_pic.a' with '$PWD/alt je/libjemalloc_pic.a' (2 times)
EOF
[ ! -e rl/fixture-relink ] && [ ! -e rl/relink-provenance.json ] || fail "dry run wrote files"

# --- the relink; the replacement is named by another path to the same file
start=$(date +%s.%N)
expect_exit 0 "$AB" relink --link-txt $LT --replace "$PWD/build/lib/libjemalloc_pic.a=alt je/libjemalloc_pic.a" \
	--output rl/fixture-relink
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc)
echo "relink took ${secs}s"
[ "$(echo "$secs < 5" | bc)" = 1 ] || fail "relink took ${secs}s (budget 5s)"
P=rl/relink-provenance.json
FIT_SHA=$(sha256sum "alt je/libjemalloc_pic.a" | cut -d' ' -f1)
STOCK_SHA=$(sha256sum build/lib/libjemalloc_pic.a | cut -d' ' -f1)
expect_file out <<EOF
output: $PWD/rl/fixture-relink
provenance: $PWD/$P
kind: diagnostic relink
verdict: only these inputs differ: ../lib/libjemalloc_pic.a -> $PWD/alt je/libjemalloc_pic.a
EOF
cmp -s link.txt.orig $LT || fail "link.txt was modified"
[ "$(sha256sum build/bin/fixture | cut -d' ' -f1)" = "$BIN_SHA" ] || fail "the normal binary changed"
ls -a rl >ls-out
expect_file ls-out <<EOF
.
..
fixture-relink
relink-provenance.json
EOF

# the relinked binary runs the replacement's jemalloc
stats rl/fixture-relink >stats-relink
expect_grep '  config.malloc_conf: "lg_extent_max_active_fit:30"' stats-relink
expect_grep '  opt.lg_extent_max_active_fit: 30' stats-relink
expect_grep 'Version: "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"' stats-relink
[ "$(rl/fixture-relink)" = "$(build/bin/fixture)" ] || fail "the relinked binary behaves differently"

# the proof
[ "$(json $P 'd["kind"]')" = "diagnostic relink" ] || fail "kind"
[ "$(json $P 'len(d["differing_inputs"])')" = 1 ] || fail "differing inputs: $(json $P 'd["differing_inputs"]')"
[ "$(json $P 'd["differing_inputs"][0]["before"]["sha256"]')" = "$STOCK_SHA" ] || fail "before sha256"
[ "$(json $P 'd["differing_inputs"][0]["after"]["sha256"]')" = "$FIT_SHA" ] || fail "after sha256"
[ "$(json $P 'd["differing_inputs"][0]["content_differs"]')" = True ] || fail "content_differs"
[ "$(json $P 'd["verdict"]')" = "only these inputs differ: ../lib/libjemalloc_pic.a -> $PWD/alt je/libjemalloc_pic.a" ] ||
	fail "verdict"
[ "$(json $P 'd["cwd"]')" = "$PWD/build/src" ] || fail "cwd"
[ "$(json $P '[r["count"] for r in d["replacements"]]')" = "[2]" ] || fail "replacement count"
[ "$(json $P '[(x["index"], x["why"]) for x in d["argv_diff"]]')" = "[(3, 'output'), (4, 'replacement'), (6, 'replacement')]" ] ||
	fail "argv_diff: $(json $P 'd["argv_diff"]')"
[ "$(json $P 'd["argv_before"]')" = "$(python3 -c 'import shlex,sys; print(shlex.split(open(sys.argv[1]).read()))' $LT)" ] ||
	fail "argv_before"
# every input on both sides, hashed; all the same but the allocator archive
[ "$(json $P 'sorted(set(i["before"]["arg"] for i in d["inputs"] if not i["same"]))')" = "['../lib/libjemalloc_pic.a']" ] ||
	fail "inputs differing"
[ "$(json $P 'all(len(i[s]["sha256"]) == 64 for i in d["inputs"] for s in ("before", "after") if i[s]["path"])')" = True ] ||
	fail "unhashed inputs"
[ "$(json $P '[i["before"]["arg"] for i in d["inputs"] if i["before"]["via"] == "argv"]')" = \
	"['CMakeFiles/fixture-bin.dir/main.c.o', '../lib/libjemalloc_pic.a', 'libfixture-core.a', '../lib/libjemalloc_pic.a']" ] ||
	fail "argv inputs: $(json $P 'd["inputs"]')"
# -lm resolves through the compiler's default search path to a linker script and its members
[ "$(json $P '[i["before"]["kind"] for i in d["inputs"] if i["before"]["arg"] == "-lm"][0]')" = linker-script ] ||
	fail "-lm not resolved to libm.so's linker script"
[ "$(json $P 'any(i["before"]["via"].startswith("linker script ") for i in d["inputs"])')" = True ] || fail "libm.so members"
[ "$(json $P 'd["output"]["sha256"]')" = "$(sha256sum rl/fixture-relink | cut -d' ' -f1)" ] || fail "output sha256"
[ "$(json $P 'd["normal_output"]["sha256"]')" = "$BIN_SHA" ] || fail "normal output sha256"
[ "$(json $P 'd["normal_output"]["path"]')" = "$PWD/build/bin/fixture" ] || fail "normal output path"

# --- --provenance elsewhere, --json on stdout
expect_exit 0 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=je-fit/lib/libjemalloc_pic.a \
	--output rl2/fixture --provenance prov2.json --json
cmp -s out prov2.json || fail "--json differs from the written provenance"
[ "$(json prov2.json 'd["kind"]')" = "diagnostic relink" ] || fail "kind 2"
[ ! -e rl2/relink-provenance.json ] || fail "default provenance written despite --provenance"

# --- refusals: exit 2, exact message, nothing written
expect_exit 2 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=missing/libjemalloc_pic.a \
	--output bad/fixture
expect_file err <<EOF
allocbuild: replacement 'missing/libjemalloc_pic.a' for '../lib/libjemalloc_pic.a': No such file or directory
EOF
[ ! -e bad ] || fail "missing replacement: something was written"

expect_exit 2 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc.a=je-fit/lib/libjemalloc_pic.a \
	--output bad/fixture
expect_file err <<EOF
allocbuild: $LT:1: replacement '../lib/libjemalloc.a' matches nothing in the link command
EOF
[ ! -e bad ] || fail "unmatched replacement: something was written"

expect_exit 2 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=je-fit/lib/libjemalloc_pic.a \
	--output build/bin/fixture
expect_file err <<EOF
allocbuild: output 'build/bin/fixture' is the normal build's own output: choose another path
EOF
[ "$(sha256sum build/bin/fixture | cut -d' ' -f1)" = "$BIN_SHA" ] || fail "the normal binary changed"

expect_exit 2 "$AB" relink --link-txt build/src/CMakeFiles/fixture-core.dir/link.txt \
	--replace CMakeFiles/fixture-core.dir/core.c.o=je-fit/lib/libjemalloc_pic.a --output bad/x.a
expect_file err <<EOF
allocbuild: build/src/CMakeFiles/fixture-core.dir/link.txt: 2 commands; a relink needs exactly one link command
EOF

# --- a link that fails: a corrupt archive. The linker's stderr is shown,
# exit 1, no output, no temporary file, no provenance.
printf '!<arch>\nthis is not an archive member\n' >corrupt.a
expect_exit 1 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=corrupt.a --output bad/fixture
expect_grep "corrupt.a: " err
expect_grep "collect2: error: ld returned 1 exit status" err
expect_grep "allocbuild: relink of '$LT' failed: '/usr/bin/cc' exit status 1" err
[ -z "$(ls -A bad)" ] || { ls -la bad; fail "failed link left files"; }
[ ! -e rl/relink-provenance.json.tmp ] || fail "temporary provenance left"
