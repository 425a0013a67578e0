#!/usr/bin/env bash
# issue 18, item 13: a symlink that a build step makes in the build
# directory (escape -> /outside) does not let an artifact be hashed from
# outside nor a relink's output land outside: both paths are resolved
# component by component without leaving the build directory.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

mkdir outside
echo "TOPSECRET-1313" >outside/secret
sha=$(make_fakeproj "$PWD")
cat >r.json <<JSON
{"recipe": 1, "name": "esc",
 "sources": {"f": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "t1", "source": "f", "build": {"system": "autotools", "configure": ["--escape=$PWD/outside"]},
               "artifacts": ["lib/libfake.a", "escape/secret"]}]}
JSON
expect_exit 1 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "allocbuild: t1: artifact '$PWD/bo/variants/t1/build/escape/secret' leaves the directory through symlink 'escape'" err
[ -L bo/variants/t1/build/escape ] || fail "the build step made no symlink"
s=$(sha256sum outside/secret | cut -d' ' -f1)
expect_no_grep "$s" bo/SHA256SUMS
expect_no_grep "$s" bo/provenance/provenance.intoto.json
[ ! -e bo/variants/t1/state.json ] || fail "the variant has a state"

# a relink whose output goes through the symlink
make_fakecmake_relink_recipe c.json
python3 - c.json "$PWD/outside" <<'PY'
import json, sys
p, out = sys.argv[1], sys.argv[2]
d = json.load(open(p))
d["variants"][0]["build"]["defines"]["FAKE_ESCAPE"] = out
d["variants"][2]["relink"]["output"] = "escape/app-relinked"
json.dump(d, open(p, "w"))
PY
expect_exit 1 "$AB" build --mirror-dir mirror -o co c.json
[ -L co/variants/a/build/escape ] || fail "cmake made no symlink"
expect_grep "allocbuild: a-with-b: relink output 'escape/app-relinked' in '$PWD/co/variants/a/build' leaves the directory through symlink 'escape'" err
[ -z "$(ls outside | grep -v '^secret$')" ] || { ls -la outside >&2; fail "the relink wrote outside the build directory"; }
# inside the build directory, a new directory for the output is fine
sed -i 's|"escape/app-relinked"|"relinked/app"|' c.json
expect_exit 0 "$AB" build --mirror-dir mirror -o co c.json
[ -x co/variants/a/build/relinked/app ] || fail "the relink output is missing"
