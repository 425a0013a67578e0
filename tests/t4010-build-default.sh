#!/usr/bin/env bash
# build: the default recipe from the real jemalloc 5.3.0 tarball, as the
# suite's default fixture built it (`build -j 2`, its exit status and
# output kept: tests/README.md, "Fixtures"; built once for every test that
# reads it). stock53 reports opt.lg_extent_max_active_fit 6, special53 30,
# quantum 8 in both; fit-only's override check shows 30. Then, on a copy:
# SHA256SUMS, verify, a tampered artifact, env, a no-op rerun, and a
# variant baking disable_large_size_classes:false (5.3.1 and later only)
# into 5.3.0.
. "$TOP/tests/lib.sh"

cp "$TOP/recipes/jemalloc-5.3.0-policy.json" r.json
default_build bo
# the build's own exit status and output, as if this test had run it
[ "$(cat "$FIXTURE/build.rc")" = 0 ] || fail "the default build failed"
cp "$FIXTURE/build.out" out
cp "$FIXTURE/build.err" err
O=$DEFAULT_OUTDIR
for l in stock53 special53; do
	expect_grep "$l: make lib/libjemalloc_pic.a (" err
done

P=bo/provenance/allocator-probes.json
[ "$(json $P '[v["label"] for v in d["variants"]]')" = "['stock53', 'special53', 'fit-only']" ]
[ "$(json $P '[v["probe"]["effective"]["lg_extent_max_active_fit"] for v in d["variants"]]')" = "['6', '30', '30']" ]
[ "$(json $P '[v["probe"]["quantum"] for v in d["variants"]]')" = "[8, 8, 8]" ]
[ "$(json $P '[v["probe"]["version"] for v in d["variants"]]')" = \
  "['5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c', '5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c', '5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c']" ]
[ "$(json $P '[v["probe"]["ok"] for v in d["variants"]]')" = "[True, True, True]" ]
[ "$(json $P '[(o["setting"], o["origin"], o["effective"], o["status"]) for o in d["variants"][2]["probe"]["overrides"]]')" = \
  "[('lg_extent_max_active_fit', 'runtime', '30', 'ok')]" ]
[ "$(json $P '[(o["setting"], o["origin"], o["effective"], o["status"]) for o in d["variants"][1]["probe"]["overrides"]]')" = \
  "[('lg_extent_max_active_fit', 'build', '30', 'ok')]" ]

B=bo/provenance/binary-provenance.json
stock=$(json $B 'd["variants"][0]["allocator"]["archive_sha256"]')
special=$(json $B 'd["variants"][1]["allocator"]["archive_sha256"]')
[ "$stock" = "$(sha256sum bo/variants/stock53/build/lib/libjemalloc_pic.a | cut -d' ' -f1)" ]
[ "$special" = "$(sha256sum bo/variants/special53/build/lib/libjemalloc_pic.a | cut -d' ' -f1)" ]
[ "$(json $B 'd["variants"][2]["allocator"]["archive_sha256"]')" = "$stock" ]
[ "$(json $B '[a["allocator_version"] for v in d["variants"] for a in v["artifacts"]]')" = \
  "['5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c', '5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c', '5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c']" ]
[ "$(json $B '[a["bogus_version"] for v in d["variants"] for a in v["artifacts"]]')" = "[False, False, False]" ]

# the final table
V=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c
cat >want <<EOT
LABEL      KIND        ALLOCATOR                                                   SECURE  SETTINGS: REQUESTED -> EFFECTIVE              ARCHIVE SHA256
stock53    autotools   jemalloc $V  -       -                                             ${stock:0:12}
special53  autotools   jemalloc $V  -       lg_extent_max_active_fit:30 (built in) -> 30  ${special:0:12}
fit-only   runtime_of  jemalloc $V  -       lg_extent_max_active_fit:30 -> 30             ${stock:0:12}
EOT
expect_file out <want

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
  "[('/allocbuild/build', '$O/variants/special53/build')]" ]
[ "$(json $C '[d["variants"][0]["steps"][1]["env_set"][k] for k in ("LC_ALL", "TZ", "SOURCE_DATE_EPOCH")]')" = "['C', 'UTC', '0']" ]
[ "$(json $C '[s["exit_status"] for v in d["variants"][:2] for s in v["steps"][1:]]')" = "[0, 0, 0, 0]" ]

# the in-toto statement
I=bo/provenance/provenance.intoto.json
[ "$(json $I 'd["_type"]')" = "https://in-toto.io/Statement/v1" ]
[ "$(json $I 'd["predicateType"]')" = "https://slsa.dev/provenance/v1" ]
[ "$(json $I '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = \
  "[('variants/stock53/build/lib/libjemalloc_pic.a', '$stock'), ('variants/special53/build/lib/libjemalloc_pic.a', '$special')]" ]
[ "$(json $I 'd["predicate"]["buildDefinition"]["buildType"]')" = "https://allocbuild.dev/build/v1" ]
[ "$(json $I 'd["predicate"]["buildDefinition"]["externalParameters"]["recipe"]["digest"]["sha256"]')" = "$(sha256sum r.json | cut -d' ' -f1)" ]
[ "$(json $I 'd["predicate"]["buildDefinition"]["resolvedDependencies"]')" = \
  "[{'name': 'jemalloc-5.3.0', 'uri': 'https://github.com/jemalloc/jemalloc/releases/download/5.3.0/jemalloc-5.3.0.tar.bz2', 'digest': {'sha256': '$JEMALLOC_SHA'}}]" ]
[ "$(json $I 'd["predicate"]["runDetails"]["builder"]["id"]')" = "https://allocbuild.dev/builder/v1" ]
json $I 'd["predicate"]["runDetails"]["metadata"]["invocationId"]' | grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
[ "$(json $I '[b["name"] for b in d["predicate"]["runDetails"]["byproducts"]]')" = \
  "['variants/stock53/logs/02-configure.log', 'variants/stock53/logs/03-build.log', 'variants/stock53/logs/compiles.tsv', 'variants/special53/logs/02-configure.log', 'variants/special53/logs/03-build.log', 'variants/special53/logs/compiles.tsv', 'recipe.json', 'provenance/sources.json', 'provenance/build-commands.json', 'provenance/binary-provenance.json', 'provenance/allocator-probes.json']" ]
# the byproducts' digests are the manifests' own: a signature over the statement vouches for them
[ "$(json $I '[b["digest"]["sha256"] for b in d["predicate"]["runDetails"]["byproducts"] if b["name"] == "provenance/sources.json"][0]')" = \
  "$(sha256sum bo/provenance/sources.json | cut -d' ' -f1)" ]
cmp r.json bo/recipe.json || fail "recipe.json is not the recipe"

# SHA256SUMS and verify: exactly these files, each checking
cut -c67- bo/SHA256SUMS >sums
expect_file sums <<'X'
variants/stock53/build/lib/libjemalloc_pic.a
variants/special53/build/lib/libjemalloc_pic.a
variants/stock53/logs/02-configure.log
variants/stock53/logs/03-build.log
variants/stock53/logs/compiles.tsv
variants/special53/logs/02-configure.log
variants/special53/logs/03-build.log
variants/special53/logs/compiles.tsv
recipe.json
provenance/sources.json
provenance/build-commands.json
provenance/binary-provenance.json
provenance/allocator-probes.json
provenance/provenance.intoto.json
X
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo
{ echo "verified 14 files in bo"; echo "pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)"; } | expect_file out

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
# --systems: the default recipe's variants are archives: no program to run, each archive named in a comment
expect_exit 0 "$AB" env bo --systems
cat >systems.want <<X
# stock53: no program artifact; its allocator archive: ALLOCBUILD_ARCHIVE=$PWD/bo/variants/stock53/build/lib/libjemalloc_pic.a
# special53: no program artifact; its allocator archive: ALLOCBUILD_ARCHIVE=$PWD/bo/variants/special53/build/lib/libjemalloc_pic.a
# fit-only: no program artifact; its allocator archive: ALLOCBUILD_ARCHIVE=$PWD/bo/variants/stock53/build/lib/libjemalloc_pic.a
X
expect_file out <systems.want
# --json: each label's whole environment
expect_exit 0 "$AB" env --json bo
[ "$(json out '[(v["label"], v["set"], v["program"], v["archive"].endswith("/bo/variants/stock53/build/lib/libjemalloc_pic.a")) for v in d if v["label"] != "special53"]')" = \
  "[('stock53', {}, None, True), ('fit-only', {'MALLOC_CONF': 'lg_extent_max_active_fit:30'}, None, True)]" ] ||
	fail "env --json: $(cat out)"
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
