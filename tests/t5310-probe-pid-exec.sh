#!/usr/bin/env bash
# probe --pid of a process that executes another program while it is
# read: the pid and the start time stay, the program changes; the probe
# compares the image (the executable's device and inode, where its code
# and stack are) before and after its reads, and says so, exit 2, instead
# of reporting one program's name with another's executable as ok.
. "$TOP/tests/lib.sh"

# a shell that waits for ./go, then becomes sleep
sh -c 'while [ ! -e go ]; do sleep 0.02; done; exec sleep 300' &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ "$(readlink /proc/$pid/exe)" = "$(readlink -f /bin/sh)" ] && break; sleep 0.05; done
# the probe stops after its first read until ./paused is removed; the process execs meanwhile
rc=0
env ALLOCBUILD_TEST_PID_PAUSE="$PWD/paused" "$AB" probe --pid $pid >out 2>err &
prober=$!
for _ in $(seq 300); do [ -e paused ] && break; sleep 0.05; done
[ -e paused ] || fail "the probe did not reach its pause"
touch go
sleep_bin=$(readlink -f "$(command -v sleep)")
for _ in $(seq 200); do [ "$(readlink /proc/$pid/exe)" = "$sleep_bin" ] && break; sleep 0.02; done
[ "$(readlink /proc/$pid/exe)" = "$sleep_bin" ] || fail "the process did not exec sleep"
rm paused
wait $prober || rc=$?
[ $rc = 2 ] || { cat out err >&2; fail "expected exit 2 for a process that execs while read, got $rc"; }
expect_file err <<X
allocbuild: probe: process $pid executed another program while it was read ('$(readlink -f /bin/sh)', then '$sleep_bin'): what was read mixes the two; probe it again
X
[ ! -s out ] || fail "a record was printed for a mixed read"

# probed again, the one program it now runs: ok
expect_exit 0 "$AB" probe --pid $pid
expect_grep "executable   $sleep_bin" out
expect_grep "result       ok" out
