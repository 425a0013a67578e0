#!/usr/bin/env bash
# build: the default recipe from the real jemalloc 5.3.0 tarball, as the
# suite's default fixture built it (`build -j 2`, its exit status and
# output kept: tests/README.md, "Fixtures"; built once for every test that
# reads it). stock53 reports opt.lg_extent_max_active_fit 6, special53 30,
# quantum 8 in both; fit-only's override check shows 30; the benchmark
# program frag (recipes/frag), linked against each archive, reports what
# its archive does, and the digests of README.md. Then, on a copy:
# SHA256SUMS, verify, a tampered artifact, env, a no-op rerun (the table
# again, the programs' archives too), and a variant baking
# disable_large_size_classes:false (5.3.1 and later only) into 5.3.0.
. "$TOP/tests/lib.sh"

cp "$TOP/recipes/jemalloc-5.3.0-policy.json" r.json
cp -r "$TOP/recipes/frag" frag
default_build bo
# the build's own exit status and output, as if this test had run it
[ "$(cat "$FIXTURE/build.rc")" = 0 ] || fail "the default build failed"
cp "$FIXTURE/build.out" out
cp "$FIXTURE/build.err" err
O=$DEFAULT_OUTDIR
for l in stock53 special53; do
	expect_grep "$l: make lib/libjemalloc_pic.a (" err
done
for l in frag-stock53 frag-special53; do
	expect_grep "$l: cmake --build frag (" err
done

P=bo/provenance/allocator-probes.json
V=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c
check "the labels probed" test "$(json $P '[v["label"] for v in d["variants"]]')" = \
	"['stock53', 'special53', 'fit-only', 'frag-stock53', 'frag-special53', 'frag-fit-only', 'frag-aa']"
check "lg_extent_max_active_fit in effect" test "$(json $P '[v["probe"]["effective"]["lg_extent_max_active_fit"] for v in d["variants"]]')" = \
	"['6', '30', '30', '6', '30', '30', '6']"
check "the quantum" test "$(json $P '[v["probe"]["quantum"] for v in d["variants"]]')" = "[8, 8, 8, 8, 8, 8, 8]"
check "the version" test "$(json $P 'sorted(set(v["probe"]["version"] for v in d["variants"]))')" = "['$V']"
check "every probe ok" test "$(json $P '[v["probe"]["ok"] for v in d["variants"]]')" = "[True, True, True, True, True, True, True]"
for i in 2 5; do
	check "variant $i's override, at run time" test "$(json $P '[(o["setting"], o["origin"], o["effective"], o["status"]) for o in d["variants"]['$i']["probe"]["overrides"]]')" = \
		"[('lg_extent_max_active_fit', 'runtime', '30', 'ok')]"
done
for i in 1 4; do
	check "variant $i's setting, built in" test "$(json $P '[(o["setting"], o["origin"], o["effective"], o["status"]) for o in d["variants"]['$i']["probe"]["overrides"]]')" = \
		"[('lg_extent_max_active_fit', 'build', '30', 'ok')]"
done

B=bo/provenance/binary-provenance.json
stock=$(json $B 'd["variants"][0]["allocator"]["archive_sha256"]')
special=$(json $B 'd["variants"][1]["allocator"]["archive_sha256"]')
[ "$stock" = "$(sha256sum bo/variants/stock53/build/lib/libjemalloc_pic.a | cut -d' ' -f1)" ]
[ "$special" = "$(sha256sum bo/variants/special53/build/lib/libjemalloc_pic.a | cut -d' ' -f1)" ]
check "fit-only's archive: stock53's" test "$(json $B 'd["variants"][2]["allocator"]["archive_sha256"]')" = "$stock"
check "every artifact's version" test "$(json $B '[a["allocator_version"] for v in d["variants"] for a in v["artifacts"]]')" = \
	"$(python3 -c 'import sys; print([sys.argv[1]] * 7)' $V)"
check "no bogus version" test "$(json $B '[a["bogus_version"] for v in d["variants"] for a in v["artifacts"]]')" = "$(python3 -c 'print([False] * 7)')"
# each program used its archive, recorded with the archive's digest
check "the archives the programs used" test "$(json $B '[(v["label"], [(u["variant"], u["sha256"]) for u in v["uses"]]) for v in d["variants"] if v.get("uses")]')" = \
	"[('frag-stock53', [('stock53', '$stock')]), ('frag-special53', [('special53', '$special')])]"
# the digests README.md states: the archives' and the programs'
grep '  variants/.*/build/' "$TOP/README.md" | grep -v '^allocbuild' >readme.sums
check "README.md's digests" test "$(wc -l <readme.sums)" = 4
(cd bo && sha256sum -c --quiet ../readme.sums) || fail "the build does not give README.md's digests"

# the final table, as README.md shows it
cat >want <<EOT
LABEL           KIND        ALLOCATOR                                                   SECURE  SETTINGS: REQUESTED -> EFFECTIVE              ARCHIVE SHA256
stock53         autotools   jemalloc $V  -       -                                             ${stock:0:12}
special53       autotools   jemalloc $V  -       lg_extent_max_active_fit:30 (built in) -> 30  ${special:0:12}
fit-only        runtime_of  jemalloc $V  -       lg_extent_max_active_fit:30 -> 30             ${stock:0:12}
frag-stock53    cmake       jemalloc $V  -       -                                             ${stock:0:12}
frag-special53  cmake       jemalloc $V  -       lg_extent_max_active_fit:30 (built in) -> 30  ${special:0:12}
frag-fit-only   runtime_of  jemalloc $V  -       lg_extent_max_active_fit:30 -> 30             ${stock:0:12}
frag-aa         runtime_of  jemalloc $V  -       -                                             ${stock:0:12}
EOT
expect_file out <want
sed -n '/^LABEL  /,/^```$/p' "$TOP/README.md" | sed '$d' | expect_file want

# the commands as run
C=bo/provenance/build-commands.json
[ "$(json $C '[s["step"] for s in d["variants"][0]["steps"]]')" = "['source', 'configure', 'build']" ]
[ "$(json $C 'd["variants"][1]["steps"][1]["argv"]')" = \
  "['/allocbuild/src/configure', '--with-lg-quantum=3', '--with-lg-page=12', '--with-lg-hugepage=21', '--with-lg-vaddr=48', '--with-malloc-conf=lg_extent_max_active_fit:30']" ]
# -j 2: make in the jobserver, no -j in argv (docs/build.md)
[ "$(json $C 'd["variants"][1]["steps"][2]["argv"]')" = "['make', 'lib/libjemalloc_pic.a']" ]
[ "$(json $C 'd["variants"][1]["steps"][2]["env_set"]["MAKEFLAGS"]')" = "-j2 --jobserver-auth=<fds>" ]
[ "$(json $C 'd["variants"][1]["steps"][2]["cwd"]')" = "/allocbuild/build" ]
[ "$(json $C '[(p["inside"], p["real"]) for p in d["variants"][1]["sandbox"]["paths"] if p["inside"] == "/allocbuild/build"]')" = \
  "[('/allocbuild/build', 'OUTDIR/variants/special53/build')]" ]
[ "$(json $C '[d["variants"][0]["steps"][1]["env_set"][k] for k in ("LC_ALL", "TZ", "SOURCE_DATE_EPOCH")]')" = "['C', 'UTC', '0']" ]
[ "$(json $C '[s["exit_status"] for v in d["variants"][:2] for s in v["steps"][1:]]')" = "[0, 0, 0, 0]" ]

# the in-toto statement
I=bo/provenance/provenance.intoto.json
[ "$(json $I 'd["_type"]')" = "https://in-toto.io/Statement/v1" ]
[ "$(json $I 'd["predicateType"]')" = "https://slsa.dev/provenance/v1" ]
fstock=$(sha256sum bo/variants/frag-stock53/build/frag | cut -d' ' -f1)
fspecial=$(sha256sum bo/variants/frag-special53/build/frag | cut -d' ' -f1)
check "the statement's subjects" test "$(json $I '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = \
	"[('variants/stock53/build/lib/libjemalloc_pic.a', '$stock'), ('variants/special53/build/lib/libjemalloc_pic.a', '$special'), ('variants/frag-stock53/build/frag', '$fstock'), ('variants/frag-special53/build/frag', '$fspecial')]"
[ "$(json $I 'd["predicate"]["buildDefinition"]["buildType"]')" = "https://allocbuild.dev/build/v1" ]
[ "$(json $I 'd["predicate"]["buildDefinition"]["externalParameters"]["recipe"]["digest"]["sha256"]')" = "$(sha256sum r.json | cut -d' ' -f1)" ]
check "the resolved dependencies: the sources, and the archives the programs used" \
	test "$(json $I 'd["predicate"]["buildDefinition"]["resolvedDependencies"]')" = \
	"[{'name': 'jemalloc-5.3.0', 'uri': 'https://github.com/jemalloc/jemalloc/releases/download/5.3.0/jemalloc-5.3.0.tar.bz2', 'digest': {'sha256': '$JEMALLOC_SHA'}}, {'name': 'frag', 'digest': {'dirHash': '$(json r.json 'd["sources"]["frag"]["dir"]["dirHash"]')'}}, {'name': 'variants/stock53/build/lib/libjemalloc_pic.a', 'digest': {'sha256': '$stock'}, 'annotations': {'usedBy': 'frag-stock53'}}, {'name': 'variants/special53/build/lib/libjemalloc_pic.a', 'digest': {'sha256': '$special'}, 'annotations': {'usedBy': 'frag-special53'}}]"
[ "$(json $I 'd["predicate"]["runDetails"]["builder"]["id"]')" = "https://allocbuild.dev/builder/v1" ]
json $I 'd["predicate"]["runDetails"]["metadata"]["invocationId"]' | grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
json $I '"\n".join(b["name"] for b in d["predicate"]["runDetails"]["byproducts"])' >byproducts
cat >want.byproducts <<'X'
variants/stock53/logs/02-configure.log
variants/stock53/logs/03-build.log
variants/stock53/logs/compiles.tsv
variants/special53/logs/02-configure.log
variants/special53/logs/03-build.log
variants/special53/logs/compiles.tsv
variants/frag-stock53/logs/02-configure.log
variants/frag-stock53/logs/03-build.log
variants/frag-stock53/logs/compiles.tsv
variants/frag-special53/logs/02-configure.log
variants/frag-special53/logs/03-build.log
variants/frag-special53/logs/compiles.tsv
inputs/0/frag/CMakeLists.txt
inputs/0/frag/frag.c
recipe.json
provenance/sources.json
provenance/build-commands.json
provenance/cmake-cache-provenance.json
provenance/binary-provenance.json
provenance/allocator-probes.json
X
expect_file byproducts <want.byproducts
# the byproducts' digests are the manifests' own: a signature over the statement vouches for them
[ "$(json $I '[b["digest"]["sha256"] for b in d["predicate"]["runDetails"]["byproducts"] if b["name"] == "provenance/sources.json"][0]')" = \
  "$(sha256sum bo/provenance/sources.json | cut -d' ' -f1)" ]
cmp r.json bo/recipe.json || fail "recipe.json is not the recipe"

# SHA256SUMS and verify: exactly these files, each checking
cut -c67- bo/SHA256SUMS >sums
{
	echo variants/stock53/build/lib/libjemalloc_pic.a
	echo variants/special53/build/lib/libjemalloc_pic.a
	echo variants/frag-stock53/build/frag
	echo variants/frag-special53/build/frag
	cat want.byproducts
	echo provenance/provenance.intoto.json
} | expect_file sums
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo
{ echo "verified 25 files in bo"; echo "pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)"; } | expect_file out

# a tampered artifact: verify names it and exits 1
cp bo/variants/special53/build/lib/libjemalloc_pic.a saved.a
printf 'x' >>bo/variants/special53/build/lib/libjemalloc_pic.a
bad=$(sha256sum bo/variants/special53/build/lib/libjemalloc_pic.a | cut -d' ' -f1)
expect_exit 1 "$AB" verify bo
{ echo "variants/special53/build/lib/libjemalloc_pic.a: expected $special, actual $bad"; echo "FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)"; } | expect_file out
cp saved.a bo/variants/special53/build/lib/libjemalloc_pic.a
expect_exit 0 "$AB" verify bo

# env
expect_exit 0 "$AB" env bo stock53
echo "unset MALLOC_CONF" | expect_file out
expect_exit 0 "$AB" env bo fit-only
echo "export MALLOC_CONF='lg_extent_max_active_fit:30'" | expect_file out
# --systems: the archives named in a comment, the programs as LABEL=PATH, where this OUTDIR is (a copy of
# the fixture's: not where it was built)
expect_exit 0 "$AB" env bo --systems
cat >systems.want <<X
# stock53: no program artifact; its allocator archive: ALLOCBUILD_ARCHIVE=$PWD/bo/variants/stock53/build/lib/libjemalloc_pic.a
# special53: no program artifact; its allocator archive: ALLOCBUILD_ARCHIVE=$PWD/bo/variants/special53/build/lib/libjemalloc_pic.a
# fit-only: no program artifact; its allocator archive: ALLOCBUILD_ARCHIVE=$PWD/bo/variants/stock53/build/lib/libjemalloc_pic.a
frag-stock53=$PWD/bo/variants/frag-stock53/build/frag
frag-special53=$PWD/bo/variants/frag-special53/build/frag
frag-fit-only=$PWD/bo/variants/frag-stock53/build/frag
frag-aa=$PWD/bo/variants/frag-stock53/build/frag
X
expect_file out <systems.want
# --json: each label's whole environment
expect_exit 0 "$AB" env --json bo
[ "$(json out '[(v["label"], v["set"], v["program"], v["archive"].endswith("/bo/variants/stock53/build/lib/libjemalloc_pic.a")) for v in d if v["label"] in ("stock53", "fit-only")]')" = \
  "[('stock53', {}, None, True), ('fit-only', {'MALLOC_CONF': 'lg_extent_max_active_fit:30'}, None, True)]" ] ||
	fail "env --json: $(cat out)"
check "env --json: the A/A variant is its base as it is" test \
	"$(json out '[(v["label"], v["set"], v["program"] == "'$PWD'/bo/variants/frag-stock53/build/frag", v["archive"]) for v in d if v["label"] in ("frag-stock53", "frag-aa")]')" = \
	"[('frag-stock53', {}, True, None), ('frag-aa', {}, True, None)]"
expect_exit 2 "$AB" env --json bo nosuch
echo "allocbuild: 'bo' has no built variant 'nosuch'" | expect_file err
expect_exit 2 "$AB" env bo nosuch
echo "allocbuild: 'bo' has no built variant 'nosuch'" | expect_file err

# a no-op rerun: nothing rebuilt, fast, the artifacts untouched
touch -d @1 bo/variants/stock53/build/lib/libjemalloc_pic.a
t0=$(date +%s%N)
expect_exit 0 "$AB" build -j 2 --mirror-dir "$MIRROR" -o bo r.json
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
[ "$ms" -lt 1000 ] || fail "no-op rerun took ${ms} ms"
expect_no_grep "make lib/libjemalloc_pic.a (" err
expect_grep "stock53: make lib/libjemalloc_pic.a: up to date" err
[ "$(stat -c %Y bo/variants/stock53/build/lib/libjemalloc_pic.a)" = 1 ] || fail "stock53 was rebuilt"
expect_file out <want
expect_exit 0 "$AB" verify bo

# plan prints the commands that were run
expect_exit 0 "$AB" plan -o bo r.json
# the run lines of special53's configure and build steps
awk '/^\[[0-9]+\/[0-9]+\] / { s = /\] special53: (configure|build)$/ } s && /^ +run: / { sub(/^ +run: /, ""); print }' out >planned
json $C '"\n".join(" ".join(s["argv"]) for s in d["variants"][1]["steps"] if "argv" in s)' >ran
diff -u ran planned || fail "plan and build disagree"

# 5.3.0 does not know disable_large_size_classes: baked in, it is reported as invalid
python3 - <<'PY'
import json
r = json.load(open("r.json"))
r["variants"].append({"label": "large53", "source": "jemalloc-5.3.0",
	"build": {"system": "autotools", "targets": ["lib/libjemalloc.a"],
		"configure": ["--with-lg-quantum=3", "--with-malloc-conf=disable_large_size_classes:false"]},
	"artifacts": ["lib/libjemalloc.a"],
	"allocator": {"kind": "jemalloc", "archive": "lib/libjemalloc.a"}})
json.dump(r, open("r.json", "w"), indent=1)
PY
expect_exit 1 "$AB" build -j 2 --mirror-dir "$MIRROR" -o bo r.json large53
expect_grep "allocbuild: large53: probe: " err
grep "large53: probe: " err | grep -q "disable_large_size_classes" || fail "the invalid setting is not named"
[ "$(json $P '[(p["kind"], p["setting"], p["origin"]) for p in d["variants"][0]["probe"]["problems"]]')" = \
  "[('invalid', 'disable_large_size_classes:false', 'build')]" ]
