#!/usr/bin/env bash
# build --check and rebuild of a build through ccache. In the build
# sandbox ccache changes no byte (every variant compiles at the same fixed
# paths, nothing is rewritten): a --ccache build equals one without it,
# and its check and rebuild compile without ccache, never asking the
# remote named in the environment, and find every artifact identical.
# Without the sandbox ccache hands the compiler the paths under
# CCACHE_BASEDIR made relative, so an object compiled with -g through it
# is not the bytes of one compiled without it (the debug info names
# ../src/quiet.c, not /allocbuild/src/quiet.c): build --ccache --check and
# rebuild of its OUTDIR build again through ccache, with an empty cache of
# their own (removed afterwards) and no remote storage (a remote named in
# the environment is not asked), and find every artifact identical; every
# compile of the second build is a miss, so nothing came from the first
# build's cache.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_noisyproj "$PWD")
cat >r.json <<JSON
{"recipe": 1, "name": "quiet",
 "sources": {"noisy": {"archive": {"urls": ["https://example.invalid/noisyproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "quiet", "source": "noisy",
               "build": {"system": "autotools", "targets": ["libquiet.a"]}, "artifacts": ["libquiet.a"]}]}
JSON
sha_of() { sha256sum "$1" | cut -c1-64; }

mkdir tmp
export TMPDIR=$PWD/tmp

# ---- in the sandbox: the same bytes with and without ccache; the check and the rebuild without it
expect_exit 0 "$AB" build --mirror-dir mirror -o sb-plain r.json
CCACHE_REMOTE_STORAGE=redis://127.0.0.1:9 expect_exit 0 "$AB" build --check --ccache-dir "$PWD/sb-cc" -j 2 --mirror-dir mirror -o sb r.json
[ "$(sha_of sb-plain/variants/quiet/build/libquiet.a)" = "$(sha_of sb/variants/quiet/build/libquiet.a)" ] ||
	fail "ccache changed the bytes in the sandbox"
[ "$(json sb/provenance/build-commands.json 'd["variants"][0]["ccache"]["misses"]')" = 1 ] || fail "not compiled through ccache"
expect_grep "warning: quiet: the remote cache redis://127.0.0.1:9 was unreachable" err
[ "$(grep -c 'was unreachable' err)" = 1 ] || fail "the check's build asked the remote: $(cat err)"
expect_grep "check: building again in '$PWD/sb/reproducibility/check' with -j 4" err
expect_no_grep "through ccache with an empty cache" err
expect_grep "1/1 artifact identical" out
[ "$(json sb/reproducibility/check/provenance/build-commands.json '[d["options"]["ccache"], "ccache" in d["variants"][0]]')" = "[False, False]" ]
expect_exit 0 "$AB" rebuild --mirror-dir mirror -o sb-rb sb
[ "$(sha_of sb-rb/variants/quiet/build/libquiet.a)" = "$(sha_of sb/variants/quiet/build/libquiet.a)" ] || fail "rebuild differs"
[ "$(json sb-rb/provenance/build-commands.json 'd["options"]["ccache"]')" = False ]
[ -z "$(ls tmp)" ] || fail "a cache was left: $(ls tmp)"

# ---- without the sandbox: the bytes differ with and without ccache, what makes the check need it
expect_exit 0 "$AB" build --no-sandbox --mirror-dir mirror -o plain r.json
# an unreachable remote in the environment: the first build warns, the check must not use it
export CCACHE_REMOTE_STORAGE=redis://127.0.0.1:9
expect_exit 0 "$AB" build --no-sandbox --check --ccache-dir "$PWD/cc" -j 2 --mirror-dir mirror -o o r.json
[ "$(sha_of plain/variants/quiet/build/libquiet.a)" != "$(sha_of o/variants/quiet/build/libquiet.a)" ] ||
	fail "ccache no longer changes the bytes: the check could go without it"
expect_grep "warning: quiet: the remote cache redis://127.0.0.1:9 was unreachable" err
expect_grep "check: building again in '$PWD/o/reproducibility/check' with -j 4, through ccache with an empty cache of its own" err
[ "$(grep -c 'was unreachable' err)" = 1 ] || fail "the check's build asked the remote: $(cat err)"
expect_grep "identical quiet variants/quiet/build/libquiet.a" <(sed -E 's/ +/ /g' out)
expect_grep "1/1 artifact identical" out
[ "$(sha_of o/variants/quiet/build/libquiet.a)" = "$(sha_of o/reproducibility/check/variants/quiet/build/libquiet.a)" ]
python3 - o/reproducibility/check/provenance/build-commands.json <<'PY' || fail "the check's build took objects from a cache"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["options"]["ccache"] is True and d["options"]["ccache_remote"] is None, d["options"]
c = d["variants"][0]["ccache"]
assert c["cacheable"] == 1 and c["misses"] == 1 and c["remote_errors"] == 0, c
env = [s for s in d["variants"][0]["steps"] if s["step"] == "build"][0]["env_set"]
import os
assert env["CCACHE_REMOTE_STORAGE"] == "" and env["CCACHE_DIR"].startswith("./tmp/allocbuild-ccache."), env
PY
[ -z "$(ls tmp)" ] || fail "the check's cache was left: $(ls tmp)"

# rebuild of the ccache build: through ccache, an empty cache, identical
expect_exit 0 "$AB" rebuild --mirror-dir mirror -o rb o
[ "$(sha_of rb/variants/quiet/build/libquiet.a)" = "$(sha_of o/variants/quiet/build/libquiet.a)" ] || fail "rebuild differs"
[ "$(json rb/provenance/build-commands.json 'd["variants"][0]["ccache"]["misses"]')" = 1 ]
[ -z "$(ls tmp)" ] || fail "the rebuild's cache was left: $(ls tmp)"
