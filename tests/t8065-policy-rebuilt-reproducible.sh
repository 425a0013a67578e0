#!/usr/bin/env bash
# A signed --rebuilt record of this build that got every artifact
# identical counts for the policy rule reproducible ("record": "any" or
# "rebuild"; issue 48, item 3: only a local build --check counted, and
# pr.md said "Reproducibility: not checked", "Independent rebuilds: every
# artifact rebuilt identical" and "Policy failed" three lines apart). A
# small build (tests/fakeproj.sh) without a check of its own, its bundle
# rebuilt by two rebuilders who sign their records: verify --policy
# passes with them, counted by the keys that verified them (the
# independent rebuilders' mechanism, provenance/review/challenge.c);
# "record": "check" still wants build --check; unsigned records count for
# nothing. pr.md's Reproducibility and Policy lines agree with each other
# and with the policy.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json '{"FAKE": "1"}'
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" pr -o ev bo
for k in 1 2; do
	openssl genpkey -algorithm ed25519 -out k$k.pem 2>/dev/null
	openssl pkey -in k$k.pem -pubout -out k$k.pub
	expect_exit 0 "$AB" rebuild --trust-unsigned --sign k$k.pem --mirror-dir mirror -o rb$k ev/provenance-fk.tar.gz
	cp rb$k/rebuild.intoto.jsonl r$k.jsonl
done
policy() { # NAME RECORD
	echo "{\"policy\": 1, \"name\": \"$1\", \"rules\": [{\"variants\": [\"*\"], \"reproducible\": {\"record\": \"$2\"}}]}" >$1.json
}
policy any any
policy rebuild rebuild
policy check check
R="rebuild records (--rebuilt): predicate.comparison.artifacts"
SIGNED=(--rebuilt r1.jsonl --rebuilt r2.jsonl --rebuilt-key k1.pub --rebuilt-key k2.pub)

# --- signed records of independent rebuilders count for "any" and "rebuild"
for p in any rebuild; do
	expect_exit 0 "$AB" verify --policy $p.json "${SIGNED[@]}" bo
	sed -n '/rules\[/,$p' out >rules
	expect_file rules <<X
pass: rules[0] reproducible a: 2 signing keys for the least of its 2 artifacts ($R)
pass: rules[0] reproducible a2: 2 signing keys for the least of its 2 artifacts, its base a ($R)
pass: policy $p.json: every rule check passed on OUTDIR bo (2)
X
done
# one signed record is enough
expect_exit 0 "$AB" verify --policy any.json --rebuilt r1.jsonl --rebuilt-key k1.pub bo
expect_grep "pass: rules[0] reproducible a: 1 signing key for the least of its 2 artifacts ($R)" out
# "check" wants the local build --check
expect_exit 1 "$AB" verify --policy check.json "${SIGNED[@]}" bo
expect_grep "FAIL: rules[0] reproducible a: expected a build --check record, got none (provenance/reproducibility.intoto.json: predicate.comparison)" out
# unsigned: counted for nothing, and said so
expect_exit 1 "$AB" verify --policy any.json --rebuilt r1.jsonl --rebuilt r2.jsonl bo
expect_grep "FAIL: rules[0] reproducible a: expected a build --check or rebuild record, or a signed one of an independent rebuilder (--rebuilt), got none: 2 rebuild records given (--rebuilt), their signatures not checked (--rebuilt-key PUB.pem): an unsigned record proves nothing about who rebuilt (provenance/reproducibility.intoto.json: predicate.comparison)" out
# none at all
expect_exit 1 "$AB" verify --policy any.json bo
expect_grep "FAIL: rules[0] reproducible a: expected a build --check or rebuild record, or a signed one of an independent rebuilder (--rebuilt), got none (provenance/reproducibility.intoto.json: predicate.comparison)" out

# --- pr.md: its Reproducibility and Policy lines agree
P=$(sha256sum any.json | cut -c1-12)
verdict() { grep -E '^- \*\*(Reproducibility|Policy|Independent rebuilds)\*\*' "$1"; }
expect_exit 0 "$AB" pr --policy any.json "${SIGNED[@]}" -o signed bo
verdict signed/pr.md >lines
expect_file lines <<X
- **Reproducibility**: ✅ every artifact rebuilt identical by an independent rebuilder (2 signed records, 2 keys) (below)
- **Policy** \`any\` (sha256 \`$P\`): ✅ every rule check passed (2)
X
expect_exit 0 "$AB" pr --policy any.json --rebuilt r1.jsonl --rebuilt r2.jsonl -o unsigned bo
verdict unsigned/pr.md >lines
expect_file lines <<X
- **Reproducibility**: ⚠ 2 rebuild records of independent rebuilders, signatures not checked (\`pr --rebuilt-key PUB.pem\`): an unsigned record proves nothing about who rebuilt, and counts for nothing (below)
- **Policy** \`any\` (sha256 \`$P\`): ❌ 2 of 2 rule checks failed: reproducible (below)
X
expect_exit 0 "$AB" pr --policy any.json -o none bo
verdict none/pr.md >lines
expect_file lines <<X
- **Reproducibility**: ⚠ not checked (no \`build --check\` or \`rebuild\` record, no independent rebuilder's (\`pr --rebuilt\`))
- **Policy** \`any\` (sha256 \`$P\`): ❌ 2 of 2 rule checks failed: reproducible (below)
X
# a rebuilder that got other bytes for an artifact: said beside the one that got it identical
python3 - r2.jsonl <<'PY'
import base64, json, sys
env = json.loads(open(sys.argv[1]).readline())
p = json.loads(base64.b64decode(env["payload"]))
a = [x for x in p["predicate"]["comparison"]["artifacts"] if x["path"].endswith("bin/fake")][0]
a["rebuilt_sha256"], a["identical"] = "f" * 64, False
open("other.json", "w").write(json.dumps(p, indent="\t"))
PY
. "$TOP/tests/sign-lib.sh"
sign_openssl k2.pem other.json other.jsonl
expect_exit 0 "$AB" pr --policy any.json --rebuilt r1.jsonl --rebuilt other.jsonl --rebuilt-key k1.pub \
	--rebuilt-key k2.pub -o other bo
verdict other/pr.md >lines
expect_file lines <<X
- **Reproducibility**: ✅ every artifact rebuilt identical by an independent rebuilder (2 signed records, 2 keys; quorum 2 met by 1 of 2 artifacts); ⚠ 1 artifact rebuilt into other bytes by some (likely causes below)
- **Policy** \`any\` (sha256 \`$P\`): ✅ every rule check passed (2)
X
