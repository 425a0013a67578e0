#!/usr/bin/env bash
# pr --policy: a small build (tests/fakeproj.sh) with a build --check
# record and an A/A pair of runs, checked against a policy while pr writes
# pr.md and the bundle: a Policy line in the verdict, the rules that failed
# in the body, every rule in the folded details; the policy file and, with
# --sign, its signed verification summary (the same keys count for the
# signers rule) in the bundle under pr-policy/, which verify accepts and
# docs/dsse-verify.py checks against the OUTDIR. A bad policy writes
# nothing (exit 2).
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

make_fakeproj_runtime_recipe r.json
sha=$(json r.json 'd["sources"]["fake"]["archive"]["sha256"]')
expect_exit 0 "$AB" build --check --mirror-dir mirror -o bo r.json
# the A/A control is judged on the driver's figure, the same in every run:
# wall time of a 3 ms program differs between two labels of one artifact
# by chance (p 0.029 whenever 4 runs and 4 separate), a figure cannot
drive_fixed_records
expect_exit 0 "$AB" run bo a a2 --repeat 4 --rotate --name p -- ./drive {bin}
make_keys
ed=$(keyid_of ed.pub.pem)
cat >policy.json <<X
{"policy": 1, "name": "fake", "rules": [
 {"variants": ["*"], "source": {"sha256": "$sha"}},
 {"variants": ["*"], "reproducible": {"record": "check"}},
 {"signers": {"keys": ["$ed"]}},
 {"variants": ["a", "a2"], "runs": {"name": "p", "min_repetitions": 4, "aa_control": true, "metrics": ["records"]}}
]}
X
T=provenance-fk
B=pr/$T.tar.gz

# --- a bad policy: nothing written, not even the signatures
echo '{"policy": 1, "name": "x", "rules": [{"variants": ["a"]}]}' >bad.json
expect_exit 2 "$AB" pr --sign ed.pem --policy bad.json -o pr bo
echo "bad.json:1:38: rules[0]: a rule needs one kind: source, upstream, allocator, baked, runtime, not_set, secure, reproducible, targets, signers, runs or only_differs" |
	expect_file err
[ ! -e pr ] && [ ! -e bo/pr-policy ] && [ ! -e bo/provenance/provenance.intoto.jsonl ] || fail "a bad policy wrote something"

# --- every rule passes: the verdict's line, the section, the bundle
expect_exit 0 "$AB" pr --sign ed.pem --policy policy.json -o pr bo
P=$(sha256sum policy.json | cut -d' ' -f1)
expect_grep "- **Policy** \`fake\` (sha256 \`${P:0:12}\`): ✅ every rule check passed (8)" pr/pr.md
expect_grep "Checked with \`allocbuild verify --policy\` against this build's records; the policy file is \`pr-policy/policy.json\` in \`$T.tar.gz\` (sha256 \`$P\`)." pr/pr.md
expect_grep "✅ every rule check passed (8)." pr/pr.md
expect_grep "| ✅ | \`rules[2]\` signers | – | – | 1 of 1: ${ed:0:16} | \`provenance/provenance.intoto.jsonl\` \`signatures[].keyid\` |" pr/pr.md
[ "$(grep -c '^| ✅ | `rules\[' pr/pr.md)" = 8 ] || fail "pr.md's details do not list the 8 rule checks"
tar -xzf $B
cmp policy.json $T/pr-policy/policy.json || fail "the bundle's policy is not the policy's bytes"
expect_exit 0 "$AB" verify --key ed.pub.pem $B
expect_exit 0 "$AB" verify bo
# the summary in the bundle: signed, PASSED, its digests those of the OUTDIR's artifacts
"$SSLIB_PY" "$TOP/docs/dsse-verify.py" ed.pub.pem $T/pr-policy/vsa.intoto.jsonl >sums 2>dv.err || { cat dv.err; fail "dsse-verify.py refused the VSA"; }
(cd bo && sha256sum -c --quiet) <sums || fail "the VSA's digests are not the OUTDIR's"
cut -d' ' -f3 sums | expect_file /dev/fd/3 3<<X
variants/a/build/lib/libfake.a
variants/a/build/bin/fake
X
python3 -c 'import base64, json, sys; print(base64.b64decode(json.loads(open(sys.argv[1]).readline())["payload"]).decode())' \
	$T/pr-policy/vsa.intoto.jsonl >vsa.json
[ "$(json vsa.json '(d["predicate"]["verificationResult"], d["predicate"]["policy"]["digest"]["sha256"], d["predicate"]["resourceUri"])')" = \
  "('PASSED', '$P', 'bo')" ] || fail "the bundle's VSA: $(cat vsa.json)"

# --- a policy that fails: reported in pr.md, not an error; no key, no VSA
sed 's/"min_repetitions": 4/"min_repetitions": 5/' policy.json >fail.json
rm -rf pr
expect_exit 0 "$AB" pr --policy fail.json -o pr bo
expect_grep "- **Policy** \`fake\` (sha256 \`$(sha256sum fail.json | cut -c1-12)\`): ❌ 3 of 8 rule checks failed: signers, runs (below)" pr/pr.md
sed -n '/^### Policy/,/^### /p' pr/pr.md | grep '^| \*\*❌' >failed
cat >want <<X
| **❌** | \`rules[2]\` signers | – | 1 of 1 keys signed every statement | 0 of 1; not: ${ed:0:16} (key not given) | \`provenance/provenance.intoto.jsonl\` \`signatures[].keyid\` |
| **❌** | \`rules[3]\` runs | \`a\` | 5 successful runs or more | 4 successful runs | \`runs/p/*-a.intoto.json\` \`predicate.status\` |
| **❌** | \`rules[3]\` runs | \`a2\` | 5 successful runs or more | 4 successful runs | \`runs/p/*-a2.intoto.json\` \`predicate.status\` |
X
expect_file failed <want
tar -tzf $B | grep pr-policy/ >members
printf '%s\n' $T/pr-policy/ $T/pr-policy/fail.json | expect_file members
expect_exit 0 "$AB" verify $B
