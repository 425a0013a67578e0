#!/usr/bin/env bash
# run --junit keeps only a report that is one: a regular file, not a
# symbolic link (not followed: before, a link to any file of the user's,
# a private key say, was copied into the OUTDIR and the bundle), and a
# JUnit report (else only its sha256 and size are recorded). Either
# refusal is said, exit 2, the run's own record kept with the state.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build ju bin/fake
junit=$(cat <<'X'
<?xml version="1.0"?>
<testsuites tests="2" failures="0" errors="0" skipped="0" time="0.1"><testsuite name="s" tests="2"/></testsuites>
X
)
printf '%s\n' "$junit" >good.xml
echo "PRIVATE s3cret key" >private.txt

# a symbolic link written by the command: not followed, not kept
expect_exit 2 "$AB" run bo a --name link --junit report.xml -- ln -s "$PWD/private.txt" report.xml
echo "allocbuild: run: a: the JUnit report 'report.xml' is a symbolic link: not kept, its state recorded" >want
grep '^allocbuild: run' err | diff -u want - || fail "the link was not refused"
[ "$(json bo/runs/link/0001-a.intoto.json 'd["predicate"]["junit"]')" = "{'report': 'report.xml', 'state': 'a symbolic link'}" ]
[ "$(json bo/runs/link/0001-a.intoto.json 'd["predicate"]["status"], d["predicate"]["exit_code"]')" = "('exited', 0)" ]
rm report.xml

# a file that is not a JUnit report: its digest recorded, its bytes not kept
expect_exit 2 "$AB" run bo a --name notj --junit report.xml -- cp private.txt report.xml
echo "allocbuild: run: a: the JUnit report 'report.xml' is not a JUnit report: not kept, its state recorded" >want
grep '^allocbuild: run' err | diff -u want - || fail "the non-report was not refused"
[ "$(json bo/runs/notj/0001-a.intoto.json 'd["predicate"]["junit"]')" = "{'report': 'report.xml', 'sha256': '$(sha256sum <private.txt | cut -d" " -f1)', 'size': 19, 'state': 'not a JUnit report'}" ]
rm report.xml

# a real report is kept, as before
expect_exit 0 "$AB" run bo a --name good --junit report.xml -- cp good.xml report.xml
cmp good.xml bo/runs/good/0001-a.junit.xml || fail "the report was not kept"
[ "$(json bo/runs/good/0001-a.intoto.json 'd["predicate"]["junit"]["state"]')" = read ]

# nothing of the private file in the OUTDIR or the bundle
[ -z "$(ls bo/runs/link bo/runs/notj | grep junit)" ] || fail "a refused report was copied"
expect_exit 0 "$AB" verify bo
expect_exit 0 "$AB" pr -o pr bo
mkdir x && tar -xzf pr/provenance-ju.tar.gz -C x
if grep -rl "s3cret" bo pr x; then fail "the private file reached the OUTDIR or the bundle"; fi
