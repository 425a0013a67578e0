#!/usr/bin/env bash
# docs/dsse-verify.py, the check pr.md gives a reviewer without allocbuild,
# on every statement type allocbuild signs: an OUTDIR with a build --check
# record and run records (the build statement, the reproducibility record,
# each run record, the runs' test result, the SBOM's) and the OUTDIR of a rebuild of its bundle (the rebuild
# record). Each envelope verifies, the digests printed are exactly those the
# statements name, and sha256sum -c accepts them in the OUTDIR; a flipped
# payload byte makes it fail. A changed OUTDIR is not signed (sign verifies
# it first); a record naming a path that climbs out ('..', absolute), its
# digests made anew, fails verify and is not signed; signed all the same,
# the script refuses it and prints nothing for sha256sum -c; a name with a
# newline stays one escaped line that sha256sum -c checks.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

J=provenance/provenance.intoto.jsonl
V=$TOP/docs/dsse-verify.py
fake_build dv lib/libfake.a bin/fake
expect_exit 0 "$AB" build --check --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" run bo a --name p -- {bin}
expect_exit 0 "$AB" run bo a --name p -- {bin} again
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
expect_grep "signed 6 statements: bo/$J" out

# what each statement names, read here in Python apart from the script
digests() {
	python3 - "$1" <<'PY'
import base64, json, sys
for line in open(sys.argv[1]):
    st = json.loads(base64.b64decode(json.loads(line)["payload"]))
    p = st["predicate"]
    for d in st["subject"] + p.get("runDetails", {}).get("byproducts", p.get("byproducts", [])):
        print(d["digest"]["sha256"] + "  " + d["name"])
PY
}

"$SSLIB_PY" "$V" ed.pub.pem bo/$J >sums 2>verify.err || { cat verify.err; fail "dsse-verify.py failed on the OUTDIR"; }
digests bo/$J | expect_file sums
grep -q 'runs/p/0002-a.log$' sums && grep -q 'libfake.a$' sums || fail "a run's log or the artifact's digest is missing"
(cd bo && sha256sum -c --quiet) <sums || fail "sha256sum -c refused the digests"
sed "s/: signature by .*//" verify.err >types
cat >want <<X
line 1: https://slsa.dev/provenance/v1
line 2: https://allocbuild.dev/reproducibility/v1
line 3: https://allocbuild.dev/run/v1
line 4: https://allocbuild.dev/run/v1
line 5: https://in-toto.io/attestation/test-result/v0.1
line 6: https://allocbuild.dev/sbom/v1
X
expect_file types <want

# the rebuild of the bundle, signed in its own OUTDIR
expect_exit 0 "$AB" rebuild --key ed.pub.pem --mirror-dir mirror -o rb pr/provenance-dv.tar.gz
expect_exit 0 "$AB" sign --signing-key ec.pem rb
"$SSLIB_PY" "$V" ec.pub.pem rb/$J >rsums 2>verify.err || { cat verify.err; fail "dsse-verify.py failed on the rebuild"; }
expect_grep "https://allocbuild.dev/rebuild/v1: signature by" verify.err
digests rb/$J | expect_file rsums
(cd rb && sha256sum -c --quiet) <rsums || fail "sha256sum -c refused the rebuild's digests"

# a flipped byte in a payload: refused
cp bo/$J saved.jsonl
tamper bo/$J 3 payload
expect_exit 1 "$SSLIB_PY" "$V" ed.pub.pem bo/$J
expect_grep "UnverifiedSignatureError" err
# the wrong key
cp saved.jsonl bo/$J
expect_exit 1 "$SSLIB_PY" "$V" ec.pub.pem bo/$J
expect_grep "line 1: not an in-toto statement signed by $(keyid_of ec.pub.pem)" err

# --- what does not verify is not signed, and no name that climbs out of the OUTDIR is passed on.
# An unsigned copy of bo with an artifact changed: sign verifies first, as verify does, and
# refuses (exit 1, nothing written)
fresh_copy() {
	rm -rf t && cp -a bo t && rm -rf t/$J t/provenance/signers.json t/in-toto
	expect_exit 0 "$AB" verify t
}
fresh_copy
printf 'changed\n' >>t/variants/a/build/lib/libfake.a
expect_exit 1 "$AB" sign --signing-key ed.pem t
cat >want <<X
allocbuild: sign: variants/a/build/lib/libfake.a: expected $(sha256sum bo/variants/a/build/lib/libfake.a | cut -d' ' -f1), actual $(sha256sum t/variants/a/build/lib/libfake.a | cut -d' ' -f1)
allocbuild: sign: 't' does not verify ('allocbuild verify t'): nothing signed
X
expect_file err <want
check 'sign of an OUTDIR that does not verify wrote nothing' not test -e t/$J -o -e t/provenance/signers.json -o -e t/in-toto
# a record whose subject climbs out with '..', its digests made anew (SHA256SUMS): verify and sign refuse it
climb() { # STATEMENT NAME: STATEMENT's first subject renamed NAME, and its SHA256SUMS line made anew
	python3 - t "$1" "$2" <<'PY'
import hashlib, json, sys
top, rel, name = sys.argv[1:]
d = json.load(open(f"{top}/{rel}"))
d["subject"][0]["name"] = name
b = (json.dumps(d, indent="\t") + "\n").encode()
open(f"{top}/{rel}", "wb").write(b)
sums = [hashlib.sha256(b).hexdigest() + "  " + rel if l.endswith("  " + rel) else l
        for l in open(f"{top}/SHA256SUMS").read().splitlines()]
open(f"{top}/SHA256SUMS", "w").write("\n".join(sums) + "\n")
PY
}
R=provenance/reproducibility.intoto.json
for name in ../../outside/libfake.a /etc/passwd; do
	fresh_copy
	climb $R "$name"
	expect_exit 1 "$AB" verify t
	expect_grep "$R: a subject has no safe relative name ('$name')" out
	expect_exit 1 "$AB" sign --signing-key ed.pem t
	expect_grep "allocbuild: sign: $R: a subject has no safe relative name ('$name')" err
	check "sign of a record naming '$name' wrote nothing" not test -e t/$J -o -e t/in-toto
done
# docs/dsse-verify.py refuses such a name in an envelope signed all the same (openssl), and
# gives sha256sum -c nothing at all, not even the lines of the envelopes before it
head -n 1 bo/$J >climb.jsonl
sign_openssl ed.pem t/$R one.jsonl
cat one.jsonl >>climb.jsonl
expect_exit 1 "$SSLIB_PY" "$V" ed.pub.pem climb.jsonl
check 'dsse-verify.py printed nothing for sha256sum -c' not test -s out
expect_grep "line 2: refusing the name '/etc/passwd': not a relative path inside the OUTDIR" err
fresh_copy
climb $R ../../outside/libfake.a
sign_openssl ed.pem t/$R one.jsonl
expect_exit 1 "$SSLIB_PY" "$V" ed.pub.pem one.jsonl
expect_grep "line 1: refusing the name '../../outside/libfake.a': not a relative path inside the OUTDIR" err
check 'dsse-verify.py printed no name that climbs out' not test -s out
# a name with a newline stays one line (escaped as GNU sha256sum writes it), and sha256sum -c checks it
mkdir -p nl && printf 'x\n' >"nl/a
$(sha256sum /etc/hostname | cut -d' ' -f1)  b"
python3 - nl >nl.json <<'PY'
import hashlib, json, os, sys
name = [f for f in os.listdir(sys.argv[1])][0]
h = hashlib.sha256(open(os.path.join(sys.argv[1], name), "rb").read()).hexdigest()
print(json.dumps({"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": name, "digest": {"sha256": h}}],
                  "predicateType": "https://example.invalid/x", "predicate": {}}))
PY
sign_openssl ed.pem nl.json nl.jsonl
expect_exit 0 "$SSLIB_PY" "$V" ed.pub.pem nl.jsonl
check 'a name with a newline is one sha256sum line' test "$(grep -c '' out)" = 1
(cd nl && sha256sum -c --quiet) <out || fail "sha256sum -c refused the escaped name"
