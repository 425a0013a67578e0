#!/usr/bin/python3
# dsse-verify.py PUB.pem ENVELOPES.jsonl | (cd OUTDIR && sha256sum -c)
#
# Checks allocbuild's signed statements without allocbuild: every line of
# ENVELOPES (provenance/provenance.intoto.jsonl) is a DSSE envelope whose
# signature by PUB.pem's key is verified with securesystemslib (Debian:
# python3-securesystemslib); the digests each verified statement vouches
# for are printed as sha256sum -c lines. Every statement type allocbuild
# signs is read: the build's (its subjects and predicate.runDetails.
# byproducts), a run record's (predicate.byproducts), build --check's and
# rebuild's (their subjects). Exit 1 on a line that is not an in-toto
# statement signed by PUB.pem; securesystemslib raises on a bad signature.
#
# What is printed goes to sha256sum -c, which opens each name: a name is
# printed only when it stays inside the OUTDIR (relative, not empty, no
# ".." component: allocbuild's verify and sign hold names to the same
# rule) with a digest of 64 lowercase hex digits; a name with a newline,
# carriage return or backslash is escaped as GNU sha256sum writes it, so
# that it stays one line. Anything else is exit 1. Nothing is printed
# unless every line verified: a failure gives sha256sum -c no line at all.
# docs/manifests.md, "Signed statements", says what a signature covers.
import base64, hashlib, json, re, sys
from securesystemslib.signer import Signature, SSlibKey

if len(sys.argv) != 3:
    sys.exit("usage: dsse-verify.py PUB.pem ENVELOPES.jsonl")
pem = open(sys.argv[1]).read()
der = base64.b64decode("".join(l for l in pem.splitlines() if "-----" not in l))
keyid = hashlib.sha256(der).hexdigest()  # allocbuild's keyid
if der.startswith(bytes.fromhex("302a300506032b6570032100")):  # Ed25519
    key = SSlibKey(keyid, "ed25519", "ed25519", {"public": der[12:].hex()})
else:  # ECDSA P-256, DER signatures
    key = SSlibKey(keyid, "ecdsa", "ecdsa-sha2-nistp256", {"public": pem})


def sum_line(n, d):
    """the sha256sum -c line of descriptor d of line n, or exit 1"""
    name, digest = d.get("name") if isinstance(d, dict) else None, None
    if isinstance(d, dict) and isinstance(d.get("digest"), dict):
        digest = d["digest"].get("sha256")
    if not isinstance(name, str) or not name or name.startswith("/") or ".." in name.split("/") or "\0" in name:
        sys.exit(f"line {n}: refusing the name {name!r}: not a relative path inside the OUTDIR")
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        sys.exit(f"line {n}: {name!r}: no sha256 digest (64 lowercase hex digits)")
    if any(c in name for c in "\\\n\r"):
        return "\\" + digest + "  " + name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return digest + "  " + name


out = []
for n, line in enumerate(open(sys.argv[2], "rb"), 1):
    env = json.loads(line)
    body, ptype = base64.b64decode(env["payload"]), env["payloadType"].encode()
    pae = b"DSSEv1 %d %b %d %b" % (len(ptype), ptype, len(body), body)
    sigs = [s for s in env["signatures"] if s.get("keyid") == keyid]
    for s in sigs:  # raises UnverifiedSignatureError on a bad signature
        key.verify_signature(Signature(keyid, base64.b64decode(s["sig"]).hex()), pae)
    if not sigs or ptype != b"application/vnd.in-toto+json":
        sys.exit(f"line {n}: not an in-toto statement signed by {keyid}")
    st = json.loads(body)
    if not isinstance(st, dict) or st.get("_type") != "https://in-toto.io/Statement/v1":
        sys.exit(f"line {n}: the payload is not an in-toto Statement")
    pred = st.get("predicate") or {}
    byproducts = (pred.get("runDetails") or {}).get("byproducts", pred.get("byproducts", []))
    for d in (st.get("subject") or []) + (byproducts or []):
        out.append(sum_line(n, d))
    print(f"line {n}: {st.get('predicateType')}: signature by {keyid} verified", file=sys.stderr)
for l in out:
    print(l)
