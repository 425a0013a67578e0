#!/usr/bin/env bash
# pr reads the manifests through their typed readers (provenance/record/):
# a manifest the build recorded that is not one (a variant's record
# without its label) is refused with exit 2, the message naming the file
# and the key; nothing is written. The one shape of "variants" in every
# manifest: an array of {label}, in plan order.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
C=bo/provenance/build-commands.json
check "build-commands.json's variants: an array of {label}, in plan order" \
	test "$(json $C '[v["label"] for v in d["variants"]]')" = "['a', 'a2']"

# a variant's record without its label, recorded as the build's (SHA256SUMS and the statement agree)
cp -a bo bad
python3 - bad <<'PY'
import hashlib, json, sys
o = sys.argv[1]
rel = "provenance/binary-provenance.json"
d = json.load(open(f"{o}/{rel}"))
del d["variants"][0]["label"]
data = (json.dumps(d, indent=2) + "\n").encode()
def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()
def swap(name, old, new):
    t = open(f"{o}/{name}").read()
    assert old in t, name
    open(f"{o}/{name}", "w").write(t.replace(old, new))
st = "provenance/provenance.intoto.json"
old, old_st = sha(f"{o}/{rel}"), sha(f"{o}/{st}")
open(f"{o}/{rel}", "wb").write(data)
swap(st, old, sha(f"{o}/{rel}"))
swap("SHA256SUMS", old, sha(f"{o}/{rel}"))
swap("SHA256SUMS", old_st, sha(f"{o}/{st}"))
PY
expect_exit 0 "$AB" verify bad
expect_exit 2 "$AB" pr -o prbad bad
check "the message names the file and the key" \
	grep -qxF "allocbuild: 'bad/provenance/binary-provenance.json': variants[0]: no label or no kind" err
check "nothing written" test ! -e prbad
expect_exit 0 "$AB" pr -o pr bo
