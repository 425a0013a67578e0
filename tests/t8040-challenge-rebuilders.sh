#!/usr/bin/env bash
# rebuild --sign and challenge: a bundle of three small variants rebuilt
# twice, each record signed by its rebuilder's key; a third rebuilder's
# record made honestly by hand: the first record edited (host builder-c,
# its cc one Debian version later, another digest for bin/fake) and signed
# by openssl with a third key; a forged record (the second one's payload
# changed under its signature); a record of another build of the same
# recipe. challenge groups the digests per artifact, names the toolchain
# difference as the likely cause, refuses the forged record, takes the
# other build's as bad input; without --key it counts host names, and says
# loudly (stderr, the table, --json) that unsigned records prove nothing
# about who rebuilt (a record and its copy under another host name meet a
# quorum of 2); pr --rebuilt shows the table.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

sha=$(make_fakeproj "$PWD")
cat >r.json <<JSON
{
	"recipe": 1, "name": "three",
	"sources": {"fake": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
	"variants": [
		{"label": "a", "source": "fake", "build": {"system": "autotools", "configure": [], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a", "bin/fake"]},
		{"label": "b", "source": "fake", "build": {"system": "autotools", "configure": ["--b"], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a"]}
	]
}
JSON
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" pr -o ev bo
B=ev/provenance-three.tar.gz
for k in 1 2 3; do
	openssl genpkey -algorithm ed25519 -out k$k.pem 2>/dev/null
	chmod 600 k$k.pem
	openssl pkey -in k$k.pem -pubout -out k$k.pub
done

# two rebuilders; a key that cannot sign is refused before anything is built
expect_exit 2 "$AB" rebuild --trust-unsigned --sign k1.pub --mirror-dir mirror -o rb1 "$B"
[ ! -e rb1 ] || fail "rebuild with an unusable --sign key wrote rb1"
expect_exit 0 "$AB" rebuild --trust-unsigned --sign k1.pem --mirror-dir mirror -o rb1 "$B"
expect_grep "signed record: $PWD/rb1/rebuild.intoto.jsonl" out
expect_exit 0 "$AB" rebuild --trust-unsigned --sign k2.pem --mirror-dir mirror -o rb2 "$B"
cp rb1/rebuild.intoto.jsonl r1.jsonl
cp rb2/rebuild.intoto.jsonl r2.jsonl
# the envelope carries the record's bytes, signed (checked by openssl, not by allocbuild)
check_openssl r1.jsonl k1.pub >/dev/null
python3 -c 'import base64,json,sys; sys.stdout.buffer.write(base64.b64decode(json.load(open("r1.jsonl"))["payload"]))' >p1
cmp p1 rb1/provenance/rebuild.intoto.json || fail "the envelope's payload is not the record"
expect_exit 0 "$AB" verify rb1

# who rebuilt where, and what: the bundle and its statement by digest
R=rb1/provenance/rebuild.intoto.json
[ "$(json $R 'd["predicate"]["original"]["bundle_sha256"]')" = "$(sha256sum <"$B" | cut -d' ' -f1)" ] || fail "bundle digest"
tar -xzf "$B" provenance-three/provenance/provenance.intoto.json
STMT=$(sha256sum <provenance-three/provenance/provenance.intoto.json | cut -d' ' -f1)
[ "$STMT" = "$(sha256sum <bo/provenance/provenance.intoto.json | cut -d' ' -f1)" ] || fail "the bundle's statement is not the OUTDIR's"
[ "$(json $R 'd["predicate"]["original"]["statement_sha256"]')" = "$STMT" ] || fail "statement digest"
[ "$(json $R 'd["predicate"]["rebuilder"]["host"]["name"]')" = "$(hostname)" ] || fail "host name"
[ "$(json $R 'd["predicate"]["rebuilder"]["host"]["kernel"]')" = "$(uname -r)" ] || fail "kernel"
[ "$(json $R 'd["predicate"]["rebuilder"]["host"]["cpu_model"]')" = "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" ] || fail "cpu model"
CCPKG=$(json $R '[t for t in d["predicate"]["rebuilder"]["toolchain"]["a"] if t["name"] == "cc"][0]["package"]')
CCPV=$(json $R '[t for t in d["predicate"]["rebuilder"]["toolchain"]["a"] if t["name"] == "cc"][0]["package_version"]')
CCV=$(json $R '[t for t in d["predicate"]["rebuilder"]["toolchain"]["a"] if t["name"] == "cc"][0]["version"]')
[ "$CCPV" = "$(dpkg-query -W -f '${Version}' "$CCPKG")" ] || fail "cc's package version"
[ "$(json $R '[p["real"] for p in d["predicate"]["rebuilder"]["sandbox"]["b"]["paths"] if p["inside"] == "/allocbuild/build"][0]')" = "OUTDIR/variants/b/build" ] ||
	fail "the sandbox's paths"

# the third rebuilder, by hand: another cc, another bin/fake; signed by openssl with k3
python3 - $R r3.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["predicate"]
p["rebuilder"]["host"]["name"] = "builder-c"
for t in p["rebuilder"]["toolchain"]["a"]:
    if t["name"] == "cc":
        t["version"] = t["version"].replace("12.2.0-14", "12.2.0-15")
        t["package_version"] = t["package_version"].replace("12.2.0-14", "12.2.0-15")
for a in p["comparison"]["artifacts"]:
    if a["path"] == "variants/a/build/bin/fake":
        a["rebuilt_sha256"], a["identical"] = "f" * 64, False
open(sys.argv[2], "w").write(json.dumps(d, indent="\t"))
PY
sign_openssl k3.pem r3.json r3.jsonl
CCV3=${CCV/12.2.0-14/12.2.0-15}
CCPV3=${CCPV/12.2.0-14/12.2.0-15}
[ "$CCV3" != "$CCV" ] || fail "this test edits gcc 12.2.0-14's version; cc here is '$CCV'"
H=$(hostname)
A=$(json $R '[a["original_sha256"] for a in d["predicate"]["comparison"]["artifacts"] if a["path"].endswith("libfake.a")][0]')
F=$(json $R '[a["original_sha256"] for a in d["predicate"]["comparison"]["artifacts"] if a["path"].endswith("bin/fake")][0]')
table() { # QUORUM-LINE IDENT-OF-FAKE
	cat <<OUT
variants/a/build/lib/libfake.a
  original   ${A:0:12}
  3 of 3 identical: $H (r1.jsonl), $H (r2.jsonl), builder-c (r3.jsonl)
variants/a/build/bin/fake
  original   ${F:0:12}
  2 of 3 identical: $H (r1.jsonl), $H (r2.jsonl)
  differs    ffffffffffff: builder-c (r3.jsonl); likely cause: cc: $CCV ($CCPKG $CCPV) -> $CCV3 ($CCPKG $CCPV3)
variants/b/build/lib/libfake.a
  original   ${A:0:12}
  3 of 3 identical: $H (r1.jsonl), $H (r2.jsonl), builder-c (r3.jsonl)
OUT
}
KEYS="--key k1.pub --key k2.pub --key k3.pub"
# every artifact needs 3 of 3 by default: bin/fake has 2
expect_exit 1 "$AB" challenge $KEYS "$B" r1.jsonl r2.jsonl r3.jsonl
{
	echo "challenge of $B (statement ${STMT:0:12}): 3 records, quorum 3, signatures checked"
	table
	echo "2 of 3 artifacts reproduced by at least 3 independent rebuilders"
} | expect_file out
[ ! -s err ] || fail "challenge said: $(cat err)"
# 2 of 3 suffice with --quorum 2; the OUTDIR is the same build as its bundle
expect_exit 0 "$AB" challenge --quorum 2 $KEYS bo r1.jsonl r2.jsonl r3.jsonl
{
	echo "challenge of bo (statement ${STMT:0:12}): 3 records, quorum 2, signatures checked"
	table
	echo "3 of 3 artifacts reproduced by at least 2 independent rebuilders"
} | expect_file out
expect_exit 0 "$AB" challenge --quorum 2 --json $KEYS bo r1.jsonl r2.jsonl r3.jsonl
[ "$(json out '[(a["path"], a["identical"], a["independent"], [g["sha256"][:12] for g in a["groups"]]) for a in d["artifacts"]][1]')" = \
	"('variants/a/build/bin/fake', 2, 2, ['${F:0:12}', 'ffffffffffff'])" ] || fail "--json: $(cat out)"
[ "$(json out 'd["ok"], d["records"][2]["signer"]')" = "(True, '$(keyid_of k3.pub)')" ] || fail "--json: $(cat out)"
# without keys, a host counts once: the two records of this host are one rebuilder
expect_exit 1 "$AB" challenge --quorum 2 bo rb1/provenance/rebuild.intoto.json r2.jsonl
expect_grep "  2 of 2 identical (1 independent rebuilder): $H (rb1/provenance/rebuild.intoto.json), $H (r2.jsonl)" out
expect_grep "challenge of bo (statement ${STMT:0:12}): 2 records, quorum 2, signatures not checked (no --key)" out
# ... but a host name is only what an unsigned record says: one record and a copy naming another
# host meet a quorum of 2, and challenge says loudly (stderr, the table, --json) that this proves nothing
python3 - rb1/provenance/rebuild.intoto.json copy.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["predicate"]["rebuilder"]["host"]["name"] = "builder-x"
json.dump(d, open(sys.argv[2], "w"), indent="\t")
PY
UNSIGNED="signatures not checked: an unsigned record proves nothing about who rebuilt (its host name is what it says of itself; anyone can write one, or copy one under another name)"
expect_exit 0 "$AB" challenge --quorum 2 bo rb1/provenance/rebuild.intoto.json copy.json
echo "allocbuild: warning: challenge: no --key: $UNSIGNED" | expect_file err
sed -n 2p out >warning
echo "WARNING: $UNSIGNED: the counts below are of host names, not of rebuilders (--key PUB.pem)" | expect_file warning
expect_grep "  2 of 2 identical: $H (rb1/provenance/rebuild.intoto.json), builder-x (copy.json)" out
tail -n 1 out >last
echo "3 of 3 artifacts reproduced by at least 2 independent rebuilders (by host name: signatures not checked)" | expect_file last
expect_exit 0 "$AB" challenge --quorum 2 --json bo rb1/provenance/rebuild.intoto.json copy.json
check 'challenge --json warns that unsigned records prove nothing' \
	test "$(json out 'd["signatures_checked"], d["warnings"], d["ok"]')" = "(False, ['$UNSIGNED'], True)"
check 'challenge --json gives each record its digest' \
	test "$(json out '[r["sha256"] for r in d["records"]][1]')" = "$(sha256sum <copy.json | cut -d' ' -f1)"
# with keys there is no such warning, and the JSON says none
expect_exit 0 "$AB" challenge --quorum 2 --json $KEYS bo r1.jsonl r2.jsonl
check 'challenge --json with keys has no warning' test "$(json out 'd["warnings"]')" = "[]"
[ ! -s err ] || fail "challenge with keys said: $(cat err)"

# a forged record: the second's payload says another bin/fake, under its old signature
python3 - r2.jsonl r4.jsonl "$F" <<'PY'
import base64, json, sys
e = json.load(open(sys.argv[1]))
body = base64.b64decode(e["payload"]).replace(sys.argv[3].encode(), b"0" * 64)
e["payload"] = base64.b64encode(body).decode()
open(sys.argv[2], "w").write(json.dumps(e, separators=(",", ":")) + "\n")
PY
expect_exit 1 "$AB" challenge --quorum 2 $KEYS "$B" r1.jsonl r3.jsonl r4.jsonl
expect_file err <<ERR
r4.jsonl:1:1: bad signature: keyid $(keyid_of k2.pub) does not verify with 'k2.pub' (ed25519): not counted
ERR
expect_grep "  1 of 2 identical: $H (r1.jsonl)" out
expect_grep "2 of 3 artifacts reproduced by at least 2 independent rebuilders; 1 record refused (bad signature)" out
expect_no_grep "r4.jsonl" out
# with keys, a record that is not signed is refused too
expect_exit 1 "$AB" challenge --quorum 1 $KEYS "$B" r1.jsonl rb2/provenance/rebuild.intoto.json
expect_file err <<ERR
rb2/provenance/rebuild.intoto.json:1:1: not signed: a plain record, and --key asks for a signature: not counted
ERR

# a record of another build of the same recipe: bad input, nothing printed
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o bo2 r.json
expect_exit 0 "$AB" rebuild --mirror-dir mirror -o rb5 bo2
OTHER=$(sha256sum <bo2/provenance/provenance.intoto.json | cut -d' ' -f1)
expect_exit 2 "$AB" challenge "$B" r1.jsonl rb5/provenance/rebuild.intoto.json r2.jsonl
LC=$(grep -n "\"statement_sha256\":" rb5/provenance/rebuild.intoto.json | head -1 | cut -d: -f1)
COL=$(($(sed -n "${LC}p" rb5/provenance/rebuild.intoto.json | awk -v h="$OTHER" '{print index($0, h)}') - 1))
expect_file err <<ERR
allocbuild: warning: challenge: no --key: $UNSIGNED
rb5/provenance/rebuild.intoto.json:$LC:$COL: predicate.original.statement_sha256: a rebuild of another build (statement sha256 $OTHER), not of '$B' ($STMT)
ERR
[ ! -s out ] || fail "bad input printed a table: $(cat out)"
# usage
expect_exit 2 "$AB" challenge "$B"
expect_grep "missing RECORD" err
expect_exit 2 "$AB" challenge --quorum 4 "$B" r1.jsonl r2.jsonl r3.jsonl
expect_grep "allocbuild: challenge: --quorum 4: only 3 records given" err

# pr --rebuilt: the table in pr.md; a forged record writes nothing
expect_exit 1 "$AB" pr -o ev3 --rebuilt r1.jsonl --rebuilt r4.jsonl --rebuilt-key k1.pub --rebuilt-key k2.pub bo
[ ! -e ev3 ] || fail "pr wrote with a forged record"
expect_exit 0 "$AB" pr -o ev3 --rebuilt r1.jsonl --rebuilt r2.jsonl --rebuilt r3.jsonl \
	--rebuilt-key k1.pub --rebuilt-key k2.pub --rebuilt-key k3.pub bo
sed -n '/^### Independent rebuilds/,/^Rebuilders/p' ev3/pr.md >section
expect_file section <<MD
### Independent rebuilds

3 rebuild records held against this build (statement \`${STMT:0:12}\`), signatures checked; quorum 3 independent rebuilders: 2 of 3 artifacts reproduced.

| artifact | original | rebuilders | other digests |
|---|---|---|---|
| variants/a/build/lib/libfake.a | \`${A:0:12}\` | 3 of 3 identical | – |
| variants/a/build/bin/fake | \`${F:0:12}\` | 2 of 3 identical | \`ffffffffffff\`: builder-c; likely cause: cc: $CCV ($CCPKG $CCPV) -> $CCV3 ($CCPKG $CCPV3) |
| variants/b/build/lib/libfake.a | \`${A:0:12}\` | 3 of 3 identical | – |

Rebuilders: $H (r1.jsonl, key \`$(keyid_of k1.pub | cut -c1-12)\`); $H (r2.jsonl, key \`$(keyid_of k2.pub | cut -c1-12)\`); builder-c (r3.jsonl, key \`$(keyid_of k3.pub | cut -c1-12)\`).
MD
