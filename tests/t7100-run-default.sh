#!/usr/bin/env bash
# run: a small program linked against the default recipe's stock53 and
# special53 archives, run through `allocbuild run` with --repeat 3 --rotate:
# the rotation, the runtime environment of each label (fit-only sets
# MALLOC_CONF, stock53 has the caller's removed), the effective jemalloc
# option the program reads back, a failing command's exit code, a JUnit
# report with failures, a secret of the caller absent from every record
# and log, the driver recorded and warned about (no artifact) and, with
# --program, the programs it runs kept as the records' subjects, verify
# and sign over the runs, and pr.md's Runs section rendered with cmark-gfm.
. "$TOP/tests/lib.sh"

default_build bo
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mallctl(const char *, void *, size_t *, void *, size_t);

/* prints the lg_extent_max_active_fit jemalloc runs with; exits with argv[2] */
int
main(int argc, char **argv)
{
	size_t v = 0, n = sizeof(v);
	char *p = malloc(1000);

	if (!p || mallctl("opt.lg_extent_max_active_fit", &v, &n, NULL, 0))
		return 3;
	memset(p, 1, 1000);
	printf("%s lg_extent_max_active_fit=%zu\n", argc > 1 ? argv[1] : "?", v);
	free(p);
	return argc > 2 ? atoi(argv[2]) : 0;
}
C
for l in stock53 special53; do
	cc -O1 -o prog-$l prog.c bo/variants/$l/build/lib/libjemalloc_pic.a -lpthread -ldl -lm ||
		fail "cannot link against $l's archive"
done
cp prog-stock53 prog-fit-only
# the driver picks the program of the label it runs for; prints no environment
cat >drive <<'SH'
#!/bin/sh
exec ./prog-"$ALLOCBUILD_LABEL" "$@"
SH
chmod +x drive

export MALLOC_CONF=junk:1 AWS_SECRET_ACCESS_KEY=hunter2-do-not-record
cp bo/SHA256SUMS sums.before
expect_exit 0 "$AB" run bo stock53 special53 fit-only --name bench --repeat 3 --rotate -- ./drive {label}
# the driver is no artifact of the build, and runs programs it does not name: said once, with the fixes
check "one warning of the program" test "$(grep -c "its program './drive' (sha256 $(sha256sum <drive | cut -c1-12)) is not an artifact of 'bo'" err)" = 1
# the rotation: a b c, b c a, c a b; one record per run, numbered
ls bo/runs/bench | grep 'intoto.json$' >records
expect_file records <<LIST
0001-stock53.intoto.json
0002-special53.intoto.json
0003-fit-only.intoto.json
0004-special53.intoto.json
0005-fit-only.intoto.json
0006-stock53.intoto.json
0007-fit-only.intoto.json
0008-stock53.intoto.json
0009-special53.intoto.json
LIST
expect_grep "[5/9] fit-only (repetition 2/3): exit 0" err
R=bo/runs/bench
P='d["predicate"]'
[ "$(json $R/0004-special53.intoto.json "$P['order']")" = "['special53', 'fit-only', 'stock53']" ]
[ "$(json $R/0004-special53.intoto.json "$P['repetition']")" = 2 ]
# each program saw its label's option: the baked 30, the run-time 30, the default 6
expect_grep "stock53 lg_extent_max_active_fit=6" $R/0001-stock53.log
expect_grep "special53 lg_extent_max_active_fit=30" $R/0002-special53.log
expect_grep "fit-only lg_extent_max_active_fit=30" $R/0003-fit-only.log
expect_grep "fit-only lg_extent_max_active_fit=30" out
# what the tool set and removed, never the inherited environment
# (the archive an archive-only variant is benchmarked as: ALLOCBUILD_ARCHIVE)
A53=OUTDIR/variants/stock53/build/lib/libjemalloc_pic.a
[ "$(json $R/0003-fit-only.intoto.json "$P['env_overrides']")" = \
	"{'MALLOC_CONF': 'lg_extent_max_active_fit:30', 'ALLOCBUILD_LABEL': 'fit-only', 'ALLOCBUILD_ARCHIVE': '$A53'}" ] ||
	fail "fit-only's overrides: $(json $R/0003-fit-only.intoto.json "$P['env_overrides']")"
[ "$(json $R/0003-fit-only.intoto.json "$P['env_removed']")" = "[]" ]
[ "$(json $R/0001-stock53.intoto.json "$P['env_overrides']")" = "{'ALLOCBUILD_LABEL': 'stock53', 'ALLOCBUILD_ARCHIVE': '$A53'}" ]
[ "$(json $R/0001-stock53.intoto.json "$P['env_removed']")" = "['MALLOC_CONF']" ] || fail "stock53's removed"
[ "$(json $R/0001-stock53.intoto.json "$P['argv']")" = "['./drive', 'stock53']" ]
check "cwd, from OUTDIR" test "$(json $R/0001-stock53.intoto.json "$P['cwd']")" = OUTDIR/..
check "the driver, by name and digest" test "$(json $R/0001-stock53.intoto.json "$P['program']")" = \
	"{'arg': 0, 'path': None, 'name': 'drive', 'sha256': '$(sha256sum <drive | cut -c1-64)', 'artifact': False}"
[ "$(json $R/0001-stock53.intoto.json "$P['exit_code']")" = 0 ]
[ "$(json $R/0001-stock53.intoto.json "$P['status']")" = exited ]
[ "$(json $R/0001-stock53.intoto.json "$P['maxrss_kb'] > 0")" = True ]
[ "$(json $R/0001-stock53.intoto.json "$P['log']['sha256']")" = "$(sha256sum <$R/0001-stock53.log | cut -c1-64)" ]
# the same environment `allocbuild env` prints
(unset MALLOC_CONF; "$AB" env bo fit-only) >env.fit
echo "export MALLOC_CONF='lg_extent_max_active_fit:30'" | expect_file env.fit
"$AB" env bo stock53 >env.stock
echo "unset MALLOC_CONF" | expect_file env.stock
# the Statement: the archive run, the log its byproduct
stock=$(sha256sum <bo/variants/stock53/build/lib/libjemalloc_pic.a | cut -c1-64)
[ "$(json $R/0003-fit-only.intoto.json 'd["predicateType"]')" = https://allocbuild.dev/run/v1 ]
[ "$(json $R/0003-fit-only.intoto.json 'd["subject"]')" = \
	"[{'name': 'variants/stock53/build/lib/libjemalloc_pic.a', 'digest': {'sha256': '$stock'}}]" ]
[ "$(json $R/0003-fit-only.intoto.json "$P['artifact']['kind']")" = "allocator archive" ]
[ "$(json $R/0003-fit-only.intoto.json "$P['build']['invocation_id']")" = \
	"$(json bo/provenance/provenance.intoto.json 'd["predicate"]["runDetails"]["metadata"]["invocationId"]')" ]
# the run environment, once per run: a file that is absent is null and listed
for k in kernel glibc aslr; do
	[ "$(json $R/0001-stock53.intoto.json "$P['environment']['$k'] is not None")" = True ] || fail "no $k"
done
[ "$(json $R/0001-stock53.intoto.json "$P['environment']['memory']['page_size']")" = "$(getconf PAGESIZE)" ]
[ "$(json $R/0001-stock53.intoto.json "$P['environment']['swap']['activity'] is not None")" = True ]
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ -r $thp ]; then
	[ "$(json $R/0001-stock53.intoto.json "$P['environment']['memory']['thp_enabled']")" = \
		"$(sed 's/.*\[\(.*\)\].*/\1/' $thp)" ] || fail "THP mode"
else
	[ "$(json $R/0001-stock53.intoto.json "$P['environment']['memory']['thp_enabled']")" = None ]
	[ "$(json $R/0001-stock53.intoto.json "'$thp' in $P['environment']['absent']")" = True ]
fi
gov=/sys/devices/system/cpu/cpufreq/boost
[ -r $gov ] || [ "$(json $R/0001-stock53.intoto.json "'$gov' in $P['environment']['absent']")" = True ]
# SHA256SUMS: the build's lines unchanged, then every run file
head -n "$(wc -l <sums.before)" bo/SHA256SUMS | cmp - sums.before || fail "the build's lines changed"
[ "$(grep -c '  runs/bench/' bo/SHA256SUMS)" = 27 ] || fail "not every run's record, log and series listed"
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo
# --program: the program the driver runs for each label becomes the records' subject, kept once
expect_exit 0 "$AB" run bo stock53 fit-only --name kept --program ./prog-{label} -- ./drive {label}
check "no warning with --program" not grep -q 'not an artifact' err
kept=runs/kept/programs/$(sha256sum <prog-fit-only | cut -c1-12)-prog-fit-only
check "fit-only's subject: its program, kept" test "$(json bo/runs/kept/0002-fit-only.intoto.json 'd["subject"][0]["name"]')" = "$kept"
cmp prog-fit-only bo/$kept || fail "the kept program is not the one that ran"
check "the label's archive still recorded" test "$(json bo/runs/kept/0002-fit-only.intoto.json "$P['artifact']['path']")" = \
	variants/stock53/build/lib/libjemalloc_pic.a
expect_exit 0 "$AB" verify bo

# a failing command: its exit code recorded, allocbuild exits 1; a JUnit report with failures
cat >suite <<'SH'
#!/bin/sh
# a test suite: writes its JUnit report, one failure, exit 1
cat >"$1" <<XML
<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4" time="0.50">
<testcase classname="t" name="ok"/><testcase classname="t" name="bad"><failure message="boom"/></testcase>
</testsuite></testsuites>
XML
echo "ran 4 tests, 1 failure"
exit 1
SH
chmod +x suite
expect_exit 1 "$AB" run bo special53 --name valgrind --junit report.xml -- ./suite report.xml
V=bo/runs/valgrind/0001-special53.intoto.json
[ "$(json $V "$P['exit_code']")" = 1 ]
[ "$(json $V "$P['junit']['summary']")" = "{'tests': 4, 'failures': 1, 'errors': 0, 'skipped': 1, 'time': 0.5}" ]
cmp report.xml bo/runs/valgrind/0001-special53.junit.xml || fail "the report is not kept"
[ "$(json $V "[b['name'] for b in $P['byproducts']]")" = \
	"['runs/valgrind/0001-special53.log', 'runs/valgrind/0001-special53.junit.xml', 'runs/valgrind/0001-special53.series.csv']" ]
# ... and its reruns, all kept
expect_exit 1 "$AB" run bo special53 --name valgrind -- ./drive special53 7
[ "$(json bo/runs/valgrind/0002-special53.intoto.json "$P['exit_code']")" = 7 ]
sed -i 's/^exit 1$/exit 0/' suite
expect_exit 0 "$AB" run bo special53 --name valgrind --junit report.xml -- ./suite report.xml
expect_exit 0 "$AB" verify bo
# a secret the caller exported is in no record, log or manifest
! grep -rlF hunter2-do-not-record bo || fail "the secret was recorded"

# the run Statements are signed with the build's
openssl genpkey -algorithm ed25519 -out k.pem 2>/dev/null
openssl pkey -in k.pem -pubout -out k.pub
expect_exit 0 "$AB" sign bo --key k.pem
expect_grep "signed 19 statements" out
expect_exit 0 "$AB" verify -v --key k.pub bo
expect_grep "ok: runs/valgrind/0001-special53.intoto.json, signed by ed25519" out
expect_grep "1 subject and 3 byproducts match" out

# pr: the Runs section, rendered; the records and logs in the bundle
expect_exit 0 "$AB" pr -o pr1 bo
cmark-gfm --extension table --extension autolink pr1/pr.md >pr.html
expect_grep "<h3>Runs</h3>" pr.html
expect_grep "<td><code>fit-only</code></td>" pr.html
sed -n '/^### Runs/,/^### Flow/p' pr1/pr.md >runs.md
expect_grep '| `fit-only` | 3 | 0, 0, 0 |' runs.md
expect_grep '| `special53` | 3 | 0, 0, 0 |' runs.md
expect_grep '| `special53` | 3 | 1, 7, 0 | ' runs.md
expect_grep "| \`fit-only\` | 1 | 0 | \`prog-fit-only\` \`$(sha256sum <prog-fit-only | cut -c1-12)\` (kept in the bundle) | – |" runs.md
expect_grep "| \`stock53\` | 3 | 0, 0, 0 | \`drive\` \`$(sha256sum <drive | cut -c1-12)\` ⚠ not an artifact of this build | – |" runs.md
expect_grep "8 tests, 2 failures, 0 errors, 2 skipped" runs.md
expect_grep "The repetitions of a label differ in exit status:" runs.md
expect_grep "ran 4 tests, 1 failure" pr1/pr.md
expect_no_grep "hunter2" pr1/pr.md
tar -tzf pr1/provenance-jemalloc-5.3.0-policy.tar.gz >members
expect_grep "provenance-jemalloc-5.3.0-policy/runs/bench/0009-special53.intoto.json" members
expect_grep "provenance-jemalloc-5.3.0-policy/runs/valgrind/0001-special53.junit.xml" members
expect_grep "provenance-jemalloc-5.3.0-policy/runs/bench/0001-stock53.log" members
expect_grep "provenance-jemalloc-5.3.0-policy/$kept" members
expect_exit 0 "$AB" verify pr1/provenance-jemalloc-5.3.0-policy.tar.gz
mkdir x && tar -xzf pr1/provenance-jemalloc-5.3.0-policy.tar.gz -C x
! grep -rlF hunter2-do-not-record x || fail "the secret is in the bundle"
