#!/usr/bin/env bash
# build: cmake variants (configure with -D, cmake --build --target), a
# relink variant that swaps the library of one into the other's link, an
# up-to-date rerun, env --systems, and cmake-cache-provenance's diff.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakecmake_relink_recipe r.json
O=$PWD/bo
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o bo r.json
[ "$(bo/variants/a/build/prog)" = "fake 2.0.0-0-g0123456789abcdef A" ]
[ "$(bo/variants/a/build/prog-relinked)" = "fake 2.0.0-0-g0123456789abcdef B" ]

C=bo/provenance/build-commands.json
[ "$(json $C 'd["variants"][0]["steps"][1]["argv"]')" = \
  "['cmake', '-S', '/allocbuild/src', '-B', '/allocbuild/build', '-G', 'Unix Makefiles', '-DFLB_FAKE_TAG=A']" ]
# -j 2: no -j in argv, the jobserver's MAKEFLAGS instead (docs/build.md)
[ "$(json $C 'd["variants"][0]["steps"][2]["argv"]')" = "['cmake', '--build', '/allocbuild/build', '--target', 'prog']" ]
[ "$(json $C 'd["variants"][0]["steps"][2]["env_set"]["MAKEFLAGS"]')" = "-j2 --jobserver-auth=<fds>" ]
[ "$(json $C '[s["step"] for s in d["variants"][2]["steps"]]')" = "['relink']" ]

# the cache records differ where the recipe says: FLB_FAKE_TAG
M=bo/provenance/cmake-cache-provenance.json
check 'cmake-cache-provenance.json: format 2, its variants an array in plan order' \
	test "$(json $M '(d["version"], [v["label"] for v in d["variants"]])')" = "(2, ['a', 'b'])"
[ "$(json $M '[(x["section"], x["key"]) for x in d["diffs"][0]["differences"] if x["section"] == "keys"]')" = "[('keys', 'FLB_FAKE_TAG')]" ] ||
	{ json $M 'd["diffs"]'; fail "unexpected cache differences"; }
[ -f bo/provenance/relink-provenance.json ] || fail "no relink-provenance.json"
[ "$(json bo/provenance/binary-provenance.json '[a["allocator_version"] for a in d["variants"][0]["artifacts"]]')" = \
  "['2.0.0-0-g0123456789abcdef', '2.0.0-0-g0123456789abcdef']" ]
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo

expect_exit 0 "$AB" env bo --systems
cat <<EOT | expect_file out
a=$O/variants/a/build/prog
# b: no program artifact
a-with-b=$O/variants/a/build/prog-relinked
EOT

# nothing changed: nothing rebuilt or relinked
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o bo r.json
expect_grep "a-with-b: relink prog-relinked: up to date" err
expect_no_grep "cmake --build prog (" err
# b changes: b is rebuilt and the relink redone, a is not
sed -i 's/"FLB_FAKE_TAG": "B"/"FLB_FAKE_TAG": "B2"/' r.json
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o bo r.json
expect_grep "a: cmake --build prog: up to date" err
expect_grep "b: cmake --build prog (" err
expect_grep "a-with-b: relink prog-relinked (" err
[ "$(bo/variants/a/build/prog-relinked)" = "fake 2.0.0-0-g0123456789abcdef B2" ]
expect_exit 0 "$AB" verify bo
