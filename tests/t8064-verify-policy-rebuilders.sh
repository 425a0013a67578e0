#!/usr/bin/env bash
# verify --policy --rebuilt: a reproducible rule that asks for independent
# rebuilders. A small build (tests/fakeproj.sh) with its build --check
# record, its bundle rebuilt twice, each record signed by its rebuilder
# (rebuild --sign): two rebuilders pass "independent": 2, and the signed
# VSA lists the two records it relied on (path, sha256, signer keyid); one
# does not; no record given says so; a record edited under its signature
# is refused by challenge and counts for nothing; unsigned records count
# for nothing (one real record and a copy under another host name were
# two rebuilders, and the VSA said PASSED); two records signed by one key
# (the second under another host name) are one rebuilder; a runtime
# variant counts its base's artifacts; --rebuilt without --policy, or
# --rebuilt-key without --rebuilt, is a usage error.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

make_fakeproj_runtime_recipe r.json '{"FAKE": "1"}'
expect_exit 0 "$AB" build --check --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" pr -o ev bo
B=ev/provenance-fk.tar.gz
for k in 1 2; do
	openssl genpkey -algorithm ed25519 -out k$k.pem 2>/dev/null
	openssl pkey -in k$k.pem -pubout -out k$k.pub
	expect_exit 0 "$AB" rebuild --trust-unsigned --sign k$k.pem --mirror-dir mirror -o rb$k "$B"
	cp rb$k/rebuild.intoto.jsonl r$k.jsonl
done
cat >policy.json <<'X'
{"policy": 1, "name": "rebuilders", "rules": [{"variants": ["*"], "reproducible": {"record": "check", "independent": 2}}]}
X
R="rebuild records (--rebuilt): predicate.comparison.artifacts"
C="provenance/reproducibility.intoto.json: predicate.comparison.artifacts"

expect_exit 0 "$AB" verify --policy policy.json --rebuilt r1.jsonl --rebuilt r2.jsonl --rebuilt-key k1.pub --rebuilt-key k2.pub bo
sed -n '/rules\[/,$p' out >rules
expect_file rules <<X
pass: rules[0] reproducible a: 2/2 artifacts identical ($C)
pass: rules[0] reproducible a: 2 signing keys for the least of its 2 artifacts ($R)
pass: rules[0] reproducible a2: 2/2 artifacts identical (its base a's) ($C)
pass: rules[0] reproducible a2: 2 signing keys for the least of its 2 artifacts, its base a ($R)
pass: policy policy.json: every rule check passed on OUTDIR bo (4)
X
# the signed VSA names the records it relied on: each by its path, the sha256 of its bytes and its signer
expect_exit 0 "$AB" verify --policy policy.json --rebuilt r1.jsonl --rebuilt r2.jsonl --rebuilt-key k1.pub --rebuilt-key k2.pub \
	--sign k1.pem -o vsa.jsonl bo
python3 -c 'import base64, json; print(base64.b64decode(json.loads(open("vsa.jsonl").readline())["payload"]).decode())' >vsa.json
json vsa.json '"\n".join("%s %s %s" % (a["uri"], a["digest"]["sha256"], a.get("annotations", {}).get("signerKeyid"))
	for a in d["predicate"]["inputAttestations"] if a["uri"].startswith("r"))' >relied
cat >want <<X
r1.jsonl $(sha256sum <r1.jsonl | cut -d' ' -f1) $(keyid_of k1.pub)
r2.jsonl $(sha256sum <r2.jsonl | cut -d' ' -f1) $(keyid_of k2.pub)
X
expect_file relied <want
check 'the VSA with its records says PASSED' test "$(json vsa.json 'd["predicate"]["verificationResult"]')" = PASSED
expect_exit 0 "$AB" verify --key k1.pub vsa.jsonl
# and so does the one pr --policy --sign puts into the bundle
cp -r bo bp
expect_exit 0 "$AB" pr --policy policy.json --rebuilt "$PWD/r1.jsonl" --rebuilt "$PWD/r2.jsonl" --rebuilt-key k1.pub \
	--rebuilt-key k2.pub --sign k1.pem -o evp bp
python3 -c 'import base64, json; print(base64.b64decode(json.loads(open("bp/pr-policy/vsa.intoto.jsonl").readline())["payload"]).decode())' >prvsa.json
check "pr's VSA lists the two records it relied on" test "$(json prvsa.json 'sorted(a.get("annotations", {}).get("signerKeyid") for a in d["predicate"]["inputAttestations"] if a["uri"].endswith("r1.jsonl") or a["uri"].endswith("r2.jsonl"))')" = \
	"$(python3 -c 'import sys; print(sorted(sys.argv[1:]))' "$(keyid_of k1.pub)" "$(keyid_of k2.pub)")"
# one rebuilder is not two
expect_exit 1 "$AB" verify --policy policy.json --rebuilt r1.jsonl --rebuilt-key k1.pub bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders (signing keys) with every artifact identical, got 1 signing key for the least of its 2 artifacts ($R)" out
# none given
expect_exit 1 "$AB" verify --policy policy.json bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders (signing keys) with every artifact identical, got no rebuild record given (verify --rebuilt RECORD) ($R)" out

# unsigned records count for nothing: one real record and a copy that names another host were two
# rebuilders (counted by the host each declares), and the signed VSA said PASSED without naming them
python3 - rb1/provenance/rebuild.intoto.json copy.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["predicate"]["rebuilder"]["host"]["name"] = "elsewhere"
json.dump(d, open(sys.argv[2], "w"), indent="\t")
PY
expect_exit 1 "$AB" verify --policy policy.json --rebuilt rb1/provenance/rebuild.intoto.json --rebuilt copy.json \
	--sign k1.pem -o unsigned.jsonl bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders (signing keys) with every artifact identical, got none: the records' signatures were not checked (--rebuilt-key PUB.pem), and an unsigned record proves nothing about who rebuilt ($R)" out
expect_grep "allocbuild: warning: verify: --rebuilt without --rebuilt-key: the records' signatures are not checked, and they count for no independent rebuilder (an unsigned record proves nothing about who rebuilt)" err
python3 -c 'import base64, json; print(base64.b64decode(json.loads(open("unsigned.jsonl").readline())["payload"]).decode())' >unsigned.json
check 'a VSA over unsigned records says FAILED' test "$(json unsigned.json 'd["predicate"]["verificationResult"]')" = FAILED
check 'a VSA lists no unsigned record' test "$(json unsigned.json '[a["uri"] for a in d["predicate"]["inputAttestations"] if a["uri"].endswith("json") and not a["uri"].startswith("provenance/")]')" = "[]"
# two records signed by one key are one rebuilder, whatever host each names
sign_openssl k1.pem copy.json copy1.jsonl
expect_exit 1 "$AB" verify --policy policy.json --rebuilt r1.jsonl --rebuilt copy1.jsonl --rebuilt-key k1.pub --rebuilt-key k2.pub bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders (signing keys) with every artifact identical, got 1 signing key for the least of its 2 artifacts ($R)" out
# a record whose payload was changed under its signature: refused, counted for nothing
python3 - r2.jsonl forged.jsonl <<'PY'
import base64, json, sys
env = json.loads(open(sys.argv[1]).readline())
p = json.loads(base64.b64decode(env["payload"]))
p["predicate"]["rebuilder"]["host"]["name"] = "elsewhere"
env["payload"] = base64.b64encode(json.dumps(p).encode()).decode()
open(sys.argv[2], "w").write(json.dumps(env, separators=(",", ":")) + "\n")
PY
expect_exit 1 "$AB" verify --policy policy.json --rebuilt r1.jsonl --rebuilt forged.jsonl --rebuilt-key k1.pub --rebuilt-key k2.pub bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders (signing keys) with every artifact identical, got 1 signing key for the least of its 2 artifacts ($R)" out
# usage
expect_exit 2 "$AB" verify --rebuilt r1.jsonl bo
expect_grep "--rebuilt needs --policy" err
expect_exit 2 "$AB" verify --policy policy.json --rebuilt-key k1.pub bo
expect_grep "--rebuilt-key needs --rebuilt" err
