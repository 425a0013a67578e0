#!/usr/bin/env bash
# issue 18, item 3: a line dropped from SHA256SUMS (or all of them) does not
# hide a tampered file: every manifest the build writes must be listed, and
# SHA256SUMS and the statement must agree on the whole set, both ways.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
cp -a bo pristine
again() { rm -rf bo && cp -a pristine bo; }

# an empty SHA256SUMS and an edited binary-provenance.json (used to be "verified 6 files")
: >bo/SHA256SUMS
sed -i 's/"t1"/"T1"/' bo/provenance/binary-provenance.json
expect_exit 1 "$AB" verify bo
for m in recipe.json provenance/sources.json provenance/build-commands.json provenance/binary-provenance.json \
	provenance/allocator-probes.json provenance/provenance.intoto.json; do
	expect_grep "$m: a manifest of this build, not listed in SHA256SUMS" out
done
expect_grep "variants/t1/build/bin/fake: in the statement but not listed in SHA256SUMS" out
expect_grep "variants/t1/logs/03-build.log: in the statement but not listed in SHA256SUMS" out

# the sources.json line removed, the file edited
again
sed -i '/ provenance\/sources.json$/d' bo/SHA256SUMS
sed -i 's/"fk"/"fK"/' bo/provenance/sources.json
expect_exit 1 "$AB" verify bo
# the statement lists every manifest but itself among its byproducts (issue 15), so the edit shows there too
python3 - bo <<'PY' >want
import hashlib, json, sys
d = json.load(open(sys.argv[1] + "/provenance/provenance.intoto.json"))
signed = [b["digest"]["sha256"] for b in d["predicate"]["runDetails"]["byproducts"] if b["name"] == "provenance/sources.json"][0]
actual = hashlib.sha256(open(sys.argv[1] + "/provenance/sources.json", "rb").read()).hexdigest()
print(f"provenance/sources.json: expected {signed}, actual {actual}")
print("provenance/sources.json: in the statement but not listed in SHA256SUMS")
print("provenance/sources.json: a manifest of this build, not listed in SHA256SUMS")
print("FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)")
PY
expect_file out <want

# the statement's line removed, the statement edited (one subject fewer)
again
sed -i '/ provenance\/provenance.intoto.json$/d' bo/SHA256SUMS
python3 - bo/provenance/provenance.intoto.json <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["subject"] = d["subject"][:1]
json.dump(d, open(p, "w"), indent=2)
PY
expect_exit 1 "$AB" verify bo
expect_grep "provenance/provenance.intoto.json: a manifest of this build, not listed in SHA256SUMS" out
expect_grep "variants/t1/build/bin/fake: listed in SHA256SUMS but not in the statement" out

# an artifact's line removed from SHA256SUMS only
again
sed -i '/ variants\/t1\/build\/bin\/fake$/d' bo/SHA256SUMS
expect_exit 1 "$AB" verify bo
expect_file out <<'X'
variants/t1/build/bin/fake: in the statement but not listed in SHA256SUMS
FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)
X

# a line listed twice, an unsafe path: named as such (item 10)
again
tail -n 1 bo/SHA256SUMS >>bo/SHA256SUMS
expect_exit 1 "$AB" verify bo
grep -qE "^SHA256SUMS:[0-9]+: '[^']+' is listed twice$" out || { cat out; fail "duplicate line not named"; }
again
echo "$(cut -c1-64 bo/SHA256SUMS | head -n 1)  ../outside" >>bo/SHA256SUMS
echo "$(cut -c1-64 bo/SHA256SUMS | head -n 1)  /etc/passwd" >>bo/SHA256SUMS
expect_exit 1 "$AB" verify bo
expect_grep "unsafe path '../outside' (absolute or with '..')" out
expect_grep "unsafe path '/etc/passwd' (absolute or with '..')" out
expect_no_grep "malformed digest" out

# the pristine copy still verifies
again
expect_exit 0 "$AB" verify bo
