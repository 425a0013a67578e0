#!/usr/bin/env bash
# A build after sign. One that changes nothing (every step up to date, the
# same recipe) keeps the OUTDIR's statement and manifests byte for byte,
# and so its signatures: verify --key still passes, and the summary says
# they were kept, with the in-toto links. One that changes something writes
# a new statement and removes the envelopes and links that signed the old
# one, and says so in a warning
# and in its summary; verify --key then fails on the unsigned OUTDIR.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

J=provenance/provenance.intoto.jsonl
fake_build kept lib/libfake.a
expect_exit 0 "$AB" sign --signing-key ed.pem bo
cp -a bo before
ls before/in-toto | sed 's/\.[0-9a-f]\{8\}\.link$//' >links.txt
printf '%s\n' build-a fetch-fake | expect_file links.txt

# nothing changed: the manifests and the signatures are kept, byte for byte
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "manifests: up to date" err
expect_no_grep "warning" err
grep -qx "signatures: kept (nothing changed)" out || fail "the summary did not say the signatures were kept"
diff -r before/provenance bo/provenance || fail "a build that changed nothing rewrote provenance/"
diff -r before/in-toto bo/in-toto || fail "a build that changed nothing rewrote the in-toto links"
cmp before/SHA256SUMS bo/SHA256SUMS || fail "a build that changed nothing rewrote SHA256SUMS"
expect_exit 0 "$AB" verify --key ed.pub.pem bo
expect_grep "verified 2 signed statements in the OUTDIR" out

# a change (another configure option): a new statement, the old signatures removed and said so
sed -i 's/"configure": \[\]/"configure": ["--enable-x"]/' r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
echo "allocbuild: warning: the OUTDIR's statement changed: its signatures ($J) signed the old one and are removed; sign it again (allocbuild sign --signing-key KEY.pem OUTDIR)" >want
grep '^allocbuild: warning' err | diff -u want - || fail "the build did not say that it removed the signatures"
grep -qx "signatures: removed (the statement changed): sign again" out || fail "the summary did not say the signatures were removed"
[ ! -e bo/$J ] && [ ! -e bo/provenance/signers.json ] || fail "the stale signatures were kept"
[ -z "$(ls bo/in-toto)" ] || fail "the stale in-toto links were kept: $(ls bo/in-toto)"
cmp -s before/provenance/provenance.intoto.json bo/provenance/provenance.intoto.json &&
	fail "the statement was not rewritten"
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_grep "$J: missing: the OUTDIR is not signed (allocbuild sign)" out

# the recipe of the OUTDIR is not this one: a build that builds nothing still records it
cp before/recipe.json r2.json
expect_exit 0 "$AB" sign --signing-key ed.pem bo
sed -i 's/"name": "kept"/"name": "kept2"/' r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
grep -qx "signatures: removed (the statement changed): sign again" out || fail "the summary did not say the signatures were removed"
expect_grep '"name": "kept2"' bo/recipe.json
