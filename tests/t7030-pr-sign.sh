#!/usr/bin/env bash
# pr --sign on a small real build: the bundle carries the envelopes, the
# signers' fingerprints and the in-toto links, pr.md says who signed and how to verify (its
# Python snippet is run here, with securesystemslib, and its digests
# checked by sha256sum -c), and a bundle whose members and indexes were all
# rewritten passes the plain verify but fails verify --key.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build ps lib/libfake.a bin/fake
ed=$(keyid_of ed.pub.pem)
J=provenance/provenance.intoto.jsonl
B=pr/provenance-ps.tar.gz
T=provenance-ps

# --- an unusable key: nothing written, the OUTDIR not signed
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem 2>/dev/null
expect_exit 2 "$AB" pr --sign rsa.pem -o pr bo
echo "allocbuild: 'rsa.pem' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only" | expect_file err
[ ! -e pr ] && [ ! -e bo/$J ] || fail "pr wrote something with an unusable key"

# --- a file pr cannot replace: refused before anything is written, OUTDIR not signed
mkdir -p prd/pr.md
expect_exit 2 "$AB" pr --sign ed.pem -o prd bo
echo "allocbuild: cannot replace 'prd/pr.md': Is a directory" | expect_file err
[ "$(ls prd)" = pr.md ] && [ ! -e bo/$J ] && [ ! -e bo/provenance/signers.json ] ||
	fail "pr wrote something, or signed OUTDIR, with a pr.md it cannot replace"
rmdir prd/pr.md && mkdir prd/provenance-ps.tar.gz
expect_exit 2 "$AB" pr -o prd bo
echo "allocbuild: cannot replace 'prd/provenance-ps.tar.gz': Is a directory" | expect_file err
[ "$(ls prd)" = provenance-ps.tar.gz ] || fail "pr wrote something with a bundle it cannot replace"
mkfifo bo/pr-details.md
expect_exit 2 "$AB" pr -o prf bo
echo "allocbuild: cannot replace 'bo/pr-details.md': not a regular file" | expect_file err
[ ! -e prf ] || fail "pr wrote something with a pr-details.md it cannot replace"
rm bo/pr-details.md
: >dirfile
expect_exit 2 "$AB" pr -o dirfile bo
echo "allocbuild: cannot write into 'dirfile': Not a directory" | expect_file err

# --- pr --sign: the envelopes into OUTDIR and the bundle, the signature section in pr.md
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
expect_grep "signed 2 statements: bo/$J" out
expect_grep "wrote $B (16 files)" out
# the envelopes, signers.json and the in-toto links pr --sign wrote with them (docs/intoto.md)
tar -tzf $B | grep -E "/(provenance.intoto.jsonl|signers.json|[^/]*\.link)$" | sed 's/\.[0-9a-f]\{8\}\.link$/.link/' >members.txt
expect_file members.txt <<X
$T/in-toto/build-a.link
$T/in-toto/fetch-fake.link
$T/$J
$T/provenance/signers.json
X
# the SBOM and the Statement that signs it as its byproduct (docs/sbom.md)
tar -tzf $B | grep "/sbom/." >sbom.txt
printf '%s\n' $T/sbom/bom.cdx.json $T/sbom/sbom.intoto.json | expect_file sbom.txt
[ "$(json bo/sbom/sbom.intoto.json '[b["name"] + " " + b["digest"]["sha256"] for b in d["predicate"]["byproducts"]]')" = \
	"['sbom/bom.cdx.json $(sha256sum <bo/sbom/bom.cdx.json | cut -c1-64)']" ] || fail "the SBOM's Statement"
expect_grep "<details><summary>Signature: who signed, and how to check it</summary>" pr/pr.md
expect_grep "- **Signed**: every statement, by \`${ed:0:16}\` (ed25519): \`verify --key\` checks it" pr/pr.md
expect_grep "| \`$ed\` | \`ed25519\` |" pr/pr.md
expect_grep "allocbuild verify --key PUB.pem provenance-ps.tar.gz" pr/pr.md
expect_grep "tar -xzf provenance-ps.tar.gz $T/$J" pr/pr.md
# Ed25519 signatures are deterministic: a second run gives the same bundle
expect_exit 0 "$AB" pr --sign ed.pem -o pr2 bo
cmp $B pr2/provenance-ps.tar.gz || fail "two signed runs gave different bundles"

# --- verify --key on the bundle: the byproducts inside it, the subjects it does not carry listed
lib=$(sha256sum bo/variants/a/build/lib/libfake.a | cut -d' ' -f1)
bin=$(sha256sum bo/variants/a/build/bin/fake | cut -d' ' -f1)
expect_exit 0 "$AB" verify -v --key ed.pub.pem $B
expect_file out <<X
$B: every member matches BUNDLE-SHA256SUMS
$J:1: ok: provenance/provenance.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 0 subjects and 7 byproducts match; 2 subjects not in the bundle, not checked:
  variants/a/build/lib/libfake.a sha256 $lib
  variants/a/build/bin/fake sha256 $bin
$J:2: ok: sbom/sbom.intoto.json, signed by ed25519 $ed ('ed.pub.pem'); 0 subjects and 1 byproduct match; 2 subjects not in the bundle, not checked:
  variants/a/build/lib/libfake.a sha256 $lib
  variants/a/build/bin/fake sha256 $bin
verified 2 signed statements in the bundle, each signed by ed25519 $ed ('ed.pub.pem'): 0 subjects and 8 byproducts match; 4 subjects not in the bundle, not checked
pass: bundle $B: every member matches BUNDLE-SHA256SUMS and SHA256SUMS; signatures checked with 1 key
X
expect_exit 0 "$AB" verify $B
expect_grep "$J: 2 envelopes with 2 signatures (keyid $ed): signatures present, not checked (verify --key PUB.pem checks them)" out
# --json: one document, the same result and every line
expect_exit 0 "$AB" verify --json --key ed.pub.pem $B
[ "$(json out '[d["target"], d["kind"], d["result"], d["keys"], d["lines"][-1]]')" = \
  "['$B', 'bundle', 'pass', 1, 'pass: bundle $B: every member matches BUNDLE-SHA256SUMS and SHA256SUMS; signatures checked with 1 key']" ] ||
	fail "verify --json: $(cat out)"
expect_exit 1 "$AB" verify --json --key ec.pub.pem $B
[ "$(json out '[d["result"], d["lines"][-1]]')" = \
  "['fail', 'FAIL: bundle $B: a check failed (above); signatures checked with 1 key']" ] || fail "verify --json: $(cat out)"

# --- pr.md's check without allocbuild, as a reader would run it, with Debian's securesystemslib
cat >want <<X
\`\`\`sh
allocbuild verify --key PUB.pem provenance-ps.tar.gz
python3 dsse-verify.py PUB.pem $J | (cd allocbuild-out/ps && sha256sum -c)
\`\`\`
X
sed -n '/^```sh$/,/^```$/p' pr/pr.md | grep -A3 -B1 'verify --key' | expect_file want
cp "$TOP/docs/dsse-verify.py" .
tar -xzf $B $T/$J
"$SSLIB_PY" dsse-verify.py ed.pub.pem $T/$J >sums 2>snippet.err || { cat snippet.err; fail "the snippet failed"; }
expect_file snippet.err <<X
line 1: https://slsa.dev/provenance/v1: signature by $ed verified
line 2: https://allocbuild.dev/sbom/v1: signature by $ed verified
X
[ "$(wc -l <sums)" = 12 ] || fail "the snippet printed $(wc -l <sums) digests"
(cd bo && sha256sum -c --quiet) <sums || fail "sha256sum -c refused the snippet's digests"
# ... with an ECDSA key too, and refusing a tampered envelope
expect_exit 0 "$AB" pr --sign ec.pem -o pr3 bo
tar -xzf pr3/provenance-ps.tar.gz $T/$J
"$SSLIB_PY" dsse-verify.py ec.pub.pem $T/$J 2>snippet.err >/dev/null || { cat snippet.err; fail "the snippet failed (ECDSA)"; }
tamper $T/$J 1 payload
! "$SSLIB_PY" dsse-verify.py ec.pub.pem $T/$J >/dev/null 2>snippet.err || fail "the snippet accepted a tampered payload"
expect_grep "UnverifiedSignatureError" snippet.err
# pr on a signed OUTDIR without --sign keeps the section (signers.json says who)
expect_exit 0 "$AB" pr -o pr4 bo
expect_grep "| \`$(keyid_of ec.pub.pem)\` | \`ecdsa-sha2-nistp256\` |" pr4/pr.md
# back to the Ed25519 bundle for the tampering below
rm -rf $T

fresh() { rm -rf x && mkdir x && tar -xzf $B -C x; }

# a manifest changed: the indexes agree with it, the signature does not
fresh
was=$(sha256sum x/$T/provenance/sources.json | cut -d' ' -f1)
sed -i 's/"ps"/"pS"/' x/$T/provenance/sources.json
now=$(sha256sum x/$T/provenance/sources.json | cut -d' ' -f1)
repack_bundle x $T t1.tar.gz
expect_exit 0 "$AB" verify t1.tar.gz
expect_exit 1 "$AB" verify --key ed.pub.pem t1.tar.gz
expect_file out <<X
t1.tar.gz: every member matches BUNDLE-SHA256SUMS
$J:1: provenance/sources.json: sha256 mismatch: signed $was, actual $now
FAIL: bundle t1.tar.gz: a check failed (above); signatures checked with 1 key
X
# a log removed
fresh
log=$(sha256sum x/$T/variants/a/logs/03-build.log | cut -d' ' -f1)
rm x/$T/variants/a/logs/03-build.log
repack_bundle x $T t2.tar.gz
expect_exit 1 "$AB" verify --key ed.pub.pem t2.tar.gz
expect_grep "$J:1: variants/a/logs/03-build.log: signed sha256 $log, actual missing from the bundle" out
# the envelope's payload
fresh
tamper x/$T/$J 1 payload
repack_bundle x $T t3.tar.gz
expect_exit 1 "$AB" verify --key ed.pub.pem t3.tar.gz
expect_grep "$J:1: bad signature: keyid $ed does not verify with 'ed.pub.pem' (ed25519)" out
# the statement inside the bundle
fresh
sed -i 's/"buildType"/"buildtype"/' x/$T/provenance/provenance.intoto.json
repack_bundle x $T t4.tar.gz
expect_exit 1 "$AB" verify --key ed.pub.pem t4.tar.gz
expect_grep "$J:1: signs a statement that the bundle does not hold (no statement file there has its bytes)" out
expect_grep "provenance/provenance.intoto.json: not signed: no line of $J carries it" out
# the envelopes removed
fresh
rm x/$T/$J
repack_bundle x $T t5.tar.gz
expect_exit 1 "$AB" verify --key ed.pub.pem t5.tar.gz
expect_file out <<X
t5.tar.gz: every member matches BUNDLE-SHA256SUMS
$J: missing: the bundle is not signed (allocbuild sign)
FAIL: bundle t5.tar.gz: a check failed (above); signatures checked with 1 key
X
