#!/usr/bin/env bash
# in-toto links of the default recipe's real OUTDIR, checked by Debian's
# in-toto 1.3.1 (in-toto-verify) against a layout made as a user would make
# it: the layout owner's key by in-toto-keygen, the layout by
# docs/intoto-layout.py from the OUTDIR's recipe and the builder's key
# as `sign --intoto-pubkey` prints it, signed with in-toto's own library.
# It passes on the honest OUTDIR (Ed25519 and ECDSA P-256 builders; the
# inspection's verify with --key, or with a reviewer's policy, from
# --verify-option), and
# fails, each with in-toto's own message, on: artifacts swapped after
# signing (the inspection's `allocbuild verify .`; swapped before it, sign
# refuses the OUTDIR and writes nothing), a variant's tree that
# no longer matches the fetched source (the layout's MATCH rule), a link
# edited after signing, links signed by a key the layout does not trust
# (under their own name and under the trusted key's). The links travel in
# pr's bundle, which verify accepts.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sign-lib.sh"
command -v in-toto-verify >/dev/null || fail "Debian's in-toto is not installed (scripts/install-deps.sh)"

default_build bo
make_keys
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
chmod 600 ed.pem ec.pem other.pem
# the key as in-toto reads it; its id is securesystemslib's, which names the links
keyid() {
	"$SSLIB_PY" -c 'import json, sys
from securesystemslib import interface as i
t = json.load(open(sys.argv[1]))["keytype"]
f = i.import_ed25519_publickey_from_file if t == "ed25519" else i.import_ecdsa_publickey_from_file
print(f(sys.argv[1])["keyid"])' "$1"
}
expect_exit 0 "$AB" sign --intoto-pubkey ed.pub.pem
mv out ed.pub.json
k=$(keyid ed.pub.json)
k8=${k:0:8}
pub=$(openssl pkey -pubin -in ed.pub.pem -outform DER | tail -c 32 | od -An -tx1 | tr -d ' \n')
expect_file ed.pub.json <<X
{
	"keytype":	"ed25519",
	"scheme":	"ed25519",
	"keyid_hash_algorithms":	["sha256", "sha512"],
	"keyval":	{
		"public":	"$pub"
	}
}
X
expect_exit 2 "$AB" sign --intoto-pubkey ed.pem
expect_grep "allocbuild: 'ed.pem' is a private key: give its public key (openssl pkey -in 'ed.pem' -pubout)" err
[ ! -s out ] || fail "a refused key printed something"
expect_exit 2 "$AB" sign --intoto-pubkey ed.pub.pem bo
expect_grep "--intoto-pubkey takes no OUTDIR and no --signing-key" err
[ ! -e bo/in-toto ] || fail "--intoto-pubkey wrote links"

# --- the links: one per step, named as in-toto-verify looks for them
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_file out <<X
signed 2 statements with ed25519 key $(keyid_of ed.pub.pem): bo/provenance/provenance.intoto.jsonl
wrote 13 in-toto links: bo/in-toto
X
ls bo/in-toto >links.txt
expect_file links.txt <<X
build-frag-special53.$k8.link
build-frag-stock53.$k8.link
build-special53.$k8.link
build-stock53.$k8.link
fetch-frag.$k8.link
fetch-jemalloc-5.3.0.$k8.link
probe-fit-only.$k8.link
probe-frag-aa.$k8.link
probe-frag-fit-only.$k8.link
probe-frag-special53.$k8.link
probe-frag-stock53.$k8.link
probe-special53.$k8.link
probe-stock53.$k8.link
X
cp bo/in-toto/build-stock53.$k8.link saved-honest.link
A=variants/stock53/build/lib/libjemalloc_pic.a
S=variants/special53/build/lib/libjemalloc_pic.a
json bo/in-toto/build-stock53.$k8.link \
	'"\n".join([" ".join(d["signed"]["command"]), str(len(d["signed"]["materials"]))] +
	 sorted(p + " " + h["sha256"] for p, h in d["signed"]["products"].items()))' >build.txt
{
	echo "make lib/libjemalloc_pic.a"
	(cd bo/variants/stock53/src && find . -type f | wc -l)
	(cd bo && sha256sum $A variants/stock53/logs/*) | awk '{print $2 " " $1}' | LC_ALL=C sort
} | expect_file build.txt
json bo/in-toto/probe-fit-only.$k8.link 'list(d["signed"]["materials"])' >probe.txt
echo "['$A']" | expect_file probe.txt

# --- the layout, its owner's key made by in-toto's own tool
in-toto-keygen -t ed25519 owner >/dev/null
"$SSLIB_PY" "$TOP/docs/intoto-layout.py" --recipe bo/recipe.json --functionary ed.pub.json --owner-key owner \
	-o root.layout
# the inspection runs `allocbuild verify .`: the binary under test
mkdir bin
ln -s "$AB" bin/allocbuild
intoto_verify() {
	(cd bo && PATH="$PWD/../bin:$PATH" in-toto-verify --layout ../"${1:-root.layout}" \
		--layout-keys ../owner.pub --key-types ed25519 --link-dir in-toto)
}
expect_exit 0 intoto_verify
expect_file err </dev/null

# --- the inspection checks a reviewer's policy too (verify --policy, docs/policy.md): the shipped
# one asks for a reproducibility record, which this OUTDIR (never built with --check) lacks
P=$TOP/recipes/jemalloc-5.3.0-policy.policy.json
"$SSLIB_PY" "$TOP/docs/intoto-layout.py" --recipe bo/recipe.json --functionary ed.pub.json --owner-key owner \
	--verify-option=--policy="$P" -o policy.layout
expect_exit 1 intoto_verify policy.layout
expect_file err <<X
(in-toto-verify) BadReturnValueError: Got non-zero return value '1' from command '['allocbuild', 'verify', '--policy=$P', '.']'.
X
python3 - "$P" >norepro.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rules"] = [r for r in d["rules"] if "reproducible" not in r]
json.dump(d, sys.stdout, indent=1)
PY
"$SSLIB_PY" "$TOP/docs/intoto-layout.py" --recipe bo/recipe.json --functionary ed.pub.json --owner-key owner \
	--verify-option=--policy="$PWD/norepro.json" -o policy.layout
expect_exit 0 intoto_verify policy.layout

# --- artifacts swapped after signing: the inspection's verify fails
mv bo/$A x && mv bo/$S bo/$A && mv x bo/$S
expect_exit 1 intoto_verify
expect_file err <<'X'
(in-toto-verify) BadReturnValueError: Got non-zero return value '1' from command '['allocbuild', 'verify', '.']'.
X
mv bo/$A x && mv bo/$S bo/$A && mv x bo/$S

# --- artifacts swapped before signing: sign verifies the OUTDIR first and refuses it
# (exit 1), writing nothing: the links it wrote before stay as they were
mv bo/$A x && mv bo/$S bo/$A && mv x bo/$S
expect_exit 1 "$AB" sign --signing-key ed.pem bo
expect_grep "allocbuild: sign: $A: expected $(grep "  $A\$" bo/SHA256SUMS | cut -d' ' -f1), actual $(sha256sum bo/$A | cut -d' ' -f1)" err
expect_grep "allocbuild: sign: 'bo' does not verify ('allocbuild verify bo'): nothing signed" err
cmp bo/in-toto/build-stock53.$k8.link saved-honest.link || fail "a refused sign changed the link"
mv bo/$A x && mv bo/$S bo/$A && mv x bo/$S
expect_exit 0 "$AB" sign --signing-key ed.pem bo
cmp bo/in-toto/build-stock53.$k8.link saved-honest.link || fail "signing again changed the honest link"

# --- a variant's tree that is not the fetched source: build's MATCH rule
echo "/* changed */" >>bo/variants/special53/src/src/arena.c
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 1 intoto_verify
head -n 1 err >err1
expect_file err1 <<'X'
(in-toto-verify) RuleVerificationError: 'DISALLOW *' matched the following artifacts: ['variants/special53/src/src/arena.c']
X
expect_grep "Full trace for 'expected_materials' of item 'build-special53':" err
sed -i '$d' bo/variants/special53/src/src/arena.c
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 0 intoto_verify

# --- a link edited after signing: its signature no longer verifies
cp bo/in-toto/build-stock53.$k8.link saved.link
stock=$(sha256sum bo/$A | cut -d' ' -f1)
sed -i "s/\"$stock\"/\"$(sha256sum bo/$S | cut -d' ' -f1)\"/" bo/in-toto/build-stock53.$k8.link
cmp -s saved.link bo/in-toto/build-stock53.$k8.link && fail "the link was not edited"
expect_exit 1 intoto_verify
expect_file err <<'X'
(in-toto-verify) ThresholdVerificationError: Step 'build-stock53' requires at least '1' links validly signed by different authorized functionaries. Only found '0'
X
cp saved.link bo/in-toto/build-stock53.$k8.link

# --- links signed by a key the layout does not trust
expect_exit 0 "$AB" sign --signing-key other.pem bo
[ "$(ls bo/in-toto | grep -c "\.$k8\.link$")" = 0 ] || fail "sign kept the links of the previous key"
expect_exit 1 intoto_verify
expect_file err <<'X'
(in-toto-verify) LinkNotFoundError: Step 'fetch-jemalloc-5.3.0' requires '1' link metadata file(s), found '0'.
X
# ... and under the trusted key's names
for f in bo/in-toto/*.link; do
	step=${f##*/}
	mv "$f" "bo/in-toto/${step%.*.link}.$k8.link"
done
expect_exit 1 intoto_verify
expect_file err <<'X'
(in-toto-verify) ThresholdVerificationError: Step 'fetch-jemalloc-5.3.0' requires at least '1' links validly signed by different authorized functionaries. Only found '0'
X

# --- an ECDSA P-256 builder
expect_exit 0 "$AB" sign --signing-key ec.pem bo
expect_exit 0 "$AB" sign --intoto-pubkey ec.pub.pem
mv out ec.pub.json
ls bo/in-toto | grep -vc "\.$(keyid ec.pub.json | cut -c1-8)\.link$" >other.txt || true
echo 0 | expect_file other.txt
# its inspection checks the envelopes too: verify --key, a path from the OUTDIR
"$SSLIB_PY" "$TOP/docs/intoto-layout.py" --recipe bo/recipe.json --functionary ec.pub.json --owner-key owner \
	--verify-option=--key=../ec.pub.pem -o ec.layout
json ec.layout 'd["signed"]["inspect"][0]["run"]' >run.txt
echo "['allocbuild', 'verify', '--key=../ec.pub.pem', '.']" | expect_file run.txt
expect_exit 0 intoto_verify ec.layout
cp ed.pub.pem ec.pub.pem
expect_exit 1 intoto_verify ec.layout
expect_file err <<'X'
(in-toto-verify) BadReturnValueError: Got non-zero return value '1' from command '['allocbuild', 'verify', '--key=../ec.pub.pem', '.']'.
X
expect_exit 1 intoto_verify root.layout
expect_grep "LinkNotFoundError: Step 'fetch-jemalloc-5.3.0'" err

# --- the links travel in pr's bundle, which verify accepts
expect_exit 0 "$AB" pr -o pr bo
tar tzf pr/provenance-jemalloc-5.3.0-policy.tar.gz | grep '/in-toto/.*\.link$' | sed 's,^[^/]*/,,' >members.txt
ls bo/in-toto | sed 's,^,in-toto/,' | expect_file members.txt
expect_exit 0 "$AB" verify pr/provenance-jemalloc-5.3.0-policy.tar.gz
expect_grep "pass: bundle pr/provenance-jemalloc-5.3.0-policy.tar.gz: every member matches" out
