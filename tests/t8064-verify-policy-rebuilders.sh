#!/usr/bin/env bash
# verify --policy --rebuilt: a reproducible rule that asks for independent
# rebuilders. A small build (tests/fakeproj.sh) with its build --check
# record, its bundle rebuilt twice, each record signed by its rebuilder
# (rebuild --sign): two rebuilders pass "independent": 2; one does not; no
# record given says so; a record edited under its signature is refused by
# challenge and counts for nothing; a runtime variant counts its base's
# artifacts; --rebuilt without --policy, or --rebuilt-key without
# --rebuilt, is a usage error.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

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
pass: rules[0] reproducible a: 2 for the least of its 2 artifacts ($R)
pass: rules[0] reproducible a2: 2/2 artifacts identical (its base a's) ($C)
pass: rules[0] reproducible a2: 2 for the least of its 2 artifacts, its base a ($R)
pass: policy policy.json: every rule check passed on OUTDIR bo (4)
X
# one rebuilder is not two
expect_exit 1 "$AB" verify --policy policy.json --rebuilt r1.jsonl --rebuilt-key k1.pub bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders with every artifact identical, got 1 for the least of its 2 artifacts ($R)" out
# none given
expect_exit 1 "$AB" verify --policy policy.json bo
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders with every artifact identical, got no rebuild record given (verify --rebuilt RECORD) ($R)" out
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
expect_grep "FAIL: rules[0] reproducible a: expected 2 independent rebuilders with every artifact identical, got 1 for the least of its 2 artifacts ($R)" out
# usage
expect_exit 2 "$AB" verify --rebuilt r1.jsonl bo
expect_grep "--rebuilt needs --policy" err
expect_exit 2 "$AB" verify --policy policy.json --rebuilt-key k1.pub bo
expect_grep "--rebuilt-key needs --rebuilt" err
