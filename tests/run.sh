#!/usr/bin/env bash
# Test runner: unit tests, fuzz-corpus replays, then the end-to-end scripts
# tests/tNNNN-*.sh, each in its own scratch directory.
# usage: tests/run.sh [PATTERN]      (PATTERN selects scripts by substring)
# env: ALLOCBUILD (binary under test), O (object dir), TEST_JOBS (default 2),
#      TEST_TIMEOUT (seconds per script, default 1200)
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
export TOP
export ALLOCBUILD=${ALLOCBUILD:-$TOP/allocbuild}
O=${O:-.obj}
pattern=${1:-}
jobs=${TEST_JOBS:-2}
scratch_root=$TOP/tests/.scratch
mkdir -p "$scratch_root" "$TOP/tests/.cache"
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# real upstream sources, fetched once per machine from Debian (offline here)
export AB_TEST_MIRROR=$TOP/tests/.cache/mirror
if ! "$TOP/scripts/debian-mirror.sh" "$AB_TEST_MIRROR" >/dev/null; then
	echo "run.sh: cannot fill the test mirror with Debian's sources" >&2
	exit 1
fi

run_one() { # name, command...
	local name=$1; shift
	local log=$results/$name.log start end rc secs
	start=$(date +%s.%N)
	"$@" >"$log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	secs=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
	printf '%s %s %s\n' "$rc" "$name" "$secs" >"$results/$name.rc"
	if [ "$rc" -eq 0 ]; then
		printf 'ok   %-48s %6ss\n' "$name" "$secs"
	else
		printf 'FAIL %-48s (exit %d)\n' "$name" "$rc"
		sed 's/^/    | /' "$log" | tail -n 40
	fi
}
export -f run_one
export results scratch_root

run_script() { # path
	local t=$1 name dir
	name=$(basename "$t" .sh)
	dir=$scratch_root/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	# a hung test must not hang CI: each script gets TEST_TIMEOUT seconds
	(cd "$dir" && run_one "$name" timeout --kill-after=30 "${TEST_TIMEOUT:-1200}" bash "$TOP/$t")
	local rc
	rc=$(cut -d' ' -f1 "$results/$name.rc")
	# keep a failed test's scratch directory for inspection
	[ "$rc" = 0 ] && rm -rf "$dir"
	return 0
}
export -f run_script

mkdir -p "$results/unit" "$results/fuzz-replay"
if [ -z "$pattern" ]; then
	for u in "$O"/tests/test_*; do
		[ -x "$u" ] || continue
		run_one "unit/$(basename "$u")" "$u"
	done
	for r in "$O"/tests/replay_*; do
		[ -x "$r" ] || continue
		n=${r##*/replay_}
		run_one "fuzz-replay/$n" "$r" "tests/fuzz/corpus/$n" "tests/fuzz/expect/$n"
	done
fi
ls tests/t[0-9][0-9][0-9][0-9]-*.sh 2>/dev/null | grep -F -- "$pattern" |
	xargs -r -P "$jobs" -I{} bash -c 'run_script "$@"' _ {}

passed=0 failed=0
failures=
while read -r rc name _; do
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $name"
	fi
done < <(find "$results" -name '*.rc' -exec cat {} +)
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
