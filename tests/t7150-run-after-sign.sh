#!/usr/bin/env bash
# A run recorded in a signed OUTDIR: its record is a Statement the
# envelopes do not carry. run says so (a warning, its record kept), and pr
# refuses, exit 2, naming the record, and writes nothing (no pr.md saying
# "every in-toto statement of the build is signed" beside a bundle that
# verify --key fails) until it is signed again, by sign or by pr --sign.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build signed bin/fake
expect_exit 0 "$AB" run bo a --name p -- {bin}
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 0 "$AB" verify --key ed.pub.pem bo

# a run after sign: warned, recorded
expect_exit 0 "$AB" run bo a --name p -- {bin} again
echo "allocbuild: warning: run: 'bo' is signed and the records of this run are not: sign it again (allocbuild sign --signing-key KEY.pem 'bo') before pr" >want
grep '^allocbuild: warning' err | diff -u want - || fail "run did not say that its record is unsigned"
[ -f bo/runs/p/0002-a.intoto.json ] || fail "the run was not recorded"
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_grep "runs/p/0002-a.intoto.json: not signed: no line of provenance/provenance.intoto.jsonl carries it" out

# pr refuses, nothing written
expect_exit 2 "$AB" pr -o pr bo
echo "allocbuild: pr: 'bo' is signed but not 'runs/p/0002-a.intoto.json', recorded since: sign it again (allocbuild sign --signing-key KEY.pem 'bo', or pr --sign KEY.pem)" | expect_file err
[ ! -e pr ] && [ ! -e bo/pr-details.md ] || fail "a refused pr wrote something"

# a second unsigned record is named too
expect_exit 0 "$AB" run bo a --name q -- {bin}
expect_exit 2 "$AB" pr -o pr bo
echo "allocbuild: pr: 'bo' is signed but not 'runs/p/0002-a.intoto.json', 'runs/q/0001-a.intoto.json', recorded since: sign it again (allocbuild sign --signing-key KEY.pem 'bo', or pr --sign KEY.pem)" | expect_file err

# pr --sign signs them all first: pr.md's claim holds, the bundle verifies
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
expect_grep "signed 7 statements: bo/provenance/provenance.intoto.jsonl" out
expect_grep "Every in-toto statement of the build is signed" pr/pr.md
expect_exit 0 "$AB" verify --key ed.pub.pem pr/provenance-signed.tar.gz
expect_grep "verified 7 signed statements in the bundle" out

# after sign alone pr goes on too
expect_exit 0 "$AB" run bo a --name q -- {bin}
expect_exit 2 "$AB" pr -o pr2 bo
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 0 "$AB" pr -o pr2 bo
expect_exit 0 "$AB" verify --key ed.pub.pem pr2/provenance-signed.tar.gz
expect_grep "verified 8 signed statements in the bundle" out

# an OUTDIR never signed: run says nothing of signatures, pr goes on
mkdir u && cd u
fake_build unsigned bin/fake
expect_exit 0 "$AB" run bo a -- {bin}
expect_no_grep "signed" err
expect_exit 0 "$AB" pr -o pr bo
