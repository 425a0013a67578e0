#!/usr/bin/env bash
# Test runner: the unit tests, the fuzz-corpus replays and the end-to-end
# scripts tests/tNNNN-*.sh (each in its own scratch directory), scheduled
# longest first; at the end the slowest tests and the suite's wall time
# (tests/README.md, "Cost").
# usage: tests/run.sh [PATTERN...]   (a PATTERN selects scripts, and unit tests
#                                     by their name, by substring; without one
#                                     every script, unit test and replay runs)
# env: ALLOCBUILD   the binary under test
#      O            its object directory (.obj, .obj-asan): the unit tests' binaries
#      TEST_JOBS    tests at once (default 2)
#      TEST_LONG    seconds from which a test counts as long (default 30)
#      TEST_LONG_JOBS  long tests at once (default 1: two builds beside
#                   each other only share the same two cores)
#      TEST_TIMEOUT seconds per script (default 1200)
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
export TOP
export ALLOCBUILD=${ALLOCBUILD:-$TOP/allocbuild}
O=${O:-.obj}
patterns=("$@")
pattern=${1:-}
# does a name hold one of the patterns? (every name, without one)
wanted() {
	local p
	[ ${#patterns[@]} = 0 ] && return 0
	for p in "${patterns[@]}"; do
		case $1 in *"$p"*) return 0 ;; esac
	done
	return 1
}
jobs=${TEST_JOBS:-2}
long=${TEST_LONG:-30}
long_jobs=${TEST_LONG_JOBS:-1}
warn_test=240 warn_suite=1500
scratch_root=$TOP/tests/.scratch
cache=$TOP/tests/.cache
mkdir -p "$scratch_root" "$cache"
# every user's processes open /dev/null (the tests run some as nobody): on a
# machine where it lost its mode (0600 was seen once, left by a session), say
# so and, as root, give it back the mode every Linux system has
if [ ! -c /dev/null ]; then
	echo "run.sh: /dev/null is not a character device: this machine cannot run the tests" >&2
	exit 1
elif [ "$(stat -c %a /dev/null)" != 666 ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "run.sh: /dev/null had mode $(stat -c %a /dev/null); set back to 666" >&2
		chmod 666 /dev/null
	else
		echo "run.sh: /dev/null has mode $(stat -c %a /dev/null), not 666: other users cannot open it" >&2
		exit 1
	fi
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
suite_start=$(date +%s.%N)

# real upstream sources, fetched once per machine from Debian (offline here)
export AB_TEST_MIRROR=$cache/mirror
if ! "$TOP/scripts/debian-mirror.sh" "$AB_TEST_MIRROR" >/dev/null; then
	echo "run.sh: cannot fill the test mirror with Debian's sources" >&2
	exit 1
fi
# what the suite's fixtures are keyed by (tests/lib.sh, suite_fixture): the toolchain
# that compiles them and allocbuild's source tree (not its binary: make check
# and make asan build the same bytes, so make asan reuses make check's)
export AB_TEST_TOOLCHAIN_KEY AB_TEST_SOURCE_KEY
AB_TEST_TOOLCHAIN_KEY=$(
	for t in cc c++ as ld ar make cmake autoconf ccache cargo rustc; do
		command -v "$t" || echo "no $t"
	done
	dpkg-query -W gcc-12 g++-12 cpp-12 binutils libc6-dev make cmake autoconf ccache cargo rustc \
		librust-jemalloc-sys-dev 2>/dev/null
	uname -m
	getconf PAGESIZE
	awk '/^Hugepagesize:/' /proc/meminfo
)
AB_TEST_TOOLCHAIN_KEY=$(printf '%s\n' "$AB_TEST_TOOLCHAIN_KEY" | sha256sum | cut -c1-16)
AB_TEST_SOURCE_KEY=$(find Makefile lib builder provenance cli -type f \( -name '*.[ch]' -o -name Makefile \) |
	LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)

# the tests, with the seconds each took last time on this machine (this
# binary kind's run), else in tests/durations (a recent run's figures)
kind=${O##*/}
kind=${kind#.}
timings=$cache/timings-$kind
declare -A expect=()
for f in "$TOP/tests/durations" "$timings"; do
	[ -r "$f" ] || continue
	while read -r n s; do
		[ -n "$n" ] && expect[$n]=$s
	done <"$f"
done

run_one() { # name, command...
	local name=$1; shift
	local log=$results/$name.log start end rc secs
	mkdir -p "$(dirname "$log")"
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

run_script() { # path
	local t=$1 name dir rc
	name=$(basename "$t" .sh)
	dir=$scratch_root/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	# a hung test must not hang CI: each script gets TEST_TIMEOUT seconds
	(cd "$dir" && run_one "$name" timeout --kill-after=30 "${TEST_TIMEOUT:-1200}" bash "$TOP/$t")
	rc=$(cut -d' ' -f1 "$results/$name.rc")
	# keep a failed test's scratch directory for inspection
	[ "$rc" = 0 ] && rm -rf "$dir"
	return 0
}

# the jobs: name and how to start it
declare -A how=()
names=()
for u in "$O"/tests/test_*; do
	[ -x "$u" ] || continue
	n=unit/${u##*/}
	[ -z "$pattern" ] || wanted "$n" || continue
	names+=("$n")
	how[$n]="unit $u"
done
if [ -z "$pattern" ]; then
	for r in "$O"/tests/replay_*; do
		[ -x "$r" ] || continue
		n=fuzz-replay/${r##*/replay_}
		names+=("$n")
		how[$n]="replay $r ${r##*/replay_}"
	done
fi
# a script's suite fixtures (tests/lib.sh: suite_fixture NAME USES, and
# default_build) are jobs of their own, started first; the script waits
# for them
declare -A needs=()
for t in tests/t[0-9][0-9][0-9][0-9]-*.sh; do
	wanted "$t" || continue
	n=$(basename "$t" .sh)
	names+=("$n")
	how[$n]="script $t"
	while read -r f uses; do
		[ -n "$f" ] || continue
		needs[$n]="${needs[$n]:-} fixture/$f"
		if [ -z "${how[fixture/$f]:-}" ]; then
			names+=("fixture/$f")
			how[fixture/$f]="fixture $f $uses"
		fi
	done < <(sed -n -e 's/^[[:space:]]*suite_fixture \([a-z_]*\) \([a-z]*\).*/\1 \2/p' \
		-e 's/^[[:space:]]*default_build .*/default allocbuild/p' "$t" | sort -u)
done

run_fixture() { # name uses: made in a scratch directory of its own, as a test would
	local f=$1 dir=$scratch_root/fixture-$1
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && run_one "fixture/$f" bash -c '. "$TOP/tests/lib.sh"; suite_fixture "$1" "$2"' _ "$1" "$2")
	[ "$(cut -d' ' -f1 "$results/fixture/$f.rc")" = 0 ] && rm -rf "$dir"
	return 0
}

start_job() { # name
	local n=$1 k a b
	read -r k a b <<<"${how[$n]}"
	case $k in
	unit) run_one "$n" "$a" ;;
	replay) run_one "$n" "$a" "tests/fuzz/corpus/$b" "tests/fuzz/expect/$b" ;;
	script) run_script "$a" ;;
	fixture) run_fixture "$a" "$b" ;;
	esac
}
declare -A finished=()
ready() { # name: every fixture it needs is made (or failed: then the test says so)
	local f
	for f in ${needs[$1]:-}; do
		[ -n "${finished[$f]:-}" ] || return 1
	done
}

# longest first, so that the run ends evenly (a test never timed is put
# among the long ones, in case it is, but not held back as one); at most
# long_jobs tests known to be long at once, the other lanes take short ones
queue=()
while read -r _ n; do
	queue+=("$n")
done < <(for n in "${names[@]}"; do
	case $n in
	fixture/*) printf '%s %s\n' 1e9 "$n" ;; # the tests that read them wait
	*) printf '%s %s\n' "${expect[$n]:-$long}" "$n" ;;
	esac
done | sort -k1,1gr -k2,2)
declare -A longs=()
while read -r n; do
	longs[$n]=1
done < <(for n in "${names[@]}"; do printf '%s %s\n' "${expect[$n]:-0}" "$n"; done | awk -v l="$long" '$1 >= l && $2 !~ /^fixture\// { print $2 }')
is_long() { [ -n "${longs[$1]:-}" ]; }

declare -A running=() running_long=()
nlong=0
while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
	while [ ${#running[@]} -lt "$jobs" ] && [ ${#queue[@]} -gt 0 ]; do
		pick=-1
		for i in "${!queue[@]}"; do
			ready "${queue[$i]}" || continue
			if [ "$nlong" -lt "$long_jobs" ] || ! is_long "${queue[$i]}"; then
				pick=$i
				break
			fi
		done
		[ "$pick" -ge 0 ] || break
		n=${queue[$pick]}
		unset 'queue[pick]'
		queue=("${queue[@]}")
		start_job "$n" &
		running[$!]=$n
		if is_long "$n"; then
			running_long[$!]=1
			nlong=$((nlong + 1))
		fi
	done
	done_pid=
	wait -n -p done_pid
	[ -n "$done_pid" ] || continue
	if [ -n "${running_long[$done_pid]:-}" ]; then
		unset 'running_long[$done_pid]'
		nlong=$((nlong - 1))
	fi
	finished[${running[$done_pid]}]=1
	unset 'running[$done_pid]'
done

suite_secs=$(awk -v s="$suite_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
passed=0 failed=0
failures=
find "$results" -name '*.rc' -exec cat {} + >"$results/all"
fixtures=0
while read -r rc name _; do
	if [ "$rc" = 0 ]; then
		case $name in
		fixture/*) fixtures=$((fixtures + 1)) ;;
		*) passed=$((passed + 1)) ;;
		esac
	else
		failed=$((failed + 1))
		failures="$failures $name"
	fi
done <"$results/all"

# this run's figures for the next run's order (every test of a full run;
# a partial run updates the ones it ran)
{
	[ -r "$timings" ] && cat "$timings"
	awk '{ print $2, $3 }' "$results/all"
} | awk '{ t[$1] = $2 } END { for (n in t) print n, t[n] }' | LC_ALL=C sort >"$timings.tmp" &&
	mv "$timings.tmp" "$timings"

[ "$fixtures" -gt 0 ] && echo "$fixtures suite fixtures ready (tests/.cache/fixtures)"
echo "slowest tests (seconds, $jobs at once):"
sort -k3,3gr "$results/all" | head -n 15 | awk '{ printf "  %7.1f  %s\n", $3, $2 }'
awk -v w="$warn_test" '$3 > w { printf "run.sh: warning: %s took %.0f s (more than %d s)\n", $2, $3, w }' "$results/all" >&2
echo "suite: ${suite_secs} s"
if [ -z "$pattern" ] && [ "$suite_secs" -gt "$warn_suite" ]; then
	echo "run.sh: warning: the suite took $suite_secs s (more than $warn_suite s)" >&2
fi
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
