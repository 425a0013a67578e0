#!/usr/bin/env bash
# A build variant uses another variant's artifact ({variant:LABEL:PATH} in a
# define, a configure argument or the build env), and a `dir` source beside
# the recipe pinned by its dirHash (issue 13, item 5): validate checks
# label and path, the plan orders and expands, the digest used is recorded
# (binary-provenance.json, the statement's resolvedDependencies) and shown
# in the final table (an up-to-date build's too), env --systems names the
# program where the OUTDIR is, a change of the dependency rebuilds the
# user, and pr draws the edge.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakecmake "$PWD")
mkdir -p r/user
cat >r/user/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(user C)
add_executable(user user.c)
target_link_libraries(user PRIVATE ${USE_ARCHIVE})
CM
printf '#include <stdio.h>\nconst char *fake_tag(void);\nint main(void) { printf("user of %%s\\n", fake_tag()); return 0; }\n' >r/user/user.c
dh=$("$AB" hash r/user | cut -d' ' -f1)
write_recipe() {
	cat >r/r.json <<JSON
{
	"recipe": 1,
	"name": "uses",
	"sources": {
		"fc": {"archive": {"urls": ["https://example.invalid/fakecmake-1.0.tar.gz"], "sha256": "$sha", "strip": 1}},
		"user": {"dir": {"path": "user", "dirHash": "$dh"}}
	},
	"variants": [
		{"label": "u", "source": "user",
		 "build": {"system": "cmake", "defines": {"USE_ARCHIVE": "{variant:lib-$1:libfakealloc.a}"}, "targets": ["user"],
			"env": {"USED": "{variant:lib-$1:libfakealloc.a}"}},
		 "artifacts": ["user"]},
		{"label": "lib-a", "source": "fc",
		 "build": {"system": "cmake", "defines": {"FLB_FAKE_TAG": "A"}, "targets": ["fakealloc"]},
		 "artifacts": ["libfakealloc.a"]},
		{"label": "lib-b", "source": "fc",
		 "build": {"system": "cmake", "defines": {"FLB_FAKE_TAG": "B"}, "targets": ["fakealloc"]},
		 "artifacts": ["libfakealloc.a"]}
	]
}
JSON
}
write_recipe a
expect_exit 0 "$AB" validate r/r.json

# the plan builds lib-a first and gives u the absolute path of its archive
expect_exit 0 "$AB" plan -o "$PWD/bo" r/r.json
grep -n "^\[" out | grep -v fetch >steps
[ "$(sed -n 's/^[0-9]*:\[[0-9/]*\] \([a-z-]*\): configure$/\1/p' steps | head -n 1)" = "lib-a" ] || { cat out; fail "lib-a is not configured first"; }
expect_grep "run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DUSE_ARCHIVE=/allocbuild/variants/lib-a/build/libfakealloc.a" out
expect_grep "sandbox: /allocbuild/variants = $PWD/bo/variants (read-only)" out
expect_exit 0 "$AB" plan --no-sandbox -o "$PWD/bo" r/r.json
expect_grep "run: cmake -S $PWD/bo/variants/u/src -B $PWD/bo/variants/u/build -G 'Unix Makefiles' -DUSE_ARCHIVE=$PWD/bo/variants/lib-a/build/libfakealloc.a" out
expect_grep "env: USED=$PWD/bo/variants/lib-a/build/libfakealloc.a" out
expect_grep "fetch user: dir user dirHash $dh" out

# build: u links lib-a's archive, and says which digest it used
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r/r.json
[ "$(bo/variants/u/build/user)" = "user of fake 2.0.0-0-g0123456789abcdef A" ] || fail "user does not run with lib-a's archive"
liba=$(grep " variants/lib-a/build/libfakealloc.a$" bo/SHA256SUMS | cut -d' ' -f1)
grep '^u ' out >row.u
check "the table names the archive u used" grep -q " ${liba:0:12}\$" row.u
[ -n "$liba" ] || fail "lib-a's archive is not in SHA256SUMS"
[ "$(json bo/provenance/binary-provenance.json '[v["uses"] for v in d["variants"] if v["label"] == "u"][0]')" = \
	"[{'variant': 'lib-a', 'artifact': 'libfakealloc.a', 'path': 'variants/lib-a/build/libfakealloc.a', 'sha256': '$liba'}]" ] ||
	fail "binary-provenance.json does not record the archive u used"
[ "$(json bo/provenance/provenance.intoto.json '[x for x in d["predicate"]["buildDefinition"]["resolvedDependencies"] if x["name"].startswith("variants/")]')" = \
	"[{'name': 'variants/lib-a/build/libfakealloc.a', 'digest': {'sha256': '$liba'}, 'annotations': {'usedBy': 'u'}}]" ] ||
	fail "the statement does not list the archive u used"
[ "$(json bo/provenance/provenance.intoto.json '[x["digest"] for x in d["predicate"]["buildDefinition"]["resolvedDependencies"] if x["name"] == "user"]')" = \
	"[{'dirHash': '$dh'}]" ] || fail "the dir source is not a resolved dependency by its dirHash"
[ "$(json bo/provenance/sources.json 'd["sources"]["user"]["dirHash"] + " " + d["sources"]["user"]["dir"]')" = "$dh user" ]
expect_exit 0 "$AB" verify bo

# up to date: nothing rebuilt; the dependency changed: u is built again, against lib-b
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r/r.json
expect_grep "u: cmake --build user: up to date" err
# ... and says so again (on ce9c0ad an up-to-date u's archive was '-')
grep '^u ' out | expect_file row.u
# env --systems names the program where the OUTDIR is now, not where it was built
cp -a bo moved
expect_exit 0 "$AB" env moved --systems
expect_grep "u=$PWD/moved/variants/u/build/user" out
rm -rf moved
write_recipe b
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r/r.json
[ "$(bo/variants/u/build/user)" = "user of fake 2.0.0-0-g0123456789abcdef B" ] || fail "u was not rebuilt against lib-b"
libb=$(grep " variants/lib-b/build/libfakealloc.a$" bo/SHA256SUMS | cut -d' ' -f1)
[ "$(json bo/provenance/binary-provenance.json '[v["uses"][0]["sha256"] for v in d["variants"] if v["label"] == "u"][0]')" = "$libb" ]

# pr draws the edge from the variant used
expect_exit 0 "$AB" pr -o prdir bo
expect_grep "  var_lib_b -. uses .-> var_u" prdir/pr.md

# the directory changed after pinning: fetch and build refuse it, naming both hashes
echo "/* changed */" >>r/user/user.c
expect_exit 1 "$AB" build --mirror-dir mirror -o bo r/r.json
expect_grep "source 'user': directory '$PWD/r/user' has dirHash $("$AB" hash r/user | cut -d' ' -f1), the recipe pins $dh" err
# a symlink in a dir source is not covered by its dirHash: refused
sed -i '$d' r/user/user.c
ln -s user.c r/user/link.c
expect_exit 0 "$AB" hash r/user
[ "$(cut -d' ' -f1 out)" = "$dh" ] || fail "a symlink changed the dirHash"
expect_exit 2 "$AB" build --force --mirror-dir mirror -o bo r/r.json
expect_grep "source 'user': '$PWD/r/user/link.c' is a symlink: a dir source holds regular files and directories only" err
rm r/user/link.c

# validate: the label, the path and the form of a reference, named with their position
bad() {
	sed -e "s|{variant:lib-b:libfakealloc.a}\"}, \"targets\"|$1\"}, \"targets\"|" r/r.json >r/bad.json
	expect_exit 2 "$AB" validate r/bad.json
	expect_grep "$2" err
}
bad "{variant:nope:libfakealloc.a}" "r/bad.json:10:60: variants[0].build.defines.USE_ARCHIVE: unknown variant 'nope'"
bad "{variant:lib-b:libother.a}" "variants[0].build.defines.USE_ARCHIVE: 'libother.a' is not an artifact of variant 'lib-b': list it in that variant's 'artifacts'"
bad "{variant:u:user}" "variants[0].build.defines.USE_ARCHIVE: a variant cannot use its own artifact"
bad "{variant:lib-b}" "variants[0].build.defines.USE_ARCHIVE: malformed variant reference at '{variant:lib-b}': expected {variant:LABEL:PATH}"
bad "{variant:lib-b:../x.a}" "variants[0].build.defines.USE_ARCHIVE: '../x.a' leaves the build directory of the variant used: '..' is not allowed"
# two variants that use each other: a cycle
python3 - r/r.json r/cycle.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["variants"][2]["build"]["defines"]["X"] = "{variant:u:user}"
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
expect_exit 2 "$AB" validate r/cycle.json
expect_grep "dependency cycle" err
