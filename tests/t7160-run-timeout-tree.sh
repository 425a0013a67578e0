#!/usr/bin/env bash
# run and the processes its command starts: what the command leaves
# running, in its process group or out of it (setsid: another session),
# holding its stdout or not, is killed when the command exits, so run ends
# with the command and its record says how the command ended; --timeout
# kills the whole tree at the deadline, out-of-group descendants included.
# Before, a setsid'd child holding stdout made `run --timeout 5` take 40 s
# and record "timed out" with exit_code 0, and every leftover outlived run.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build tree bin/fake
rec() { json "bo/runs/$1.intoto.json" "$2"; }
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# gone PIDFILE: the process it names ends within 5 s (killed by run, reaped by run or init)
gone() {
	[ -s "$1" ] || fail "no pid in $1"
	for _ in $(seq 100); do alive "$1" || return 0; sleep 0.05; done
	fail "the process of $1 ($(cat "$1")) still runs after run ended"
}
trap 'for f in *.pid; do kill -9 "$(cat "$f")" 2>/dev/null || true; done' EXIT

# 1. the command exits at once, a setsid'd child holding its stdout: run ends
# with the command (not 40 s later), exit 0 recorded, the child killed
start=$(date +%s)
expect_exit 0 "$AB" run bo a --name held --timeout 5 -- sh -c 'setsid sh -c "echo \$\$ >held.pid; exec sleep 40" & while [ ! -s held.pid ]; do sleep 0.01; done; echo started'
[ $(($(date +%s) - start)) -lt 5 ] || fail "run waited for the child that held its stdout"
[ "$(rec held/0001-a 'd["predicate"]["status"], d["predicate"]["exit_code"]')" = "('exited', 0)" ]
expect_grep started bo/runs/held/0001-a.log
gone held.pid

# 2. the command outlives --timeout, its setsid'd child too: both killed at the deadline
start=$(date +%s)
expect_exit 1 "$AB" run bo a --name slow --timeout 1 -- sh -c 'setsid sh -c "echo \$\$ >slow.pid; exec sleep 40" & exec sleep 40'
[ $(($(date +%s) - start)) -lt 8 ] || fail "--timeout 1 took $(($(date +%s) - start)) s"
[ "$(rec slow/0001-a 'd["predicate"]["status"], d["predicate"]["exit_code"], d["predicate"]["signal"]')" = "('timed out', None, 9)" ]
gone slow.pid

# 3. a daemon (double fork, setsid, stdio to /dev/null) and a background job
# in the command's group: both end with the command
expect_exit 0 "$AB" run bo a --name daemon -- sh -c '
	(setsid sh -c "echo \$\$ >daemon.pid; exec sleep 40" </dev/null >/dev/null 2>&1 &)
	sleep 40 </dev/null >/dev/null 2>&1 & echo $! >job.pid
	while [ ! -s daemon.pid ]; do sleep 0.01; done'
[ "$(rec daemon/0001-a 'd["predicate"]["status"], d["predicate"]["exit_code"]')" = "('exited', 0)" ]
gone daemon.pid
gone job.pid

# 4. a command that waits for its children is not cut short
expect_exit 0 "$AB" run bo a --name waits -- sh -c 'setsid sh -c "sleep 0.3; echo child done" & wait'
expect_grep "child done" bo/runs/waits/0001-a.log
expect_exit 0 "$AB" verify bo

# 5. run interrupted (SIGTERM to allocbuild): the command gets it, and what
# it started in another session ends with it
rm -f term.pid
"$AB" run bo a --name term -- sh -c 'setsid sh -c "echo \$\$ >term.pid; exec sleep 40" & exec sleep 40' >out 2>err &
runner=$!
for _ in $(seq 200); do [ -s term.pid ] && break; sleep 0.05; done
[ -s term.pid ] || fail "the command did not start its child"
kill -TERM $runner
rc=0
wait $runner || rc=$?
[ $rc = 143 ] || fail "run did not end by SIGTERM (exit $rc)"
[ "$(rec term/0001-a 'd["predicate"]["status"]')" = interrupted ]
gone term.pid

# 6. run killed with -9: its guard ends the command's group, the command
# and its children in the group (before, PR_SET_PDEATHSIG ended the
# command alone and its children ran on)
rm -f k.pid kjob.pid
"$AB" run bo a --name k9 -- sh -c 'sleep 40 & echo $! >kjob.pid; echo $$ >k.pid; wait' >out 2>err &
runner=$!
for _ in $(seq 200); do [ -s k.pid ] && [ -s kjob.pid ] && break; sleep 0.05; done
[ -s k.pid ] && [ -s kjob.pid ] || fail "the command did not start"
kill -9 $runner
wait $runner 2>/dev/null || true
gone k.pid
gone kjob.pid
