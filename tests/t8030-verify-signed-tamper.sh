#!/usr/bin/env bash
# verify --key on a small real build signed with Ed25519 and ECDSA P-256
# keys: it passes, openssl and securesystemslib agree, and every kind of
# tampering fails with exit 1 naming the line and what failed. sign signs
# the build's statement and the SBOM's (docs/sbom.md), lines 1 and 2.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build vs lib/libfake.a bin/fake
ed=$(keyid_of ed.pub.pem)
ec=$(keyid_of ec.pub.pem)
J=provenance/provenance.intoto.jsonl

# --- unsigned: verify --key fails, verify alone says nothing of signatures
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_file out <<X
verified 10 files in bo
$J: missing: the OUTDIR is not signed (allocbuild sign)
FAIL: OUTDIR bo: a check failed (above); signatures checked with 1 key
X

# --- signed by both keys: each key alone verifies, and both with --require-all
expect_exit 0 "$AB" sign bo --key ed.pem --key ec.pem
expect_file out <<X
signed 2 statements with ed25519 key $ed, ecdsa-sha2-nistp256 key $ec: bo/$J
wrote 4 in-toto links: bo/in-toto
X
[ "$(wc -l <bo/$J)" = 2 ] || fail "expected two envelopes"
expect_exit 0 "$AB" verify -v --key ed.pub.pem bo
expect_file out <<X
verified 10 files in bo
$J:1: ok: provenance/provenance.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 2 subjects and 7 byproducts match
$J:2: ok: sbom/sbom.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 2 subjects and 1 byproduct match
verified 2 signed statements in the OUTDIR, each signed by ed25519 $ed ('ed.pub.pem'): 4 subjects and 8 byproducts match
pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures checked with 1 key
X
expect_exit 0 "$AB" verify -v --key ec.pub.pem bo/$J
expect_grep "bo/$J:1: ok: provenance/provenance.intoto.json, signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem')" out
expect_exit 0 "$AB" verify --key ec.pub.pem --key ed.pub.pem --require-all bo
expect_grep "verified 2 signed statements in the OUTDIR, each signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'), ed25519 $ed ('ed.pub.pem'): 4 subjects" out
expect_exit 0 "$AB" verify bo
expect_file out <<X
verified 10 files in bo
$J: 2 envelopes with 4 signatures (keyid $ed, $ec): signatures present, not checked (verify --key PUB.pem checks them)
pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)
X
# the signed statement names every manifest but itself among its byproducts
[ "$(json bo/provenance/provenance.intoto.json '[b["name"] for b in d["predicate"]["runDetails"]["byproducts"]][2:]')" = \
	"['recipe.json', 'provenance/sources.json', 'provenance/build-commands.json', 'provenance/binary-provenance.json', 'provenance/allocator-probes.json']" ]

# --- independent verifiers: openssl pkeyutl over a PAE computed in Python, and securesystemslib
check_openssl bo/$J ed.pub.pem >ossl.txt
check_openssl bo/$J ec.pub.pem >>ossl.txt
expect_file ossl.txt <<X
1 ok
2 ok
1 ok
2 ok
X
check_sslib bo/$J ed.pub.pem >sslib.txt
check_sslib bo/$J ec.pub.pem >>sslib.txt
expect_file sslib.txt <<X
1 ok ed25519
2 ok ed25519
1 ok ecdsa
2 ok ecdsa
X
# ... which are not vacuous: a flipped signature byte fails them too
cp bo/$J flipped.jsonl
tamper flipped.jsonl 1 sig
( check_sslib flipped.jsonl ed.pub.pem ) >/dev/null 2>&1 && fail "securesystemslib accepted a flipped signature"
( check_openssl flipped.jsonl ed.pub.pem ) >/dev/null 2>&1 && fail "openssl accepted a flipped signature"

cp -a bo pristine
fresh() { rm -rf t && cp -a pristine t; }

# --- tampering, each case on a fresh copy: exit 1, the line and the reason
# one flipped bit of the payload (the statement's bytes, still valid JSON)
fresh
tamper t/$J 1 payload
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_file out <<X
verified 10 files in t
$J:1: bad signature: keyid $ed does not verify with 'ed.pub.pem' (ed25519)
FAIL: OUTDIR t: a check failed (above); signatures checked with 1 key
X
# of the signature
fresh
tamper t/$J 1 sig
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_grep "$J:1: bad signature: keyid $ed does not verify with 'ed.pub.pem' (ed25519)" out
# of the payload type: it is signed (the PAE holds it), so the signature fails first
fresh
tamper t/$J 1 type
expect_exit 1 "$AB" verify --key ec.pub.pem t
expect_grep "$J:1: bad signature: keyid $ec does not verify with 'ec.pub.pem' (ecdsa-sha2-nistp256)" out
# of a subject artifact: the signature holds, the digest does not
fresh
printf '\001' | dd of=t/variants/a/build/bin/fake bs=1 seek=100 conv=notrunc status=none
new=$(sha256sum t/variants/a/build/bin/fake | cut -d' ' -f1)
old=$(sha256sum pristine/variants/a/build/bin/fake | cut -d' ' -f1)
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_file out <<X
variants/a/build/bin/fake: expected $old, actual $new
$J:1-2: variants/a/build/bin/fake: sha256 mismatch: signed $old, actual $new (2 lines alike)
FAIL: OUTDIR t: a check failed (above); signatures checked with 1 key
X
# of a manifest, with SHA256SUMS and the unsigned statement rewritten to match: the signed byproduct digest holds
fresh
sed -i 's/"vs"/"vS"/' t/provenance/sources.json
was=$(sha256sum pristine/provenance/sources.json | cut -d' ' -f1)
now=$(sha256sum t/provenance/sources.json | cut -d' ' -f1)
sed -i "s/$was/$now/" t/SHA256SUMS t/provenance/provenance.intoto.json
stmt=$(sha256sum t/provenance/provenance.intoto.json | cut -d' ' -f1)
sed -i "s/^[0-9a-f]*  provenance\/provenance.intoto.json\$/$stmt  provenance\/provenance.intoto.json/" t/SHA256SUMS
expect_exit 0 "$AB" verify t
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_file out <<X
verified 10 files in t
$J:1: signs a statement that the OUTDIR does not hold (no statement file there has its bytes)
$J:1: provenance/sources.json: sha256 mismatch: signed $was, actual $now
provenance/provenance.intoto.json: not signed: no line of $J carries it
FAIL: OUTDIR t: a check failed (above); signatures checked with 1 key
X
# a line removed
fresh
: >t/$J
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_file out <<X
verified 10 files in t
$J: no envelopes
provenance/provenance.intoto.json: not signed: no line of $J carries it
sbom/sbom.intoto.json: not signed: no line of $J carries it
FAIL: OUTDIR t: a check failed (above); signatures checked with 1 key
X
# a line duplicated
fresh
cat pristine/$J >>t/$J
expect_exit 1 "$AB" verify -v --key ed.pub.pem t
expect_file out <<X
verified 10 files in t
$J:1: ok: provenance/provenance.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 2 subjects and 7 byproducts match
$J:2: ok: sbom/sbom.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 2 subjects and 1 byproduct match
$J:3: the same statement as line 1 (a duplicated line)
$J:4: the same statement as line 2 (a duplicated line)
FAIL: OUTDIR t: a check failed (above); signatures checked with 1 key
X
# a line added: a valid envelope, signed by the same key, of a statement this OUTDIR does not hold
fresh
printf '%s' '{"_type":"https://in-toto.io/Statement/v1","subject":[]}' >other.json
sign_openssl ed.pem other.json other.jsonl
cat other.jsonl >>t/$J
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_grep "$J:3: signs a statement that the OUTDIR does not hold (no statement file there has its bytes)" out
# a line that is not an envelope, and an empty one
fresh
printf 'not json\n\n' >>t/$J
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_grep "$J:3: not a DSSE envelope: not a JSON object" out
expect_grep "$J:4: empty line" out
# a payload type other than in-toto's, validly signed (openssl): refused after the signature
fresh
python3 - t/$J <<'PY'
import base64, json, sys
env = json.loads(open(sys.argv[1]).readline())
body, ptype = base64.b64decode(env["payload"]), b"application/vnd.example+json"
open("pae.bin", "wb").write(b"DSSEv1 %d %b %d %b" % (len(ptype), ptype, len(body), body))
PY
openssl pkeyutl -sign -inkey ed.pem -rawin -in pae.bin -out other.sig
python3 - t/$J "$ed" <<'PY'
import base64, json, sys
env = json.loads(open(sys.argv[1]).readline())
env["payloadType"] = "application/vnd.example+json"
env["signatures"] = [{"keyid": sys.argv[2], "sig": base64.b64encode(open("other.sig", "rb").read()).decode()}]
open(sys.argv[1], "w").write(json.dumps(env, separators=(",", ":")) + "\n")
PY
expect_exit 1 "$AB" verify --key ed.pub.pem t
expect_grep "$J:1: payload type 'application/vnd.example+json' is not application/vnd.in-toto+json" out

# --- the wrong public key, and --require-all with a key that did not sign
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
openssl pkey -in other.pem -pubout -out other.pub.pem
expect_exit 1 "$AB" verify --key other.pub.pem pristine
expect_file out <<X
verified 10 files in pristine
$J:1-2: unknown keyid $ed: no --key has this id (2 lines alike)
FAIL: OUTDIR pristine: a check failed (above); signatures checked with 1 key
X
expect_exit 0 "$AB" verify --key other.pub.pem --key ec.pub.pem pristine
expect_exit 1 "$AB" verify --key other.pub.pem --key ec.pub.pem --require-all pristine
expect_grep "$J:1-2: no valid signature by 'other.pub.pem' (keyid $(keyid_of other.pub.pem)), and --require-all asks for one (2 lines alike)" out
# a signature without a keyid is tried with every key
fresh
python3 -c 'import json,sys; p=sys.argv[1]; es=[json.loads(l) for l in open(p)]; [s.pop("keyid") for e in es for s in e["signatures"]]; open(p,"w").write("".join(json.dumps(e,separators=(",",":"))+"\n" for e in es))' t/$J
expect_exit 0 "$AB" verify -v --key ec.pub.pem t
expect_grep "$J:1: ok: provenance/provenance.intoto.json, signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem')" out

# --- a build that builds again rewrites the statement and removes the stale envelopes (t8045: one that changes nothing keeps them)
expect_exit 0 "$AB" build --force --mirror-dir mirror -o pristine r.json
[ ! -e pristine/$J ] || fail "the envelopes outlived the statement they signed"
[ ! -e pristine/provenance/signers.json ] || fail "signers.json outlived the envelopes"
