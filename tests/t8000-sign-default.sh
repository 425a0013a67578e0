#!/usr/bin/env bash
# Signed provenance of the default recipe's real build output
# (recipes/jemalloc-5.3.0-policy.json): pr --sign with an Ed25519 and an
# ECDSA P-256 key made by openssl genpkey; verify --key passes on the
# OUTDIR, the bundle and the .intoto.jsonl; openssl pkeyutl and Debian's
# securesystemslib verify the same envelopes independently; one flipped
# byte in the payload, the signature, the payload type or a subject
# artifact, and a line removed or duplicated, each fail with exit 1 naming
# what failed; so do a rewritten bundle and the wrong public key; an RSA
# key is refused.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sign-lib.sh"

default_build bo
make_keys
ed=$(keyid_of ed.pub.pem)
ec=$(keyid_of ec.pub.pem)
J=provenance/provenance.intoto.jsonl
T=provenance-jemalloc-5.3.0-policy
B=pr/$T.tar.gz
A=variants/stock53/build/lib/libjemalloc_pic.a
stock=$(sha256sum bo/$A | cut -d' ' -f1)
special=$(sha256sum bo/variants/special53/build/lib/libjemalloc_pic.a | cut -d' ' -f1)

# --- sign and bundle
expect_exit 0 "$AB" pr --sign ed.pem --sign ec.pem -o pr bo
expect_grep "signed 2 statements: bo/$J" out
expect_grep "| \`$ed\` | \`ed25519\` |" pr/pr.md
expect_grep "| \`$ec\` | \`ecdsa-sha2-nistp256\` |" pr/pr.md
# the statement covers every manifest of the OUTDIR: its byproducts are every
# file SHA256SUMS lists but the subjects and the statement itself
json bo/provenance/provenance.intoto.json \
	'"\n".join(sorted(b["name"] for b in d["predicate"]["runDetails"]["byproducts"]))' >byproducts.txt
grep -v -e ' provenance/provenance.intoto.json$' -e " $A\$" -e ' variants/special53/build/lib/libjemalloc_pic.a$' \
	-e ' variants/frag-stock53/build/frag$' -e ' variants/frag-special53/build/frag$' \
	bo/SHA256SUMS | cut -c67- | LC_ALL=C sort | expect_file byproducts.txt

# --- verify --key: the OUTDIR, the bundle, the envelopes file
expect_exit 0 "$AB" verify -v --key ed.pub.pem bo
expect_file out <<X
verified 25 files in bo
$J:1: ok: provenance/provenance.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 4 subjects and 20 byproducts match
$J:2: ok: sbom/sbom.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 4 subjects and 1 byproduct match
verified 2 signed statements in the OUTDIR, each signed by ed25519 $ed ('ed.pub.pem'): 8 subjects and 21 byproducts match
pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures checked with 1 key
X
expect_exit 0 "$AB" verify -v --key ec.pub.pem $B
expect_file out <<X
$B: every member matches BUNDLE-SHA256SUMS
$J:1: ok: provenance/provenance.intoto.json, signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'); 0 subjects and 20 byproducts match; 4 subjects not in the bundle, not checked:
  $A sha256 $stock
  variants/special53/build/lib/libjemalloc_pic.a sha256 $special
  variants/frag-stock53/build/frag sha256 $(sha256sum bo/variants/frag-stock53/build/frag | cut -d' ' -f1)
  variants/frag-special53/build/frag sha256 $(sha256sum bo/variants/frag-special53/build/frag | cut -d' ' -f1)
$J:2: ok: sbom/sbom.intoto.json, signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'); 0 subjects and 1 byproduct match; 4 subjects not in the bundle, not checked:
  $A sha256 $stock
  variants/special53/build/lib/libjemalloc_pic.a sha256 $special
  variants/frag-stock53/build/frag sha256 $(sha256sum bo/variants/frag-stock53/build/frag | cut -d' ' -f1)
  variants/frag-special53/build/frag sha256 $(sha256sum bo/variants/frag-special53/build/frag | cut -d' ' -f1)
verified 2 signed statements in the bundle, each signed by ecdsa-sha2-nistp256 $ec ('ec.pub.pem'): 0 subjects and 21 byproducts match; 8 subjects not in the bundle, not checked
pass: bundle $B: every member matches BUNDLE-SHA256SUMS and SHA256SUMS; signatures checked with 1 key
X
expect_exit 0 "$AB" verify -v --key ed.pub.pem --key ec.pub.pem --require-all bo/$J
expect_grep "bo/$J:1: ok: provenance/provenance.intoto.json, signed by ed25519 $ed ('ed.pub.pem'), ecdsa-sha2-nistp256 $ec ('ec.pub.pem'); 4 subjects and 20 byproducts match" out
expect_exit 0 "$AB" verify bo
expect_grep "$J: 2 envelopes with 4 signatures (keyid $ed, $ec): signatures present, not checked (verify --key PUB.pem checks them)" out

# --- independently: openssl pkeyutl over a PAE made in Python, securesystemslib, docs/dsse-verify.py
tar -xzf $B $T/$J
cmp $T/$J bo/$J || fail "the bundle's envelopes are not the OUTDIR's"
{ check_openssl bo/$J ed.pub.pem; check_openssl bo/$J ec.pub.pem; } >ossl.txt
{ check_sslib bo/$J ed.pub.pem; check_sslib bo/$J ec.pub.pem; } >sslib.txt
printf '1 ok\n2 ok\n1 ok\n2 ok\n' | expect_file ossl.txt
printf '1 ok ed25519\n2 ok ed25519\n1 ok ecdsa\n2 ok ecdsa\n' | expect_file sslib.txt
expect_grep "python3 dsse-verify.py PUB.pem $J | (cd allocbuild-out/jemalloc-5.3.0-policy && sha256sum -c)" pr/pr.md
"$SSLIB_PY" "$TOP/docs/dsse-verify.py" ec.pub.pem $T/$J >sums 2>snippet.err || { cat snippet.err; fail "docs/dsse-verify.py failed"; }
[ "$(wc -l <sums)" = 29 ] || fail "docs/dsse-verify.py printed $(wc -l <sums) digests"
(cd bo && sha256sum -c --quiet) <sums || fail "sha256sum -c refused docs/dsse-verify.py's digests"

# --- tampering, each undone after its check (the OUTDIR is large)
cp bo/$J saved.jsonl
restore() { cp saved.jsonl bo/$J; }
# a flipped byte in the payload
tamper bo/$J 1 payload
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_file out <<X
verified 25 files in bo
$J:1: bad signature: keyid $ed does not verify with 'ed.pub.pem' (ed25519)
FAIL: OUTDIR bo: a check failed (above); signatures checked with 1 key
X
restore
# in the (Ed25519) signature: that key fails; the ECDSA one alone still verifies, not both
tamper bo/$J 1 sig
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_grep "$J:1: bad signature: keyid $ed does not verify with 'ed.pub.pem' (ed25519)" out
expect_exit 0 "$AB" verify --key ec.pub.pem bo
expect_exit 1 "$AB" verify --key ed.pub.pem --key ec.pub.pem --require-all bo
expect_grep "$J:1: no valid signature by 'ed.pub.pem' (keyid $ed), and --require-all asks for one" out
restore
# in the payload type (which the PAE signs)
tamper bo/$J 1 type
expect_exit 1 "$AB" verify --key ec.pub.pem bo
expect_grep "$J:1: bad signature: keyid $ec does not verify with 'ec.pub.pem' (ecdsa-sha2-nistp256)" out
restore
# in a subject artifact
flip() { python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(4096); b=f.read(1); f.seek(4096); f.write(bytes([b[0]^1]))' "$1"; }
flip bo/$A
new=$(sha256sum bo/$A | cut -d' ' -f1)
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_file out <<X
$A: expected $stock, actual $new
$J:1-2: $A: sha256 mismatch: signed $stock, actual $new (2 lines alike)
FAIL: OUTDIR bo: a check failed (above); signatures checked with 1 key
X
flip bo/$A
[ "$(sha256sum bo/$A | cut -d' ' -f1)" = "$stock" ] || fail "the artifact was not restored"
# a line removed
: >bo/$J
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_file out <<X
verified 25 files in bo
$J: no envelopes
provenance/provenance.intoto.json: not signed: no line of $J carries it
sbom/sbom.intoto.json: not signed: no line of $J carries it
FAIL: OUTDIR bo: a check failed (above); signatures checked with 1 key
X
restore
# a line duplicated
cat saved.jsonl >>bo/$J
expect_exit 1 "$AB" verify --key ec.pub.pem bo
expect_grep "$J:3: the same statement as line 1 (a duplicated line)" out
restore
expect_exit 0 "$AB" verify --key ed.pub.pem --key ec.pub.pem --require-all bo

# --- a bundle rewritten with its indexes: the plain check passes, the signature does not
mkdir x && tar -xzf $B -C x
was=$(sha256sum x/$T/provenance/build-commands.json | cut -d' ' -f1)
sed -i 's/"--with-lg-quantum=3"/"--with-lg-quantum=4"/' x/$T/provenance/build-commands.json
now=$(sha256sum x/$T/provenance/build-commands.json | cut -d' ' -f1)
repack_bundle x $T rewritten.tar.gz
expect_exit 0 "$AB" verify rewritten.tar.gz
expect_exit 1 "$AB" verify --key ed.pub.pem rewritten.tar.gz
expect_grep "$J:1: provenance/build-commands.json: sha256 mismatch: signed $was, actual $now" out

# --- the wrong public key; an RSA key
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
openssl pkey -in other.pem -pubout -out other.pub.pem
expect_exit 1 "$AB" verify --key other.pub.pem $B
expect_grep "$J:1-2: unknown keyid $ed: no --key has this id (2 lines alike)" out
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem 2>/dev/null
openssl pkey -in rsa.pem -pubout -out rsa.pub.pem
expect_exit 2 "$AB" sign --signing-key rsa.pem bo
echo "allocbuild: 'rsa.pem' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only" | expect_file err
cmp saved.jsonl bo/$J || fail "a refused key changed the envelopes"
expect_exit 2 "$AB" verify --key rsa.pub.pem $B
echo "allocbuild: 'rsa.pub.pem' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only" | expect_file err
