#!/usr/bin/env bash
# issue 18, item 1: a manifest the build never produced is not trusted.
# verify fails naming it; pr refuses an OUTDIR that does not verify and
# writes nothing; a bundle carrying it fails verify too.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
cp -a bo pristine
expect_exit 0 "$AB" pr -o good bo
expect_exit 0 "$AB" verify good/provenance-fk.tar.gz

# a hand-written upstream-diff.json beside the recorded manifests
cat >bo/provenance/upstream-diff.json <<'JSON'
{"variants": {"t1": {"matches": true, "summary": "FAKE: identical to upstream"}}}
JSON
expect_exit 1 "$AB" verify bo
expect_file out <<'X'
provenance/upstream-diff.json: not listed in SHA256SUMS: not a file this build recorded
FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)
X
# the same for any file under provenance/ and for a manifest's name at the top
mv bo/provenance/upstream-diff.json bo/provenance/notes.txt
expect_exit 1 "$AB" verify bo
expect_grep "provenance/notes.txt: not listed in SHA256SUMS" out
rm bo/provenance/notes.txt
mkdir bo/provenance/sub && echo x >bo/provenance/sub/extra.json
expect_exit 1 "$AB" verify bo
expect_grep "provenance/sub/extra.json: not listed in SHA256SUMS" out
rm -r bo/provenance/sub

# pr reads only what verifies: it refuses, exit 1, and writes nothing
cp pristine/provenance/binary-provenance.json bo/provenance/
cat >bo/provenance/upstream-diff.json <<'JSON'
{"variants": {"t1": {"matches": true, "summary": "FAKE: identical to upstream"}}}
JSON
expect_exit 1 "$AB" pr -o prout bo
expect_grep "allocbuild: pr: provenance/upstream-diff.json: not listed in SHA256SUMS" err
expect_grep "allocbuild: pr: 'bo' does not verify ('allocbuild verify bo'): nothing written" err
[ ! -e prout ] || fail "pr wrote into prout for an OUTDIR that does not verify"
# nor a tampered one (it used to bundle it with exit 0)
rm -rf bo && cp -a pristine bo
sed -i 's/"fk"/"fK"/' bo/provenance/sources.json
expect_exit 1 "$AB" pr -o prout bo
grep -qE "^allocbuild: pr: provenance/sources.json: expected [0-9a-f]{64}, actual [0-9a-f]{64}$" err ||
	{ cat err; fail "pr did not name the tampered manifest"; }
[ ! -e prout ] && [ ! -e bo/pr.md ] || fail "pr wrote something for a tampered OUTDIR"

# a bundle with the fake manifest added (and its index made to agree)
mkdir x
tar -xzf good/provenance-fk.tar.gz -C x
cp pristine/provenance/sources.json x/provenance-fk/provenance/upstream-diff.json
(cd x/provenance-fk && find . -type f ! -name BUNDLE-SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
	xargs sha256sum >BUNDLE-SHA256SUMS)
tar --sort=name -C x -czf fake.tar.gz provenance-fk
expect_exit 1 "$AB" verify fake.tar.gz
expect_grep "provenance/upstream-diff.json: not listed in SHA256SUMS: not a file this build recorded" out
