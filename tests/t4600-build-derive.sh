#!/usr/bin/env bash
# build --derive (docs/build.md, "Derived build trees"): a variant that
# differs from an earlier one of its source only in its settings starts
# from a copy of that variant's finished trees, runs its own configure and
# rebuilds only what its settings change; build --check builds it clean
# and finds every artifact identical. Two build systems, each with a
# vendored allocator (tests/fakeproj.sh, make_allocproj): CMake with an
# ExternalProject (Fluent Bit's shape) and autotools with a sub-make. A
# variant on a patched source is built clean and says why; the records
# say which variant a tree was derived from and that the check confirmed
# it; without --derive nothing is derived.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_allocproj_recipe r.json
M=(--mirror-dir "$PWD/mirror")

# ---- the plan says which variant starts from which, and why the others are built clean
expect_exit 0 "$AB" plan --derive -j 2 -o o r.json
grep -E '^\[[0-9]+/22\] [a-z0-9]+: (derive|fresh)|built clean' out | sed 's/^\[[0-9]*\/22\] //' >got
cat >want <<'EOT'
c1: fresh tree of prog
c2: derive from c1: a copy of its finished trees, once it has ended (it differs only in its settings)
c3: derive from c1: a copy of its finished trees, once it has ended (it differs only in its settings)
m1: fresh tree of prog
      built clean: its build system differs from c1's
m2: derive from m1: a copy of its finished trees, once it has ended (it differs only in its settings)
p1: fresh tree of prog-patched
      built clean: its patches differ from c1's
EOT
expect_file got <want
expect_exit 0 "$AB" plan --derive --json -j 2 -o o r.json
[ "$(json out "[(s['label'], s['derive_from'], s['built_clean']) for s in d['steps'] if s['kind'] == 'source']")" = \
  "[('c1', None, None), ('c2', 'c1', None), ('c3', 'c1', None), ('m1', None, \"its build system differs from c1's\"), ('m2', 'm1', None), ('p1', None, \"its patches differ from c1's\")]" ] ||
	fail "plan --json: $(cat out)"
expect_exit 0 "$AB" plan -j 2 -o o r.json
expect_no_grep "derive from" out
expect_no_grep "built clean" out

# ---- derived, then checked against clean builds of every variant
expect_exit 0 "$AB" build --derive --check -j 2 "${M[@]}" -o o r.json
cp err build.err
check 'every artifact identical to its clean build' grep -qx '12/12 artifacts identical' out
grep '^derived ' out >got
cat >want <<'EOT'
derived    c2 from c1's trees: built clean here, 2/2 artifacts identical
derived    c3 from c1's trees: built clean here, 2/2 artifacts identical
derived    m2 from m1's trees: built clean here, 2/2 artifacts identical
EOT
expect_file got <want
expect_grep "p1: built clean: its patches differ from c1's" err
expect_grep "m1: built clean: its build system differs from c1's" err
expect_grep "every variant from a fresh tree (never derived)" err
# the check built everything clean: no copy there
for l in c2 c3 m2; do
	[ "$(json o/reproducibility/check/provenance/build-commands.json "[v['steps'][0]['step'] for v in d['variants'] if v['label'] == '$l']")" = "['source']" ] ||
		fail "$l derived in the check"
done

# only what the settings change was compiled again: the allocator (and c3's main.c, its tag)
own() { awk -F'\t' '$6 != "inherited" {print $3}' "o/variants/$1/logs/compiles.tsv" | LC_ALL=C sort | tr '\n' ' '; }
[ "$(own c2)" = "m1.o m2.o m3.o " ] || fail "c2 compiled: $(own c2)"
[ "$(own c3)" = "CMakeFiles/prog.dir/main.c.o m1.o m2.o m3.o " ] || fail "c3 compiled: $(own c3)"
[ "$(own m2)" = "m1.o m2.o m3.o " ] || fail "m2 compiled: $(own m2)"
# the inherited lines are c1's own compiles, under the same names
[ "$(awk -F'\t' '$6 == "inherited" {print $1, $3}' o/variants/c2/logs/compiles.tsv | LC_ALL=C sort)" = \
  "$(awk -F'\t' '$3 !~ /^m[123]\.o$/ {print $1, $3}' o/variants/c1/logs/compiles.tsv | LC_ALL=C sort)" ] || fail "c2's inherited compiles"
for l in c1 c2 c3; do expect_exit 0 o/variants/$l/build/prog; cp out run-$l; done
for l in m1 m2 p1; do expect_exit 0 o/variants/$l/build/bin/prog; cp out run-$l; done
cat run-c1 run-c2 run-c3 run-m1 run-m2 run-p1 >got
cat >want <<'EOT'
one 8 8 8 '' 105
one 16 16 4 '' 105
two 8 8 8 'background_thread:true' 105
one 8 8 8 '' 105
one 16 16 4 '' 105
one 16 16 4 '' 106
EOT
expect_file got <want

# ---- what differs between variants of one program, object by object, from the compile logs:
# the allocator's objects, and an object outside it that a setting changed (c3's tag, p1's patch) named
grep '^allocbuild: objects ' build.err | sort -u >got
cat >want <<'EOT'
allocbuild: objects c1 / c2: 5 identical, 4 differ (minialloc-prefix/src/minialloc-build: 4)
allocbuild: objects c1 / c3: 6 identical, 3 differ (minialloc-prefix/src/minialloc-build: 2, CMakeFiles/prog.dir: 1)
allocbuild: objects m1 / m2: 5 identical, 4 differ (alloc: 4)
allocbuild: objects m1 / p1: 4 identical, 5 differ (alloc: 4, obj: 1)
EOT
expect_file got <want
B=o/provenance/build-commands.json
[ "$(json $B "[(c['a'], c['b'], c['differing']) for c in d['object_comparison'] if c['b'] in ('c3', 'p1') and c['a'] in ('c1', 'm1')]")" = \
  "[('c1', 'c3', ['CMakeFiles/prog.dir/main.c.o', 'minialloc-prefix/src/minialloc-build/liballoc.a', 'minialloc-prefix/src/minialloc-build/m1.o']), ('m1', 'p1', ['alloc/liballoc.a', 'alloc/m1.o', 'alloc/m2.o', 'alloc/m3.o', 'obj/f1.o'])]" ] ||
	fail "object_comparison: $(json $B "d['object_comparison']")"
# every pair of one program: c1-c2 c1-c3 c2-c3, m1-m2 m1-p1 m2-p1
[ "$(json $B "len(d['object_comparison'])")" = 6 ] || fail "pairs"
# each variant's set: its 8 objects (CMake's compiler test, which it removed, is none) and its link input
# liballoc.a (the archive the build made), and their digest
[ "$(json $B "[v['objects']['count'] for v in d['variants']]")" = "[9, 9, 9, 9, 9, 9]" ] || fail "object counts"
[ "$(json o/variants/c2/state.json "d['objects']['sha256']")" = "$(json $B "d['variants'][1]['objects']['sha256']")" ] || fail "state's objects"
[ "$(json $B "d['variants'][0]['objects']['sha256']")" = "$({ awk -F'\t' '{print $1 "  " $3}' o/variants/c1/logs/compiles.tsv |
	grep -E '  (m[123]\.o|CMakeFiles/prog\.dir/.*\.o)$' | sed -E 's,  (m[123]\.o)$,  minialloc-prefix/src/minialloc-build/\1,'
	(cd o/variants/c1/build && sha256sum minialloc-prefix/src/minialloc-build/liballoc.a); } |
	LC_ALL=C sort -k2 | sha256sum | cut -d' ' -f1)" ] || fail "the set's digest"

# a policy can require it: c2 differs from c1 only in the allocator; c3 does not (its main.c), named
cat >pol.json <<'EOT'
{"policy": 1, "name": "only", "rules": [
 {"variants": ["c2"], "only_differs": {"from": "c1", "in": ["minialloc-prefix/**"]}},
 {"variants": ["c3"], "only_differs": {"from": "c1", "in": ["minialloc-prefix/**"]}}
]}
EOT
expect_exit 1 "$AB" verify --policy pol.json o
grep -E '^(pass|FAIL): rules' out >got
cat >want <<'EOT'
pass: rules[0] only_differs c2: 5 identical, 4 differ, all in minialloc-prefix/** (provenance/build-commands.json: object_comparison[0].differ_by_directory)
FAIL: rules[1] only_differs c3: expected objects differing from c1's only in minialloc-prefix/**, got objects differing outside it: CMakeFiles/prog.dir (1) (provenance/build-commands.json: object_comparison[1].differ_by_directory)
EOT
expect_file got <want

# pr.md's "What differs between variants" shows it beside the settings
expect_exit 0 "$AB" pr -o pr o
grep -E '^- `c[23]` against `c1`:' pr/pr.md >got
cat >want <<'EOT'
- `c2` against `c1`: objects: 5 identical, 4 differ (`minialloc-prefix/src/minialloc-build`: 4)
- `c3` against `c1`: objects: 6 identical, 3 differ (`minialloc-prefix/src/minialloc-build`: 2, `CMakeFiles/prog.dir`: 1)
EOT
expect_file got <want

# ---- the records
[ "$(json o/provenance/provenance.intoto.json "d['predicate']['buildDefinition']['internalParameters']['derivedFrom']")" = \
  "{'c2': 'c1', 'c3': 'c1', 'm2': 'm1'}" ] || fail "statement's derivedFrom"
[ "$(json o/provenance/build-commands.json "[(v['label'], v.get('derived_from'), v['steps'][0]['step']) for v in d['variants']]")" = \
  "[('c1', None, 'source'), ('c2', 'c1', 'derive'), ('c3', 'c1', 'derive'), ('m1', None, 'source'), ('m2', 'm1', 'derive'), ('p1', None, 'source')]" ] ||
	fail "build-commands.json"
[ "$(json o/provenance/binary-provenance.json "[(v['label'], v.get('derived_from')) for v in d['variants']]")" = \
  "[('c1', None), ('c2', 'c1'), ('c3', 'c1'), ('m1', None), ('m2', 'm1'), ('p1', None)]" ] || fail "binary-provenance.json"
[ "$(json o/variants/m2/state.json "d['derived_from']")" = m1 ] || fail "state.json"
[ "$(json o/provenance/reproducibility.intoto.json "d['predicate']['how']['derived']")" = \
  "[{'variant': 'c2', 'from': 'c1', 'checked': True}, {'variant': 'c3', 'from': 'c1', 'checked': True}, {'variant': 'm2', 'from': 'm1', 'checked': True}]" ] ||
	fail "reproducibility record"
# the tree record of a derived variant is its lead's: the same tree (state.json's last "source")
[ "$(json o/variants/m2/state.json "d['source'] == json.load(open('o/variants/m1/state.json'))['source']")" = True ] ||
	fail "m2's tree record"
check 'the OUTDIR verifies' "$AB" verify o
check 'no temporary copy left' not test -e o/variants/c2/.derive

# ---- the same bytes as a build without --derive; up to date either way
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o plain r.json
grep '  variants/' plain/SHA256SUMS | grep -v logs/ >a-plain
grep '  variants/' o/SHA256SUMS | grep -v logs/ >a-derived
[ "$(wc -l <a-plain)" = 12 ] || fail "artifacts: $(cat a-plain)"
diff -u a-plain a-derived || fail "derived artifacts differ from clean ones"
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o o r.json
expect_grep "[21/21] manifests: up to date" err

# ---- a lead that is up to date is not copied (its tree may hold what later steps wrote): built clean
sed 's/--with-lg-quantum=4"}}/--with-lg-quantum=5"}}/' r.json >r5.json
expect_exit 0 "$AB" build --derive -j 2 "${M[@]}" -o o r5.json c1 c2
expect_grep "c2: built clean: c1 was not built in this run, and only trees built in the run are copied" err
[ "$(json o/variants/c2/state.json "(d.get('derived_from'), d['steps'][0]['step'])")" = "(None, 'source')" ] || fail "c2 copied"
expect_exit 0 o/variants/c2/build/prog
echo "one 32 32 2 '' 105" | expect_file out
