#!/usr/bin/env bash
# verify --policy --sign: a small build (tests/fakeproj.sh) with a build
# --check record, runs of two labels of one artifact (an A/A control) and
# a signature meets a policy of every build-wide kind (source, reproducible,
# signers, runs), and the result is written as a SLSA Verification Summary
# Attestation v1 in a DSSE envelope beside the OUTDIR: verify --key and
# docs/dsse-verify.py accept it, its digests are the artifacts', its
# predicate names the policy's digest, the inputs and PASSED. A failing
# policy writes FAILED (exit 1); a bundle's VSA names the bundle; -o puts
# it elsewhere, even outside the directory OUTDIR is in (its subjects then
# climb from its directory, which verify --key accepts of a VSA alone);
# an edited VSA or another key fails; bad input (a policy
# error, a signers rule naming one key twice, a version range whose min is
# above its max, a key that cannot sign, --sign without --policy) writes
# nothing.
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
ec=$(keyid_of ec.pub.pem)
expect_exit 0 "$AB" sign --signing-key ed.pem bo
thp=$(json bo/runs/p/0001-a.intoto.json 'd["predicate"]["environment"]["memory"]["thp_enabled"]')
gov=$(json bo/runs/p/0001-a.intoto.json 'd["predicate"]["environment"]["cpu"]["governor"] or "absent"')
cat >pass.json <<X
{"policy": 1, "name": "fake", "rules": [
 {"variants": ["*"], "source": {"sha256": "$sha"}},
 {"variants": ["*"], "reproducible": {"record": "check"}},
 {"signers": {"keys": ["$ed"]}},
 {"variants": ["a", "a2"], "runs": {"name": "p", "min_repetitions": 4, "equal": ["memory.thp_enabled", "cpu.governor"], "aa_control": true, "metrics": ["records"]}}
]}
X

# --- every rule passes; the VSA beside the OUTDIR
expect_exit 0 "$AB" verify --policy pass.json --key ed.pub.pem --sign ec.pem bo
sed -n '/rules\[/,$p' out >rules
expect_file rules <<X
pass: rules[0] source a: sha256 $sha (provenance/binary-provenance.json: variants[0].source.pin.sha256)
pass: rules[0] source a2: sha256 $sha (provenance/binary-provenance.json: variants[1].source.pin.sha256)
pass: rules[1] reproducible a: 2/2 artifacts identical (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)
pass: rules[1] reproducible a2: 2/2 artifacts identical (its base a's) (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)
pass: rules[2] signers: 1 of 1: ${ed:0:16} (provenance/provenance.intoto.jsonl: signatures[].keyid)
pass: rules[3] runs a: 4 successful runs (runs/p/*-a.intoto.json: predicate.status)
pass: rules[3] runs a2: 4 successful runs (runs/p/*-a2.intoto.json: predicate.status)
pass: rules[3] runs memory.thp_enabled: $thp in every run (runs/p/*.intoto.json: predicate.environment: memory.thp_enabled)
pass: rules[3] runs cpu.governor: $gov in every run (runs/p/*.intoto.json: predicate.environment: cpu.governor)
pass: rules[3] runs A/A control: a against a2: no difference (runs/p/*.intoto.json: subject, predicate.env_overrides)
pass: policy pass.json: every rule check passed on OUTDIR bo (10)
X
echo "allocbuild: verification summary (PASSED), signed: bo.vsa.intoto.jsonl" | expect_file err
expect_exit 0 "$AB" verify -v --key ec.pub.pem bo.vsa.intoto.jsonl
expect_file out <<X
bo.vsa.intoto.jsonl:1: ok: a statement, signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'); 2 subjects and 0 byproducts match
verified 1 signed statement in the OUTDIR, each signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'): 2 subjects and 0 byproducts match
pass: envelopes file bo.vsa.intoto.jsonl: every envelope verified; signatures checked with 1 key
X
# the independent checker: the signature, then the digests sha256sum -c accepts
"$SSLIB_PY" "$TOP/docs/dsse-verify.py" ec.pub.pem bo.vsa.intoto.jsonl >sums 2>dv.err || { cat dv.err; fail "docs/dsse-verify.py refused the VSA"; }
echo "line 1: https://slsa.dev/verification_summary/v1: signature by $ec verified" | expect_file dv.err
cat >want <<X
$(sha256sum bo/variants/a/build/lib/libfake.a | cut -d' ' -f1)  bo/variants/a/build/lib/libfake.a
$(sha256sum bo/variants/a/build/bin/fake | cut -d' ' -f1)  bo/variants/a/build/bin/fake
X
expect_file sums <want
sha256sum -c --quiet sums || fail "sha256sum -c refused the VSA's digests"
# the predicate, read apart from allocbuild
payload() { python3 -c 'import base64, json, sys; print(base64.b64decode(json.loads(open(sys.argv[1]).readline())["payload"]).decode())' "$1"; }
payload bo.vsa.intoto.jsonl >vsa.json
[ "$(json vsa.json '(d["_type"], d["predicateType"], d["predicate"]["verifier"]["id"], d["predicate"]["resourceUri"], d["predicate"]["policy"], d["predicate"]["verificationResult"], d["predicate"]["verifiedLevels"], d["predicate"]["slsaVersion"])')" = \
  "('https://in-toto.io/Statement/v1', 'https://slsa.dev/verification_summary/v1', 'https://allocbuild.dev/verifier/v1', 'bo', {'uri': 'pass.json', 'digest': {'sha256': '$(sha256sum pass.json | cut -d' ' -f1)'}}, 'PASSED', ['SLSA_BUILD_LEVEL_1', 'ALLOCBUILD_POLICY_PASSED'], '1.0')" ] ||
	fail "the VSA's predicate: $(cat vsa.json)"
json vsa.json '"\n".join(a["digest"]["sha256"] + "  " + a["uri"] for a in d["predicate"]["inputAttestations"])' >inputs
(cd bo && sha256sum provenance/provenance.intoto.json provenance/reproducibility.intoto.json provenance/provenance.intoto.jsonl) | expect_file inputs
json vsa.json 'd["predicate"]["timeVerified"]' | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' ||
	fail "timeVerified: $(json vsa.json 'd["predicate"]["timeVerified"]')"

# --- edited, or checked with another key: refused
cp bo.vsa.intoto.jsonl saved.jsonl
tamper bo.vsa.intoto.jsonl 1 sig
expect_exit 1 "$AB" verify --key ec.pub.pem bo.vsa.intoto.jsonl
expect_grep "bo.vsa.intoto.jsonl:1: bad signature: keyid $ec does not verify with 'ec.pub.pem'" out
expect_exit 1 "$SSLIB_PY" "$TOP/docs/dsse-verify.py" ec.pub.pem bo.vsa.intoto.jsonl
cp saved.jsonl bo.vsa.intoto.jsonl
expect_exit 1 "$AB" verify --key ed.pub.pem bo.vsa.intoto.jsonl

# --- a policy that fails: FAILED, exit 1; -o puts it elsewhere
sed "s/\"min_repetitions\": 4/\"min_repetitions\": 5/" pass.json >fail.json
expect_exit 1 "$AB" verify --policy fail.json --key ed.pub.pem --sign ec.pem -o failed.intoto.jsonl bo
expect_grep "FAIL: policy fail.json: 2 of 10 rule checks failed on OUTDIR bo" out
echo "allocbuild: verification summary (FAILED), signed: failed.intoto.jsonl" | expect_file err
payload failed.intoto.jsonl >failed.json
[ "$(json failed.json '(d["predicate"]["verificationResult"], d["predicate"]["verifiedLevels"], [s["name"] for s in d["subject"]])')" = \
  "('FAILED', ['FAILED'], ['bo/variants/a/build/lib/libfake.a', 'bo/variants/a/build/bin/fake'])" ] || fail "FAILED VSA: $(cat failed.json)"
expect_exit 0 "$AB" verify --key ec.pub.pem failed.intoto.jsonl
# -o anywhere, outside the directory OUTDIR is in: the subjects named from the VSA's directory,
# climbing first, and verify --key finds them from any current directory
mkdir -p far/away
expect_exit 1 "$AB" verify --policy fail.json --key ed.pub.pem --sign ec.pem -o far/away/v.jsonl bo
payload far/away/v.jsonl >far.json
check "a VSA elsewhere climbs to the OUTDIR" test "$(json far.json '[s["name"] for s in d["subject"]]')" = \
	"['../../bo/variants/a/build/lib/libfake.a', '../../bo/variants/a/build/bin/fake']"
expect_exit 0 "$AB" verify -v --key ec.pub.pem far/away/v.jsonl
expect_grep "far/away/v.jsonl:1: ok: a statement, signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'); 2 subjects and 0 byproducts match" out
(cd far && expect_exit 0 "$AB" verify --key ../ec.pub.pem away/v.jsonl)
# a changed artifact is found through those names
cp bo/variants/a/build/bin/fake saved.fake
printf 'x' >>bo/variants/a/build/bin/fake
expect_exit 1 "$AB" verify --key ec.pub.pem far/away/v.jsonl
expect_grep "far/away/v.jsonl:1: ../../bo/variants/a/build/bin/fake: sha256 mismatch: signed $(sha256sum saved.fake | cut -d' ' -f1), actual" out
cp saved.fake bo/variants/a/build/bin/fake
# only a VSA's names climb: another Statement naming '../..' in a file on its own is refused all the same
python3 - <<'PY'
import json
d = json.load(open("far.json"))
d["predicateType"] = "https://allocbuild.dev/run/v1"
open("far/away/other.json", "w").write(json.dumps(d))
PY
sign_openssl ed.pem far/away/other.json far/away/other.jsonl
expect_exit 1 "$AB" verify --key ed.pub.pem far/away/other.jsonl
expect_grep "a subject has no safe relative name ('../../bo/variants/a/build/lib/libfake.a')" out
# docs/dsse-verify.py passes no climbing name to sha256sum -c: it refuses the VSA elsewhere, printing nothing
check "dsse-verify.py refuses a climbing name" not "$SSLIB_PY" "$TOP/docs/dsse-verify.py" ec.pub.pem far/away/v.jsonl >far.sums 2>/dev/null
check "and prints nothing" test ! -s far.sums

# --- a bundle: its VSA names the bundle file
expect_exit 0 "$AB" pr -o pr bo
B=pr/provenance-fk.tar.gz
sed '/"runs"/d; s/"signers": {"keys": \["[0-9a-f]*"\]}},/"signers": {"keys": ["'$ed'"]}}/' pass.json >bundle.json
expect_exit 0 "$AB" verify --policy bundle.json --key ed.pub.pem --sign ed.pem $B
expect_grep "pass: policy bundle.json: every rule check passed on bundle $B (5)" out
payload $B.vsa.intoto.jsonl >b.json
[ "$(json b.json '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = "[('provenance-fk.tar.gz', '$(sha256sum $B | cut -d' ' -f1)')]" ] ||
	fail "the bundle's VSA: $(cat b.json)"
expect_exit 0 "$AB" verify --key ed.pub.pem $B.vsa.intoto.jsonl

# --- bad input: nothing written, nothing on stdout
rm -f bo.vsa.intoto.jsonl
printf '{"policy": 2, "name": "x", "rules": []}' >bad.json
expect_exit 2 "$AB" verify --policy bad.json --sign ec.pem bo
[ ! -s out ] && [ ! -e bo.vsa.intoto.jsonl ] || fail "a bad policy wrote something"
cat >want <<'X'
bad.json:1:12: policy: expected an integer from 1 to 1, got 2
X
expect_file err <want
# a signers rule naming one key twice (that key alone would meet "min": 2): refused at load
cat >twice.json <<X
{"policy": 1, "name": "twice", "rules": [
 {"signers": {"keys": ["$ed", "$ed"], "min": 2}}
]}
X
expect_exit 2 "$AB" verify --policy twice.json --key ed.pub.pem --sign ec.pem bo
echo "twice.json:2:92: rules[0].signers.keys[1]: '$ed' is listed twice (first at 2:24): a key counts once" |
	expect_file err
check 'a policy naming a key twice wrote nothing' not test -s out -o -e bo.vsa.intoto.jsonl
# a version range whose min is above its max holds no version: refused at load
cat >range.json <<'X'
{"policy": 1, "name": "range", "rules": [
 {"variants": ["*"], "allocator": {"kind": "jemalloc", "version": {"min": "5.3.1", "max": "5.3.0"}}}
]}
X
expect_exit 2 "$AB" verify --policy range.json --sign ec.pem bo
echo "range.json:2:75: rules[0].allocator.version.min: '5.3.1' is above max '5.3.0': no version is in the range" |
	expect_file err
check 'a policy with an empty version range wrote nothing' not test -s out -o -e bo.vsa.intoto.jsonl
expect_exit 2 "$AB" verify --policy pass.json --sign ec.pub.pem bo
[ ! -s out ] && [ ! -e bo.vsa.intoto.jsonl ] || fail "a key that cannot sign wrote something"
expect_exit 2 "$AB" verify --sign ec.pem bo
expect_grep "--sign needs --policy" err
expect_exit 2 "$AB" verify --policy pass.json -o x.jsonl bo
expect_grep "-o needs --sign" err
[ ! -e x.jsonl ] || fail "-o without --sign wrote x.jsonl"
