#!/usr/bin/env bash
# sign: known answers from the DSSE specification (github.com/secure-systems-lab/dsse).
# Key A of its test vectors (Ed25519, the RFC 8032 test key 1) and the
# vectors' payload give exactly the published envelope. The expected line
# is assembled here from the published payload and signature and a keyid
# computed by openssl, and securesystemslib checks it; nothing is taken
# from allocbuild's output. The specification's ECDSA P-256 example
# (protocol.md) verifies with allocbuild too.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sign-lib.sh"

# published values (testvectors/vectors.json, vector "single-signature")
SEED=9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60
PUBLIC=d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a
PAYLOAD=eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ==
SIG=2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQafWm7AxBZNw5M9ixNHiCA==

# key A as openssl genpkey would write it: PKCS#8 around the seed
python3 - "$SEED" <<'PY'
import base64, sys
der = bytes.fromhex("302e020100300506032b657004220420" + sys.argv[1])
open("a.pem", "w").write("-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n" % base64.b64encode(der).decode())
PY
chmod 600 a.pem
openssl pkey -in a.pem -pubout -out a.pub.pem
[ "$(openssl pkey -pubin -in a.pub.pem -outform DER | od -An -tx1 | tr -d ' \n' | tail -c 64)" = "$PUBLIC" ] ||
	fail "openssl does not derive the published public key from the seed"
id=$(keyid_of a.pub.pem)

# the statement of the vectors, byte for byte (no newline), in an OUTDIR that
# verifies (sign signs nothing else): the manifests every build writes, empty,
# listed in SHA256SUMS with the statement
mkdir -p kat/provenance
printf '%s' '{"_type":"https://in-toto.io/Statement/v1"}' >kat/provenance/provenance.intoto.json
[ "$(base64 -w0 kat/provenance/provenance.intoto.json)" = "$PAYLOAD" ] || fail "the payload is not the vectors'"
(
	cd kat
	for m in recipe.json provenance/sources.json provenance/build-commands.json provenance/binary-provenance.json \
		provenance/allocator-probes.json; do
		echo '{}' >$m
	done
	sha256sum recipe.json provenance/*.json >SHA256SUMS
)
expect_exit 0 "$AB" verify kat

# the expected envelope line, from the published values
python3 - "$PAYLOAD" "$SIG" "$id" >want.jsonl <<'PY'
import json, sys
print(json.dumps({"payload": sys.argv[1], "payloadType": "application/vnd.in-toto+json",
                  "signatures": [{"keyid": sys.argv[3], "sig": sys.argv[2]}]}, separators=(",", ":")))
PY
check_sslib want.jsonl a.pub.pem >sslib.txt
expect_file sslib.txt <<'X'
1 ok ed25519
X

expect_exit 0 "$AB" sign kat --key a.pem
expect_file out <<X
signed 1 statement with ed25519 key $id: kat/provenance/provenance.intoto.jsonl
X
cmp want.jsonl kat/provenance/provenance.intoto.jsonl || {
	diff want.jsonl kat/provenance/provenance.intoto.jsonl
	fail "the envelope is not the published one"
}
check_openssl kat/provenance/provenance.intoto.jsonl a.pub.pem >/dev/null
expect_exit 0 "$AB" verify -v --key a.pub.pem kat/provenance/provenance.intoto.jsonl
expect_file out <<X
kat/provenance/provenance.intoto.jsonl:1: ok: provenance/provenance.intoto.json, signed by ed25519 $id ('a.pub.pem'); 0 subjects and 0 byproducts match
verified 1 signed statement in the OUTDIR, each signed by ed25519 $id ('a.pub.pem'): 0 subjects and 0 byproducts match
pass: envelopes file kat/provenance/provenance.intoto.jsonl: every envelope verified; signatures checked with 1 key
X
# signers.json: the fingerprint and algorithm, nothing of the private key
[ "$(json kat/provenance/signers.json '[(s["keyid"], s["algorithm"]) for s in d["signers"]]')" = "[('$id', 'ed25519')]" ]
[ "$(json kat/provenance/signers.json 'd["keyid"]')" = "hex SHA-256 of the public key's DER SubjectPublicKeyInfo" ]

# the vector "payload-type-swapped": the signature covers another type
python3 - "$PAYLOAD" "$SIG" "$id" >swapped.jsonl <<'PY'
import json, sys
print(json.dumps({"payload": sys.argv[1], "payloadType": "application/vnd.example.other+json",
                  "signatures": [{"keyid": sys.argv[3], "sig": sys.argv[2]}]}, separators=(",", ":")))
PY
expect_exit 1 "$AB" verify --key a.pub.pem swapped.jsonl
expect_file out <<X
swapped.jsonl:1: bad signature: keyid $id does not verify with 'a.pub.pem' (ed25519)
FAIL: envelopes file swapped.jsonl: a check failed (above); signatures checked with 1 key
X

# protocol.md's example: ECDSA P-256 over SHA-256 (deterministic, RFC 6979), the
# signature published as r || s; DER-encoded here, with the public key from X and Y
python3 <<'PY'
import base64, json
X = 46950820868899156662930047687818585632848591499744589407958293238635476079160
Y = 5640078356564379163099075877009565129882514886557779369047442380624545832820
spki = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200") + b"\x04" + \
    X.to_bytes(32, "big") + Y.to_bytes(32, "big")
open("spec.pub.pem", "w").write("-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n" % base64.b64encode(spki).decode())
raw = base64.b64decode("A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA==")
def der_int(b):
    b = b.lstrip(b"\0") or b"\0"
    if b[0] & 0x80:
        b = b"\0" + b
    return b"\x02" + bytes([len(b)]) + b
seq = der_int(raw[:32]) + der_int(raw[32:])
sig = b"\x30" + bytes([len(seq)]) + seq
env = {"payload": "aGVsbG8gd29ybGQ=", "payloadType": "http://example.com/HelloWorld",
       "signatures": [{"sig": base64.b64encode(sig).decode()}]}
open("spec.jsonl", "w").write(json.dumps(env) + "\n")
env["signatures"][0]["sig"] = base64.b64encode(sig[:-1] + bytes([sig[-1] ^ 1])).decode()
open("spec-bad.jsonl", "w").write(json.dumps(env) + "\n")
PY
# the signature verifies (no keyid: every key is tried); then the type is not in-toto's
expect_exit 1 "$AB" verify --key spec.pub.pem spec.jsonl
expect_file out <<'X'
spec.jsonl:1: payload type 'http://example.com/HelloWorld' is not application/vnd.in-toto+json
FAIL: envelopes file spec.jsonl: a check failed (above); signatures checked with 1 key
X
expect_exit 1 "$AB" verify --key spec.pub.pem spec-bad.jsonl
expect_file out <<'X'
spec-bad.jsonl:1: bad signature: no signature without a keyid verifies with the keys given
FAIL: envelopes file spec-bad.jsonl: a check failed (above); signatures checked with 1 key
X
