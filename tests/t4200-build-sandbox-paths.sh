#!/usr/bin/env bash
# The build sandbox at fixed paths (docs/build.md, "Sandbox"): a small
# autotools project and a small CMake project that compile where they were
# built in ways no prefix map can undo (a configure-time header with the
# build directory, sizeof of the source directory, __FILE__ tables), built
# into two OUTDIRs of different path lengths: every artifact is identical,
# none names either OUTDIR, and the records say where the fixed paths
# really were (in OUTDIR, which the manifests name "OUTDIR"). Without the sandbox (--no-sandbox) the same builds differ,
# and build --check names the object and the compile command that differ
# (the compile log of the wrapper).
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_pathproj_recipe r.json
M=(--mirror-dir "$PWD/mirror")
arts() { grep -E '  variants/[^/]+/build/' "$1/SHA256SUMS"; }

# ---- in the sandbox: the same bytes from two directories of other lengths
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o o r.json
L=$PWD/a/much/longer/directory/for/the/second/build
mkdir -p "${L%/*}"
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o "$L" r.json
arts o >a1
arts "$L" >a2
[ "$(wc -l <a1)" = 4 ] || fail "artifacts: $(cat a1)"
diff -u a1 a2 || fail "the sandboxed builds differ between o and $L"
for f in o/variants/*/build/lib/libpath.a o/variants/*/build/bin/pathprog; do
	! grep -aqF -e "$PWD" "$f" || fail "$f names the build's directory"
done
# what the programs saw: the fixed paths, whatever the OUTDIR
expect_exit 0 o/variants/auto/build/bin/pathprog
echo "/allocbuild/build /allocbuild/src 16 /allocbuild/src/files.c /allocbuild/src/files.h" | expect_file out
expect_exit 0 o/variants/cmake/build/bin/pathprog
echo "/allocbuild/build /allocbuild/src 16 /allocbuild/src/files.c /allocbuild/src/files.h" | expect_file out

# the records: the sandbox, the fixed paths and the real ones, the commands as they ran
C=o/provenance/build-commands.json
[ "$(json $C '[(v["label"], v["sandbox"]["enabled"], v["sandbox"]["tool"].split()[0], v["sandbox"]["network"]) for v in d["variants"]]')" = \
	"[('auto', True, 'bubblewrap', 'none but loopback'), ('cmake', True, 'bubblewrap', 'none but loopback')]" ] ||
	fail "sandbox: $(json $C '[v["sandbox"] for v in d["variants"]]')"
[ "$(json $C '[(p["inside"], p["real"], p["writable"]) for p in d["variants"][0]["sandbox"]["paths"]][:5]')" = \
	"[('/allocbuild/variants', 'OUTDIR/variants', False), ('/allocbuild/src', 'OUTDIR/variants/auto/src', True), ('/allocbuild/build', 'OUTDIR/variants/auto/build', True), ('/allocbuild/logs', 'OUTDIR/variants/auto/logs', False), ('/allocbuild/logs/compiles.tsv', 'OUTDIR/variants/auto/logs/compiles.tsv', True)]" ] ||
	fail "paths: $(json $C 'd["variants"][0]["sandbox"]["paths"]')"
[ "$(json $C '[(s["argv"], s["cwd"]) for s in d["variants"][0]["steps"] if s["step"] == "configure"]')" = \
	"[(['/allocbuild/src/configure'], '/allocbuild/build')]" ] || fail "configure as run: $(json $C 'd["variants"][0]["steps"]')"
[ "$(json $C '[s["argv"][:5] for s in d["variants"][1]["steps"] if s["step"] == "configure"]')" = \
	"[['cmake', '-S', '/allocbuild/src', '-B', '/allocbuild/build']]" ] || fail "cmake as run"
I=o/provenance/provenance.intoto.json
[ "$(json $I 'sorted(d["predicate"]["buildDefinition"]["internalParameters"]["sandbox"])')" = "['auto', 'cmake']" ]
[ "$(json $I 'd["predicate"]["buildDefinition"]["internalParameters"]["sandbox"]["auto"]["namespaces"]')" = \
	"['user', 'mount', 'network', 'pid', 'ipc', 'uts', 'cgroup']" ]
[ "$(json o/provenance/binary-provenance.json '[v["sandboxed"] for v in d["variants"]]')" = "[True, True]" ]
# the compile log: every compile of the variant, with its object's digest, in SHA256SUMS
[ "$(cut -f3,4 o/variants/auto/logs/compiles.tsv | sort)" = "$(printf 'obj/files.o\t/allocbuild/src/files.c\nobj/where.o\t/allocbuild/src/where.c')" ] ||
	fail "compile log: $(cat o/variants/auto/logs/compiles.tsv)"
expect_grep "  variants/auto/logs/compiles.tsv" o/SHA256SUMS
expect_exit 0 "$AB" verify o

# a moved OUTDIR is up to date: its paths inside never changed
mv o moved
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o moved r.json
expect_grep "auto: make: up to date" err
expect_grep "cmake: cmake --build pathprog: up to date" err

# ---- without the sandbox: the same recipe gives other bytes in another directory
expect_exit 0 "$AB" build --no-sandbox -j 2 "${M[@]}" -o n1 r.json
[ "$(json n1/provenance/build-commands.json '[(v["sandbox"]["enabled"], v["sandbox"]["reason"]) for v in d["variants"]]')" = \
	"[(False, 'built with --no-sandbox'), (False, 'built with --no-sandbox')]" ]
[ "$(json n1/provenance/binary-provenance.json '[v["sandboxed"] for v in d["variants"]]')" = "[False, False]" ]
expect_exit 1 "$AB" build --check --no-sandbox -j 1 "${M[@]}" -o n1 r.json
# a program's differing sections depend on how much longer the other path is (.text too, or not): named apart
sed -n '/^reproducibility:/,$p' out | sed -E -e 's/ [0-9a-f]{12}( -> [0-9a-f]{12})?/ SHA/' \
	-e 's/(pathprog +SHA: sections differ: ).*/\1SECTIONS/' >report
for s in .rodata .debug_info .symtab; do
	[ "$(grep -c "pathprog .*sections differ: .*$s" out)" = 2 ] || fail "the programs' $s is not named"
done
cat >want <<EOT
reproducibility: built again in $PWD/n1/reproducibility/check with -j 2
differs    auto   variants/auto/build/lib/libpath.a   SHA: members differ: where.o (sections .rodata .debug_info .symtab)
           first differing compile (1 of the variant's differ): /allocbuild/src/where.c -> obj/where.o in /allocbuild/build
           command: cc -O2 -g -I. -c /allocbuild/src/where.c -o obj/where.o
differs    auto   variants/auto/build/bin/pathprog    SHA: sections differ: SECTIONS
           first differing compile (1 of the variant's differ): /allocbuild/src/where.c -> obj/where.o in /allocbuild/build
           command: cc -O2 -g -I. -c /allocbuild/src/where.c -o obj/where.o
EOT
head -n 7 report | expect_file want 2>/dev/null || { cat report; fail "the check's report"; }
expect_grep "0/4 artifacts identical" report
expect_grep "first differing compile (1 of the variant's differ): /allocbuild/src/where.c -> CMakeFiles/path.dir/where.c.o in /allocbuild/build" report
[ "$(json n1/provenance/reproducibility.intoto.json '[a["first_differing_compile"]["output"] for a in d["predicate"]["comparison"]["artifacts"]]')" = \
	"['obj/where.o', 'obj/where.o', 'CMakeFiles/path.dir/where.c.o', 'CMakeFiles/path.dir/where.c.o']" ]
