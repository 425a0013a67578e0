#!/usr/bin/env bash
# run: bad input and faults. Usage errors, an unknown label, {bin} for a
# variant without a program, a command that does not exist: exit 2 and
# nothing recorded. An artifact changed since the build: refused, exit 1,
# nothing recorded. A JUnit report the command did not write: recorded as
# missing, exit 2. SIGINT to allocbuild reaches the command and the record
# says interrupted; kill -9 leaves no partial record and the next run
# continues the numbering. A file dropped into runs/ fails verify, naming
# it.
. "$TOP/tests/lib.sh"

default_build bo
cp bo/SHA256SUMS sums.before
nothing_recorded() {
	[ ! -e bo/runs ] || { ls -R bo/runs >&2; fail "something was recorded: $*"; }
	cmp -s bo/SHA256SUMS sums.before || fail "SHA256SUMS changed: $*"
}

expect_exit 2 "$AB" run bo stock53 true
expect_grep "allocbuild: run: missing '--' before COMMAND" err
expect_exit 2 "$AB" run bo stock53 --repeat 0 -- true
expect_grep "allocbuild: run: --repeat wants a number from 1 to 100000, not '0'" err
expect_exit 2 "$AB" run bo -- true
expect_grep "allocbuild: run: missing LABEL" err
expect_exit 2 "$AB" run bo stock53 --
expect_grep "allocbuild: run: missing COMMAND after '--'" err
expect_exit 2 "$AB" run bo stock53 --timeout -1 -- true
expect_exit 2 "$AB" run bo stock53 --env 1X=2 -- true
expect_grep "allocbuild: run: --env wants NAME=VALUE, not '1X=2'" err
expect_exit 2 "$AB" run bo stock53 --name ../x -- true
expect_grep "allocbuild: run: '../x' is not a run name" err
expect_exit 2 "$AB" run bo stock53 nosuch -- true
echo "allocbuild: 'bo' has no built variant 'nosuch'" | expect_file err
expect_exit 2 "$AB" run bo stock53 stock53 -- true
expect_grep "label 'stock53' is given twice" err
expect_exit 2 "$AB" run bo stock53 -- echo {bin}
echo "allocbuild: run: '{bin}': variant 'stock53' has no program artifact (its artifacts are libraries)" | expect_file err
expect_exit 2 "$AB" run bo stock53 --env PROG={bin} -- true
expect_exit 2 "$AB" run bo stock53 -- no-such-command-anywhere
echo "allocbuild: run: cannot run 'no-such-command-anywhere': command not found in PATH" | expect_file err
expect_exit 2 "$AB" run bo stock53 -- ./missing
expect_exit 2 "$AB" run nodir stock53 -- true
nothing_recorded "bad input"

# an artifact changed since the build is refused before anything runs
A=bo/variants/stock53/build/lib/libjemalloc_pic.a
cp $A saved.a
printf 'x' >>$A
expect_exit 1 "$AB" run bo special53 fit-only -- touch ran
expect_grep "allocbuild: run: fit-only: '$A' changed since the build: sha256 " err
expect_grep "refusing to run it" err
[ ! -e ran ] || fail "the command ran"
cp saved.a $A
nothing_recorded "a changed artifact"

# --env-only prints the run environment, runs and records nothing
expect_exit 0 "$AB" run --env-only
[ "$(json out 'sorted(d)')" = "['absent', 'aslr', 'cgroup', 'cpu', 'glibc', 'host', 'kernel', 'loadavg', 'machine', 'memory', 'numa', 'swap']" ]
[ "$(json out 'd["memory"]["page_size"]')" = "$(getconf PAGESIZE)" ]
[ "$(json out 'd["cpu"]["online_count"]')" = "$(getconf _NPROCESSORS_ONLN)" ]
expect_exit 2 "$AB" run --env-only bo
nothing_recorded "--env-only"

# a JUnit report the command did not write: recorded as missing, exit 2; the run's own status is its own
expect_exit 2 "$AB" run bo stock53 --name suite --junit report.xml -- true
expect_grep "allocbuild: run: stock53: the command did not write the JUnit report 'report.xml': recorded as missing" err
[ "$(json bo/runs/suite/0001-stock53.intoto.json 'd["predicate"]["junit"]')" = "{'report': 'report.xml', 'state': 'missing'}" ]
[ "$(json bo/runs/suite/0001-stock53.intoto.json 'd["predicate"]["exit_code"]')" = 0 ]
# ... and one left by an earlier run is not this run's
echo '<testsuite tests="1"/>' >report.xml
expect_exit 2 "$AB" run bo stock53 --name suite --junit report.xml -- true
[ "$(json bo/runs/suite/0002-stock53.intoto.json 'd["predicate"]["junit"]["state"]')" = missing ]

# --timeout: killed, recorded
expect_exit 1 "$AB" run bo stock53 --name slow --timeout 0.5 -- sleep 30
[ "$(json bo/runs/slow/0001-stock53.intoto.json 'd["predicate"]["status"]')" = "timed out" ]
[ "$(json bo/runs/slow/0001-stock53.intoto.json 'd["predicate"]["signal"]')" = 9 ]
# a command killed by a signal of its own
cat >selfkill <<'SH'
#!/bin/sh
kill -SEGV $$
SH
chmod +x selfkill
expect_exit 1 "$AB" run bo stock53 --name slow -- ./selfkill
[ "$(json bo/runs/slow/0002-stock53.intoto.json 'd["predicate"]["status"] + " " + d["predicate"]["signal_name"]')" = "signaled SEGV" ]
expect_exit 0 "$AB" verify bo

# SIGINT to allocbuild: passed on to the command, recorded as interrupted, no further run
cat >sleeper <<'SH'
#!/bin/sh
trap 'echo "got INT"; exit 130' INT
echo started
while :; do sleep 0.1; done
SH
chmod +x sleeper
# (a script's background job starts with SIGINT ignored, and allocbuild leaves an ignored signal
# ignored, as nohup asks: give it the default disposition back)
cat >dflint <<'PY'
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])
PY
python3 dflint "$AB" run bo stock53 special53 --name int -- ./sleeper >int.out 2>int.err &
abpid=$!
for i in $(seq 100); do grep -q started int.out 2>/dev/null && break; sleep 0.1; done
kill -INT $abpid
rc=0
wait $abpid || rc=$?
[ "$rc" = 130 ] || { cat int.err >&2; fail "allocbuild ended with $rc, not by SIGINT"; }
[ "$(json bo/runs/int/0001-stock53.intoto.json 'd["predicate"]["status"]')" = interrupted ]
[ "$(json bo/runs/int/0001-stock53.intoto.json 'd["predicate"]["exit_code"]')" = 130 ]
expect_grep "got INT" bo/runs/int/0001-stock53.log
[ ! -e bo/runs/int/0002-special53.intoto.json ] || fail "a run started after the interrupt"
expect_exit 0 "$AB" verify bo

# SIGTERM likewise
"$AB" run bo stock53 --name term -- ./sleeper >t.out 2>t.err &
abpid=$!
for i in $(seq 100); do grep -q started t.out 2>/dev/null && break; sleep 0.1; done
kill -TERM $abpid
rc=0
wait $abpid || rc=$?
[ "$rc" = 143 ] || fail "allocbuild ended with $rc, not by SIGTERM"
[ "$(json bo/runs/term/0001-stock53.intoto.json 'd["predicate"]["status"] + " " + d["predicate"]["signal_name"]')" = "interrupted TERM" ]

# kill -9 of allocbuild: no partial record; the next run continues the numbering
"$AB" run bo stock53 --name int -- ./sleeper >k.out 2>k.err &
abpid=$!
for i in $(seq 100); do grep -q started k.out 2>/dev/null && break; sleep 0.1; done
kill -9 $abpid
wait $abpid || true
ls bo/runs/int >left
expect_no_grep "0002-stock53.intoto.json" left
grep -q '^0002-stock53.log.tmp\.' left || fail "no temporary log was left: $(cat left)"
expect_exit 1 "$AB" verify bo
expect_grep "runs/int/0002-stock53.log.tmp." out
expect_exit 0 "$AB" run bo stock53 --name int -- true
expect_grep "allocbuild: removed 'bo/runs/int/0002-stock53.log.tmp." err
ls bo/runs/int >left
expect_file left <<LIST
0001-stock53.intoto.json
0001-stock53.log
0001-stock53.series.csv
0002-stock53.intoto.json
0002-stock53.log
0002-stock53.series.csv
LIST
expect_exit 0 "$AB" verify bo

# a file dropped into runs/ that no run recorded fails verify, naming it
echo forged >bo/runs/int/0003-stock53.log
expect_exit 1 "$AB" verify bo
{ echo "runs/int/0003-stock53.log: not listed in SHA256SUMS: not a file this build or a run recorded"; echo "FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)"; } | expect_file out
# ... listed in SHA256SUMS too: still no run recorded it
sha256sum bo/runs/int/0003-stock53.log | sed 's,bo/,,' >>bo/SHA256SUMS
expect_exit 1 "$AB" verify bo
{ echo "runs/int/0003-stock53.log: listed in SHA256SUMS but recorded by no run"; echo "FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)"; } | expect_file out
rm bo/runs/int/0003-stock53.log
sed -i '$d' bo/SHA256SUMS
# a record edited, or its log
cp bo/runs/int/0001-stock53.log saved.log
echo extra >>bo/runs/int/0001-stock53.log
expect_exit 1 "$AB" verify bo
expect_grep "runs/int/0001-stock53.log: expected " out
cp saved.log bo/runs/int/0001-stock53.log
expect_exit 0 "$AB" verify bo
