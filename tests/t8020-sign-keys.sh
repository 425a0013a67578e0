#!/usr/bin/env bash
# sign and verify --key: the keys they take and refuse. Ed25519 and EC P-256
# keys from openssl genpkey, encrypted keys (passphrase from the environment
# or the terminal), RSA and other curves refused with a clear message, exit
# 2 and nothing written; private key material and passphrases appear in no
# output, manifest or bundle.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build ks lib/libfake.a
J=provenance/provenance.intoto.jsonl
unset ALLOCBUILD_KEY_PASSPHRASE
# nothing signed: neither file sign writes is there
unsigned() {
	[ ! -e bo/$J ] && [ ! -e bo/provenance/signers.json ] || fail "sign wrote into bo after an error"
}

# --- refused keys: exit 2, one message, nothing written
refused() { # MESSAGE ARGS...
	local want=$1
	shift
	expect_exit 2 "$AB" "$@"
	echo "allocbuild: $want" | expect_file err
	expect_file out </dev/null
	unsigned
}
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem 2>/dev/null
openssl pkey -in rsa.pem -pubout -out rsa.pub.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out p384.pem 2>/dev/null
openssl pkey -in p384.pem -pubout -out p384.pub.pem
openssl genpkey -algorithm ed448 -out ed448.pem 2>/dev/null
refused "'rsa.pem' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only" sign --signing-key rsa.pem bo
refused "'rsa.pub.pem' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only" verify --key rsa.pub.pem bo
refused "'p384.pem' is an EC key on curve secp384r1: allocbuild signs with Ed25519 or ECDSA P-256 keys only" sign --signing-key p384.pem bo
refused "'p384.pub.pem' is an EC key on curve secp384r1: allocbuild signs with Ed25519 or ECDSA P-256 keys only" verify --key p384.pub.pem bo
refused "'ed448.pem' is a key of type ED448: allocbuild signs with Ed25519 or ECDSA P-256 keys only" sign --signing-key ed448.pem bo
refused "'ed.pub.pem' holds a PUBLIC KEY, not a private key: signing needs the private key" sign --signing-key ed.pub.pem bo
refused "'ed.pem' is a private key: give its public key (openssl pkey -in 'ed.pem' -pubout)" verify --key ed.pem bo
refused "'r.json' is not a PEM key file" sign --signing-key r.json bo
refused "cannot open 'nokey.pem': No such file or directory" sign --signing-key nokey.pem bo
# a second key that is refused: the first is not used either
refused "'rsa.pem' is an RSA key: allocbuild signs with Ed25519 or ECDSA P-256 keys only" sign --signing-key ed.pem --signing-key rsa.pem bo
# a damaged key
(umask 077 && sed '2s/^..../AAAA/' ed.pem >damaged.pem)
expect_exit 2 "$AB" sign --signing-key damaged.pem bo
grep -q "^allocbuild: 'damaged.pem': cannot read the PRIVATE KEY: " err || { cat err; fail "damaged key"; }
unsigned
# a private key that group or others may read or write is refused, as ssh
# refuses one, before any passphrase is asked; a public key may be read by all
for m in 644 640 604 620 602; do
	cp ed.pem open.pem
	chmod $m open.pem
	refused "'open.pem': a private key that group or others may access (mode 0$m): anyone who can read it can sign as you; chmod 600 it" sign --signing-key open.pem bo
done
[ "$(stat -c %a ed.pub.pem)" = 644 ] || fail "the public key is not world-readable"
# a fifo, a device or a huge file as the key is refused at once, never read
# (before, sign and verify waited forever on a fifo)
refused_now() { # MESSAGE ARGS...: refused, within 10 s
	local want=$1
	shift
	expect_exit 2 timeout 10 "$AB" "$@"
	echo "allocbuild: $want" | expect_file err
	expect_file out </dev/null
	unsigned
}
mkfifo fifo.pem
refused_now "'fifo.pem' is not a regular file" sign --signing-key fifo.pem bo
refused_now "'fifo.pem' is not a regular file" verify --key fifo.pem bo
refused_now "'/dev/zero' is not a regular file" verify --key /dev/zero bo
truncate -s 1048577 big.pem
chmod 600 big.pem
refused "'big.pem' is larger than 1048576 bytes" sign --signing-key big.pem bo

# --- usage
usage_error() { # MESSAGE ARGS...
	local want=$1
	shift
	expect_exit 2 "$AB" "$@"
	printf 'allocbuild: %s\nTry '\''allocbuild help %s'\''.\n' "$want" "$1" | expect_file err
}
usage_error "sign: missing --signing-key KEY.pem" sign bo
usage_error "sign: expected one OUTDIR" sign --signing-key ed.pem
usage_error "sign: expected one OUTDIR" sign --signing-key ed.pem bo bo
usage_error "sign: option '--signing-key' needs a value" sign bo --signing-key
# the old spelling still signs, and says that it is deprecated, once
expect_exit 0 "$AB" sign --key ed.pem --key ec.pem bo
echo "allocbuild: warning: sign --key is deprecated: name the signing key with --signing-key KEY.pem (--key names a trusted public key in verify, rebuild and challenge)" | expect_file err
expect_exit 0 "$AB" verify --key ed.pub.pem --key ec.pub.pem --require-all bo
rm bo/provenance/provenance.intoto.jsonl bo/provenance/signers.json
usage_error "sign: unknown option '--bogus'" sign --bogus bo
usage_error "verify: --require-all needs --key" verify --require-all bo
usage_error "verify: expected exactly one OUTDIR, BUNDLE or FILE.intoto.jsonl" verify --key ed.pub.pem bo bo
expect_exit 2 "$AB" sign --signing-key ed.pem nowhere
echo "allocbuild: sign: 'nowhere' is not a directory" | expect_file err
mkdir empty
expect_exit 2 "$AB" sign --signing-key ed.pem empty
echo "allocbuild: 'empty' has no in-toto statement (provenance/provenance.intoto.json): run 'allocbuild build' first" | expect_file err
[ -z "$(ls -A empty)" ] || fail "sign wrote into empty"
# a statement that is not one is not signed: a directory that is no OUTDIR does not verify
mkdir -p notst/provenance
echo '{"_type": "https://example.invalid/x"}' >notst/provenance/provenance.intoto.json
expect_exit 2 "$AB" sign --signing-key ed.pem notst
echo "allocbuild: 'notst' has no SHA256SUMS: not an allocbuild output directory" | expect_file err
expect_exit 0 "$AB" help sign
expect_grep "allocbuild sign [--json] --signing-key KEY.pem [--signing-key KEY.pem]... OUTDIR" out

# --- encrypted keys: the passphrase from the environment
PASS=correct-horse-battery-staple
openssl genpkey -algorithm ed25519 -aes-256-cbc -pass "pass:$PASS" -out enc-ed.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -aes-256-cbc -pass "pass:$PASS" -out enc-ec.pem
openssl pkey -in enc-ec.pem -passin "pass:$PASS" -pubout -out enc-ec.pub.pem
head -1 enc-ed.pem | grep -qx -- "-----BEGIN ENCRYPTED PRIVATE KEY-----" || fail "the key is not encrypted"
refused "'enc-ed.pem' is encrypted: set ALLOCBUILD_KEY_PASSPHRASE or run on a terminal to give its passphrase" \
	sign --signing-key enc-ed.pem bo
ALLOCBUILD_KEY_PASSPHRASE=wrong refused "'enc-ed.pem': cannot decrypt the private key: wrong passphrase" sign --signing-key enc-ed.pem bo
ALLOCBUILD_KEY_PASSPHRASE=$PASS expect_exit 0 "$AB" sign --signing-key enc-ed.pem --key enc-ec.pem bo
expect_grep "signed 2 statements with ed25519 key " out
expect_exit 0 "$AB" verify --key enc-ec.pub.pem bo
check_sslib bo/$J enc-ec.pub.pem >/dev/null
# ... and from the terminal (script(1) gives the command one): the prompt names the file
rm bo/$J bo/provenance/signers.json
{ sleep 1; printf '%s\n' "$PASS"; } | script -qec "'$AB' sign --signing-key enc-ed.pem bo" /dev/null >tty.out 2>&1 ||
	{ cat tty.out; fail "sign with a passphrase from the terminal"; }
expect_grep "passphrase of 'enc-ed.pem': " tty.out
expect_grep "signed 2 statements with ed25519 key " tty.out
[ -s bo/$J ] || fail "nothing signed from the terminal"

# --- no key material anywhere: neither the private keys' bytes nor the passphrase
ALLOCBUILD_KEY_PASSPHRASE=$PASS expect_exit 0 "$AB" pr --sign enc-ed.pem --sign ec.pem -o pr bo
cat out err >>all-output.txt
mkdir x && tar -xzf pr/provenance-ks.tar.gz -C x
for k in ed.pem ec.pem enc-ed.pem enc-ec.pem; do
	grep -v -- ----- "$k" >"$k.body"
	while IFS= read -r l; do
		if grep -rqF -- "$l" bo/provenance bo/SHA256SUMS bo/variants/a/logs x pr/pr.md all-output.txt tty.out; then
			fail "a line of $k appears in the output"
		fi
	done <"$k.body"
done
if grep -rqF -- "$PASS" bo/provenance bo/SHA256SUMS x pr/pr.md all-output.txt; then
	fail "the passphrase appears in the output"
fi
# the bundle holds the fingerprints (signers.json) and the envelopes
[ "$(json x/provenance-ks/provenance/signers.json '[s["algorithm"] for s in d["signers"]]')" = "['ed25519', 'ecdsa-sha2-nistp256']" ]
[ "$(json x/provenance-ks/provenance/signers.json '[s["keyid"] for s in d["signers"]][1]')" = "$(keyid_of ec.pub.pem)" ]
cmp x/provenance-ks/$J bo/$J || fail "the bundle's envelopes are not the OUTDIR's"

# --- sign takes the OUTDIR's lock: a build or run holding it makes sign exit 2, nothing written
cp bo/$J envelopes.before
(exec 9>>bo/.lock && flock 9 && exec sleep 30) &
HOLDER=$!
while flock -n bo/.lock true; do sleep 0.05; done
expect_exit 2 "$AB" sign --signing-key ed.pem bo
expect_grep "allocbuild: output directory 'bo' is locked by another build" err
kill "$HOLDER"
wait "$HOLDER" 2>/dev/null || true
cmp bo/$J envelopes.before || fail "a refused sign wrote the envelopes"
expect_exit 0 "$AB" sign --signing-key ed.pem bo
