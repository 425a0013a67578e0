#!/usr/bin/env bash
# docs/dsse-verify.py, the check pr.md gives a reviewer without allocbuild,
# on every statement type allocbuild signs: an OUTDIR with a build --check
# record and run records (the build statement, the reproducibility record,
# each run record) and the OUTDIR of a rebuild of its bundle (the rebuild
# record). Each envelope verifies, the digests printed are exactly those the
# statements name, and sha256sum -c accepts them in the OUTDIR; a flipped
# payload byte makes it fail.
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
expect_grep "signed 4 statements: bo/$J" out

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
