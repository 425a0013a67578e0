#!/usr/bin/env bash
# The caller's toolchain variables (CC, CFLAGS, LDFLAGS, MAKEFLAGS, CMAKE_*,
# ...) never reach a build: a shell that sets them gets the bytes of one
# that does not, a rerun in it is up to date, and each name removed is
# recorded; the recipe's build.env is where such a variable is set.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakecmake "$PWD")
recipe() {
	cat >"$1" <<JSON
{"recipe": 1, "name": "te",
 "sources": {"fc": {"archive": {"urls": ["https://example.invalid/fakecmake-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "a", "source": "fc",
	"build": {"system": "cmake", "targets": ["prog"]$2}, "artifacts": ["prog", "libfakealloc.a"]}]}
JSON
}
recipe r.json ""
sums() { (cd "$1/variants/a/build" && sha256sum prog libfakealloc.a); }
hostile=(env CFLAGS="-O0 -DFAKE_EXTRA=1" CC=/bin/false LDFLAGS=-static MAKEFLAGS=-k CMAKE_GENERATOR=Ninja
	CMAKE_BUILD_TYPE=Debug CPATH=/nonexistent PKG_CONFIG_PATH=/nonexistent)

expect_exit 0 "$AB" build --mirror-dir mirror -o plain r.json
sums plain >plain.sums
# the same OUTDIR again in a shell that sets them: nothing to do
expect_exit 0 "${hostile[@]}" "$AB" build --mirror-dir mirror -o plain r.json
expect_grep "a: cmake --build prog: up to date" err
sums plain | cmp - plain.sums || fail "the rerun changed the artifacts"
# a fresh OUTDIR in that shell: the same bytes, the names removed recorded
expect_exit 0 "${hostile[@]}" "$AB" build --mirror-dir mirror -o hostile r.json
sums hostile | cmp - plain.sums || fail "the caller's toolchain variables changed the artifacts"
# (others the test's own environment holds may be removed too)
missing=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
want = set("CC CFLAGS CMAKE_BUILD_TYPE CMAKE_GENERATOR CPATH LDFLAGS MAKEFLAGS PKG_CONFIG_PATH".split())
print(" ".join(sorted(want - set(d["variants"][0]["steps"][1]["env_removed"]))))' hostile/provenance/build-commands.json)
[ -z "$missing" ] || fail "configure's env_removed lacks $missing"
expect_no_grep "FAKE_EXTRA" hostile/variants/a/build/CMakeCache.txt
# plan says so
expect_exit 0 "$AB" plan -o plain r.json
expect_grep "the environment PATH, HOME, LC_ALL=C, TZ=UTC and what the recipe sets, nothing inherited" out
expect_exit 0 "$AB" plan --no-sandbox -o plain r.json
expect_grep "environment: inherited minus MALLOC_CONF, LD_PRELOAD, MIMALLOC_*, *_MALLOC_CONF and the toolchain variables (CC, CFLAGS, LDFLAGS, CMAKE_*, ...)" out
# the recipe's build.env still sets one: other bytes, a rebuild, recorded
recipe env.json ', "env": {"CFLAGS": "-O1 -DFAKE_EXTRA=1"}'
expect_exit 0 "$AB" build --mirror-dir mirror -o plain env.json
expect_no_grep "a: cmake --build prog: up to date" err
sums plain | cmp -s - plain.sums && fail "build.env's CFLAGS did not change the artifacts"
expect_grep "FAKE_EXTRA" plain/variants/a/build/CMakeCache.txt
[ "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["variants"][0]["steps"][1]["env_set"]["CFLAGS"])' plain/provenance/build-commands.json)" = "-O1 -DFAKE_EXTRA=1" ] ||
	fail "build.env's CFLAGS is not recorded"
