#!/usr/bin/env bash
# run: a variant with a program artifact (the fake autotools project's
# bin/fake): {bin} in the arguments and in --env, ALLOCBUILD_BIN, the
# program as the record's subject; the record names no path of this
# machine (OUTDIR's absolute path is "OUTDIR" in argv and the variables
# set, the directory the command ran in is where it is from OUTDIR); then
# a build over the OUTDIR keeps the runs' lines of SHA256SUMS, and verify
# still passes.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
bin=$PWD/bo/variants/t1/build/bin/fake
expect_exit 0 "$AB" run bo t1 --name prog --repeat 2 -- {bin}
expect_grep "fake" bo/runs/prog/0001-t1.log
R=bo/runs/prog/0001-t1.intoto.json
P='d["predicate"]'
check "argv as run, OUTDIR's place hidden" test "$(json $R "$P['argv']")" = "['OUTDIR/variants/t1/build/bin/fake']"
check "where it ran, from OUTDIR" test "$(json $R "$P['cwd']")" = OUTDIR/..
check "the artifact's kind" test "$(json $R "$P['artifact']['kind']")" = program
check "the subject" test "$(json $R 'd["subject"][0]["name"]')" = variants/t1/build/bin/fake
check "the subject's digest" test "$(json $R 'd["subject"][0]["digest"]["sha256"]')" = "$(sha256sum <"$bin" | cut -c1-64)"
check "the variables set" test "$(json $R "$P['env_overrides']")" = \
	"{'ALLOCBUILD_LABEL': 't1', 'ALLOCBUILD_BIN': 'OUTDIR/variants/t1/build/bin/fake'}"
check "no path of this machine in the record" not grep -qF "$PWD" $R
expect_exit 0 "$AB" run bo t1 --name env --env PROG={bin} --env WHO={label} -- printenv PROG WHO ALLOCBUILD_BIN
printf '%s\nt1\n%s\n' "$bin" "$bin" | expect_file bo/runs/env/0001-t1.log
check "--env {bin} as recorded" test "$(json bo/runs/env/0001-t1.intoto.json "$P['env_overrides']['PROG']")" = \
	OUTDIR/variants/t1/build/bin/fake
expect_exit 0 "$AB" verify bo

# a build rewrites SHA256SUMS from its records and keeps the runs' lines
grep '  runs/' bo/SHA256SUMS >runs.before
[ "$(wc -l <runs.before)" = 9 ] || fail "not each run's record, log and series listed"
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
grep '  runs/' bo/SHA256SUMS | cmp - runs.before || fail "the no-op build dropped the runs' lines"
expect_exit 0 "$AB" verify bo
expect_exit 0 "$AB" build --force --mirror-dir mirror -o bo r.json
grep '  runs/' bo/SHA256SUMS | cmp - runs.before || fail "the forced build dropped the runs' lines"
expect_exit 0 "$AB" verify bo
# the next run continues the numbering
expect_exit 0 "$AB" run bo t1 --name prog -- {bin}
[ -f bo/runs/prog/0003-t1.intoto.json ] || fail "the numbering did not continue"
expect_exit 0 "$AB" verify bo
# runs removed on purpose: verify names them until a build drops their lines
rm -r bo/runs/env
expect_exit 1 "$AB" verify bo
expect_grep "runs/env/0001-t1.intoto.json: expected " out
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_no_grep "  runs/env/" bo/SHA256SUMS
[ "$(grep -c '  runs/prog/' bo/SHA256SUMS)" = 9 ] || fail "the runs of prog are not listed"
expect_exit 0 "$AB" verify bo
# the old name of --env still sets, with a warning
expect_exit 0 "$AB" run bo t1 --name old --set WHO=old -- printenv WHO
expect_grep "allocbuild: warning: run --set is deprecated: set a variable for the command with --env NAME=VALUE, as probe does" err
expect_grep "old" bo/runs/old/0001-t1.log
# run from inside OUTDIR, and from a directory elsewhere: where it ran is OUTDIR/SUB, or not recorded
mkdir -p bo/tmp elsewhere
(cd bo/tmp && expect_exit 0 "$AB" run .. t1 --name in -- ../variants/t1/build/bin/fake)
check "cwd inside OUTDIR" test "$(json bo/runs/in/0001-t1.intoto.json "$P['cwd']")" = OUTDIR/tmp
top=$PWD
(cd elsewhere && expect_exit 0 "$AB" run ../bo t1 --name out -- {bin} "$top/bo")
check "cwd elsewhere: null" test "$(json bo/runs/out/0001-t1.intoto.json "$P['cwd']")" = None
check "an argument naming OUTDIR" test "$(json bo/runs/out/0001-t1.intoto.json "$P['argv']")" = \
	"['OUTDIR/variants/t1/build/bin/fake', 'OUTDIR']"
