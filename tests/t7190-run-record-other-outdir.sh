#!/usr/bin/env bash
# A run record names the build it ran (predicate.build.invocation_id);
# verify takes a record only when that is this OUTDIR's build or an
# earlier build of it whose runs it kept (the build statement's
# internalParameters.earlierInvocations). A signed record copied from
# another OUTDIR whose artifacts have the same bytes (its log and its
# SHA256SUMS lines with it, everything signed again) is a problem, exit
# 1, in the OUTDIR and in a bundle; before, it verified. sign refuses to
# sign it (it does not verify), so it is signed by hand here.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

mkdir A B
(cd A && fake_build same bin/fake)
(cd B && fake_build same bin/fake)
cmp A/bo/variants/a/build/bin/fake B/bo/variants/a/build/bin/fake || fail "the two builds differ"
(cd B && expect_exit 0 "$AB" pr -o pr0 bo)
cd A
expect_exit 0 "$AB" run bo a --name p -- {bin}
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 0 "$AB" verify --key ed.pub.pem bo
a_inv=$(json bo/provenance/provenance.intoto.json 'd["predicate"]["runDetails"]["metadata"]["invocationId"]')
[ "$(json bo/runs/p/0001-a.intoto.json 'd["predicate"]["build"]["invocation_id"]')" = "$a_inv" ]
cd ..

# the record and its log copied into B, listed, B signed again
mkdir -p B/bo/runs
cp -a A/bo/runs/p B/bo/runs/p
grep '  runs/p/' A/bo/SHA256SUMS >>B/bo/SHA256SUMS
cd B
b_inv=$(json bo/provenance/provenance.intoto.json 'd["predicate"]["runDetails"]["metadata"]["invocationId"]')
expect_exit 1 "$AB" sign --signing-key ../A/ed.pem bo
expect_grep "allocbuild: sign: runs/p/0001-a.intoto.json: a run of build $a_inv, not of this OUTDIR's ($b_inv): a record of another OUTDIR" err
expect_grep "allocbuild: sign: 'bo' does not verify ('allocbuild verify bo'): nothing signed" err
check 'sign of an OUTDIR that does not verify wrote nothing' not test -e bo/provenance/provenance.intoto.jsonl
for st in provenance/provenance.intoto.json runs/p/0001-a.intoto.json; do
	sign_openssl ../A/ed.pem bo/$st line.jsonl
	cat line.jsonl >>bo/provenance/provenance.intoto.jsonl
done
rm line.jsonl
expect_exit 1 "$AB" verify --key ../A/ed.pub.pem bo
expect_grep "runs/p/0001-a.intoto.json: a run of build $a_inv, not of this OUTDIR's ($b_inv): a record of another OUTDIR" out
expect_exit 1 "$AB" verify bo
expect_exit 1 "$AB" pr -o pr bo
[ ! -e pr ] || fail "pr wrote a bundle with another OUTDIR's record"

# nor in a bundle: B's, with A's record and log put in and every index made anew
mkdir x && tar -xzf pr0/provenance-same.tar.gz -C x
mkdir -p x/provenance-same/runs && cp -a ../A/bo/runs/p x/provenance-same/runs/p
grep '  runs/p/' ../A/bo/SHA256SUMS >>x/provenance-same/SHA256SUMS
repack_bundle x provenance-same forged.tar.gz
expect_exit 1 "$AB" verify forged.tar.gz
expect_file out <<X
forged.tar.gz: every member matches BUNDLE-SHA256SUMS
runs/p/0001-a.intoto.json: a run of build $a_inv, not of this OUTDIR's ($b_inv): a record of another OUTDIR
FAIL: bundle forged.tar.gz: a check failed (above); signatures not checked (--key PUB.pem)
X
expect_exit 0 "$AB" verify pr0/provenance-same.tar.gz
cd ..

# A rebuilt twice keeps its runs: a record of an earlier build of A still verifies
cd A
expect_exit 0 "$AB" build --force --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" build --force --mirror-dir mirror -o bo r.json
[ "$(json bo/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["internalParameters"]["earlierInvocations"][-1]')" = "$a_inv" ]
expect_exit 0 "$AB" verify bo
expect_exit 0 "$AB" run bo a --name p -- {bin}
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 0 "$AB" verify --key ed.pub.pem bo
expect_grep "verified 5 signed statements in the OUTDIR" out
