# Helpers for the signing tests (t7030, t8xxx): keys made by openssl, two
# verifiers that share no code with allocbuild, and tampering. Source after
# tests/lib.sh.
#
# SSLIB_PY is Debian's python3, the one python3-securesystemslib installs
# for (scripts/install-deps.sh); python3 on PATH may be another.
SSLIB_PY=/usr/bin/python3
"$SSLIB_PY" -c 'import securesystemslib.signer' 2>/dev/null ||
	fail "Debian's python3-securesystemslib is not installed (scripts/install-deps.sh)"

# fake_build NAME ARTIFACT...: the small autotools project of tests/fakeproj.sh
# (source it first) built as recipe NAME, one variant "a" recording the
# artifacts given, into ./bo; then make_keys
fake_build() {
	local name=$1 sha arts=
	shift
	sha=$(make_fakeproj "$PWD")
	for a in "$@"; do arts="$arts${arts:+, }\"$a\""; done
	cat >r.json <<JSON
{
	"recipe": 1, "name": "$name",
	"sources": {"fake": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
	"variants": [{"label": "a", "source": "fake",
		"build": {"system": "autotools", "configure": [], "targets": ["all"]},
		"artifacts": [$arts]}]
}
JSON
	expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
	make_keys
}

# make_keys: ed.pem, ec.pem (Ed25519 and EC P-256 private keys, openssl
# genpkey) and their public keys ed.pub.pem, ec.pub.pem in the current directory
make_keys() {
	openssl genpkey -algorithm ed25519 -out ed.pem 2>/dev/null
	openssl pkey -in ed.pem -pubout -out ed.pub.pem
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem 2>/dev/null
	openssl pkey -in ec.pem -pubout -out ec.pub.pem
}

# keyid_of PUB.pem: the documented keyid, the hex SHA-256 of the DER SubjectPublicKeyInfo
keyid_of() {
	openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -d' ' -f1
}

# check_openssl JSONL PUB.pem: for every line, the PAE recomputed in a few
# lines of Python and every signature with PUB's keyid checked by openssl
# pkeyutl -verify (Ed25519 with -rawin, ECDSA with -rawin -digest sha256);
# prints "LINE ok" per signature, fails on any that does not verify or
# when a line has none by PUB
check_openssl() {
	local jsonl=$1 pub=$2 id n=0 sigs
	id=$(keyid_of "$pub")
	mkdir -p ossl
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s' "$line" >ossl/line
		sigs=$(python3 - ossl/line "$id" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
body, ptype = base64.b64decode(env["payload"]), env["payloadType"].encode()
open("ossl/pae", "wb").write(b"DSSEv1 " + str(len(ptype)).encode() + b" " + ptype + b" " +
                             str(len(body)).encode() + b" " + body)
k = 0
for s in env["signatures"]:
    if s.get("keyid") == sys.argv[2]:
        open("ossl/sig%d" % k, "wb").write(base64.b64decode(s["sig"]))
        k += 1
print(k)
PY
)
		[ "$sigs" -gt 0 ] || fail "$jsonl:$n: no signature with keyid $id"
		for ((k = 0; k < sigs; k++)); do
			if openssl pkey -pubin -in "$pub" -noout -text | grep -q '^ED25519'; then
				openssl pkeyutl -verify -pubin -inkey "$pub" -rawin -in ossl/pae -sigfile "ossl/sig$k" >ossl/res ||
					fail "$jsonl:$n: openssl: the Ed25519 signature does not verify"
			else
				openssl pkeyutl -verify -pubin -inkey "$pub" -rawin -digest sha256 -in ossl/pae -sigfile "ossl/sig$k" >ossl/res ||
					fail "$jsonl:$n: openssl: the ECDSA signature does not verify"
			fi
			grep -qx "Signature Verified Successfully" ossl/res || fail "openssl said: $(cat ossl/res)"
			echo "$n ok"
		done
	done <"$jsonl"
	[ "$n" -gt 0 ] || fail "$jsonl has no lines"
}

# check_sslib JSONL PUB.pem: every line verified by Debian's
# python3-securesystemslib (0.26: its Signer API, SSlibKey.verify_signature
# over the PAE, the key loaded from the PEM; Ed25519 by its own pure-Python
# code, not OpenSSL); prints "LINE ok KEYTYPE" per line, fails otherwise
check_sslib() {
	"$SSLIB_PY" - "$1" "$2" <<'PY' || fail "securesystemslib refused $1"
import base64, hashlib, json, sys
from securesystemslib import keys as sslib_keys
from securesystemslib.signer import Signature, SSlibKey
pem = open(sys.argv[2]).read()
der = base64.b64decode("".join(l for l in pem.splitlines() if "-----" not in l))
keyid = hashlib.sha256(der).hexdigest()
if der[:12] == bytes.fromhex("302a300506032b6570032100"):
    key = SSlibKey(keyid, "ed25519", "ed25519", {"public": der[12:].hex()})
else:
    d = sslib_keys.import_ecdsakey_from_public_pem(pem)
    key = SSlibKey(keyid, d["keytype"], d["scheme"], {"public": d["keyval"]["public"]})
lines = open(sys.argv[1], "rb").read().splitlines()
assert lines, "no envelopes"
for n, line in enumerate(lines, 1):
    env = json.loads(line)
    body, ptype = base64.b64decode(env["payload"]), env["payloadType"].encode()
    pae = b"DSSEv1 %d %b %d %b" % (len(ptype), ptype, len(body), body)
    sigs = [s for s in env["signatures"] if s.get("keyid") == keyid]
    assert sigs, f"line {n}: no signature by {keyid}"
    for s in sigs:
        key.verify_signature(Signature(keyid, base64.b64decode(s["sig"]).hex()), pae)
    assert ptype == b"application/vnd.in-toto+json", ptype
    assert json.loads(body)["_type"] == "https://in-toto.io/Statement/v1"
    print(n, "ok", key.keytype)
PY
}

# tamper JSONL LINE WHAT: flip one bit of one byte of line LINE (1-based),
# re-encoding so that the line stays a well-formed envelope: WHAT is
# payload (a byte of the decoded payload, inside a JSON string so that it
# still parses), sig (a byte of the first signature) or type (a byte of
# payloadType)
tamper() {
	python3 - "$@" <<'PY'
import base64, json, sys
path, n, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(path, "rb").read().split(b"\n")
env = json.loads(lines[n - 1])
if what == "payload":
    body = bytearray(base64.b64decode(env["payload"]))
    i = body.index(b'"https://slsa.dev/provenance/v1"') + 10 if b"slsa.dev" in body else body.index(b"in-toto") + 1
    body[i] ^= 0x01
    env["payload"] = base64.b64encode(bytes(body)).decode()
elif what == "sig":
    sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
    sig[len(sig) // 2] ^= 0x01
    env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
elif what == "type":
    t = bytearray(env["payloadType"].encode())
    t[t.index(b"in-toto")] ^= 0x01  # "in-toto" -> "hn-toto"
    env["payloadType"] = t.decode()
lines[n - 1] = json.dumps(env, separators=(",", ":")).encode()
open(path, "wb").write(b"\n".join(lines))
PY
}

# repack_bundle DIR TOP OUT: the bundle of DIR/TOP written to OUT with its
# SHA256SUMS and BUNDLE-SHA256SUMS made anew for what DIR/TOP now holds, as
# someone who can edit the bundle would
repack_bundle() {
	(
		cd "$1/$2"
		for f in $(cut -c67- SHA256SUMS); do
			[ ! -f "$f" ] || sed -i "s|^[0-9a-f]\{64\}  $f\$|$(sha256sum "$f" | cut -d' ' -f1)  $f|" SHA256SUMS
		done
		find . -type f ! -name BUNDLE-SHA256SUMS | cut -c3- | LC_ALL=C sort | xargs sha256sum >BUNDLE-SHA256SUMS
	)
	tar -czf "$3" -C "$1" "$2"
}

# forge_recipe DIR TOP PYTHON: the bundle unpacked in DIR/TOP with its
# recipe.json changed by the Python statement PYTHON (on the parsed recipe
# `r`), and every digest that named a changed file (the recipe's sha256 in
# the manifests and the statement, the statement's byproducts) made anew,
# as a forger who can edit the bundle would; repack_bundle then remakes
# its indexes. The signatures are not touched (no key is at hand).
forge_recipe() {
	python3 - "$1/$2" "$3" <<'PY'
import hashlib, json, os, sys
top, edit = sys.argv[1], sys.argv[2]
files = [os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs]
def sha(f): return hashlib.sha256(open(os.path.join(top, f), 'rb').read()).hexdigest()
before = {f: sha(f) for f in files}
r = json.load(open(os.path.join(top, 'recipe.json')))
exec(edit)
json.dump(r, open(os.path.join(top, 'recipe.json'), 'w'), indent=1)
while True:
    changed = {before[f]: sha(f) for f in files if sha(f) != before[f]}
    if not changed:
        break
    before = {f: sha(f) for f in files}
    for f in files:
        if f in ('SHA256SUMS', 'BUNDLE-SHA256SUMS') or f.endswith('.jsonl'):
            continue
        t = open(os.path.join(top, f), 'rb').read()
        u = t
        for a, b in changed.items():
            u = u.replace(a.encode(), b.encode())
        if u != t:
            open(os.path.join(top, f), 'wb').write(u)
PY
}

# sign_openssl KEY.pem STATEMENT OUT.jsonl: STATEMENT's bytes as the payload
# of one DSSE envelope line signed by KEY (Ed25519) with openssl pkeyutl over
# a PAE made in Python: a signer that shares no code with allocbuild
sign_openssl() {
	python3 - "$2" >sig.pae <<'PY'
import sys
t, b = b"application/vnd.in-toto+json", open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(b"DSSEv1 %d %b %d %b" % (len(t), t, len(b), b))
PY
	openssl pkeyutl -sign -inkey "$1" -rawin -in sig.pae -out sig.bin
	python3 - "$2" "$(openssl pkey -in "$1" -pubout | openssl pkey -pubin -outform DER | sha256sum | cut -d' ' -f1)" >"$3" <<'PY'
import base64, json, sys
b, s = open(sys.argv[1], "rb").read(), open("sig.bin", "rb").read()
print(json.dumps({"payload": base64.b64encode(b).decode(), "payloadType": "application/vnd.in-toto+json",
                  "signatures": [{"keyid": sys.argv[2], "sig": base64.b64encode(s).decode()}]}, separators=(",", ":")))
PY
	rm -f sig.pae sig.bin
}
