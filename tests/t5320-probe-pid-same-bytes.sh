#!/usr/bin/env bash
# probe --pid --against --expect of a process that several variants are:
# two builds that give the same bytes (normal53 and relink53 of
# tests/fakeproj.sh's twins, as Fluent Bit's relink of 5.3.1 with the
# 5.3.0 archive is its normal 5.3.0 build) with the same environment. The
# expectation of either is met, and the other is named (it was "expected
# variant 'normal53', the process is none of the build's variants", exit
# 1); another variant's expectation is not; without one, the process is
# ambiguous, as before.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

pid=
stop() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; }
trap stop EXIT

make_twins_recipe r.json
expect_exit 0 "$AB" build -o bo r.json
a=$(sed -n 's|^\([0-9a-f]\{64\}\)  variants/normal53/build/bin/wait$|\1|p' bo/SHA256SUMS)
check "normal53 and relink53 are the same bytes" grep -qxF "$a  variants/relink53/build/bin/wait" bo/SHA256SUMS
check "other is other bytes" not grep -qF "$a  variants/other/build/bin/wait" bo/SHA256SUMS
bo/variants/normal53/build/bin/wait >ready &
pid=$!
for _ in $(seq 100); do [ -s ready ] && break; sleep 0.05; done
check "the program is ready" grep -qx "ready $pid" ready

expect_exit 0 "$AB" probe --pid $pid --against bo --expect normal53
sed -n '/^variant/,$p' out >said
expect_file said <<'X'
variant      normal53 (by its binary, in bo)
same as      relink53 (the same bytes and environment)
environment  matches
result       ok
X
check "nothing on stderr" test ! -s err
expect_exit 0 "$AB" probe --pid $pid --against bo --expect relink53 --json
check "the record: relink53, the same as normal53" test \
	"$(json out '(d["match"]["variant"], d["match"]["same_as"], d["match"]["by"], d["problems"])')" = \
	"('relink53', ['normal53'], 'binary', [])"
expect_exit 1 "$AB" probe --pid $pid --against bo --expect other
expect_file err <<X
allocbuild: probe: pid $pid: expected variant 'other', the process is one of normal53 and relink53 (the same binary and environment), not it
X
expect_exit 1 "$AB" probe --pid $pid --against bo
expect_file err <<X
allocbuild: probe: pid $pid: the process could be any of normal53 and relink53 (the same binary and environment)
X
expect_grep "variant      one of normal53 and relink53 (by their binary, in bo)" out
