# bench/lib.sh: what the benchmarks share. Source it after `set -eu`:
#   . "$(dirname "$0")/lib.sh"
#   bench_setup SUBDIR KEEP_DEFAULT "$@"
# Sets TOP (the checkout), AB (the binary: $1, $ALLOCBUILD or ./allocbuild),
# ROUNDS (default 5), ROUND_BEFORE (empty: see round_once) and WORK
# ($BENCH_DIR or bench/.work, then SUBDIR), and enters TOP. WORK is
# removed at exit unless KEEP=1 (KEEP_DEFAULT gives the default). With
# NICE=-20 (root only) the benchmark re-executes itself in its own session
# (its own scheduler autogroup) at that priority, and time_cmd runs both
# sides of every comparison alike at that nice value: on a machine busy
# with other work this approximates an idle machine without favouring
# either side.

bench_setup() {
	local sub=$1 keep=$2
	shift 2
	if [ -n "${NICE:-}" ] && [ -z "${BENCH_SESSION:-}" ]; then
		exec setsid -w env BENCH_SESSION=1 "$0" "$@"
	fi
	if [ -n "${NICE:-}" ] && [ -w /proc/self/autogroup ]; then
		echo "$NICE" >/proc/self/autogroup || echo "bench: cannot set the autogroup's nice" >&2
	fi
	cd "$(dirname "$0")/.."
	TOP=$(pwd)
	AB=${1:-${ALLOCBUILD:-$TOP/allocbuild}}
	ROUNDS=${ROUNDS:-5}
	WORK=${BENCH_DIR:-$TOP/bench/.work}${sub:+/$sub}
	[ -x "$AB" ] || { echo "bench: no binary '$AB' (run make first)" >&2; exit 2; }
	ROUND_BEFORE=()
	mkdir -p "$WORK"
	[ "${KEEP:-$keep}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
}

# default_outdir: sets src to a built OUTDIR of the default recipe: $OUTDIR
# when set (not changed by the benchmark), else built once into
# $WORK/out (2-3 minutes; KEEP=1 keeps it for the next run)
default_outdir() {
	local mirror
	src=${OUTDIR:-}
	if [ -z "$src" ]; then
		src=$WORK/out
		if [ ! -f "$src/SHA256SUMS" ]; then
			mirror=$("$TOP/scripts/debian-mirror.sh" "$WORK/mirror")
			echo "building the default recipe into $src ..."
			XDG_CACHE_HOME=$WORK/cache "$AB" build --mirror-dir "$mirror" -o "$src" recipes/jemalloc-5.3.0-policy.json \
				>"$WORK/build.log" 2>&1 || { tail -n 30 "$WORK/build.log"; exit 1; }
		fi
	fi
	[ -f "$src/SHA256SUMS" ] || { echo "bench: '$src' is not a built OUTDIR" >&2; exit 2; }
}

# machine_line: cores and load, and the nice value both sides run at
machine_line() {
	echo "machine: $(nproc) cores, $(uptime | sed 's/.*load/load/')${NICE:+; both sides run at nice $NICE}"
}

now() { date +%s.%N; }
best() { sort -n | head -n 1; }
worst() { sort -n | tail -n 1; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# ratio A B: A / B, for "how many times slower than the peer"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# speedup A B: B / A, for "how many times faster than the peer"
speedup() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b / a }'; }

# time_cmd VAR CMD...: run CMD once to warm up, then ROUNDS times (stdout
# and stderr to $WORK/last.out; exit 0 or 1 accepted, anything else shows
# the output and stops the benchmark) and set VAR_best, VAR_median, VAR_max
# (wall seconds), VAR_cpu (median user+sys seconds, children included) and
# VAR_rss (the largest peak resident set of the rounds, in MiB: GNU time's
# %M, wait4's ru_maxrss of the largest process of the command) when GNU
# time is there; "-" otherwise
time_cmd() {
	local var=$1 i
	shift
	if [ -n "${NICE:-}" ]; then
		set -- nice -n "$NICE" "$@"
	fi
	round_warm "$@"
	round_reset "$var"
	for ((i = 0; i < ROUNDS; i++)); do
		round_once "$var" "$@"
	done
	round_stats "$var"
}

# time_pair VARA VARB A B: as time_cmd for the commands in the arrays named
# A and B, run in turn (A B A B ...), so that a drift of the machine's speed
# during the benchmark (another guest of the host, a frequency change) moves
# both sides alike; also sets VARA_VARB_pair, the median over the rounds of
# each round's B time / A time (how many times faster A is than B)
time_pair() {
	local va=$1 vb=$2 i
	local -n ca=$3 cb=$4
	local pre=()
	[ -z "${NICE:-}" ] || pre=(nice -n "$NICE")
	round_warm "${pre[@]}" "${ca[@]}"
	round_warm "${pre[@]}" "${cb[@]}"
	round_reset "$va"
	round_reset "$vb"
	for ((i = 0; i < ROUNDS; i++)); do
		round_once "$va" "${pre[@]}" "${ca[@]}"
		round_once "$vb" "${pre[@]}" "${cb[@]}"
	done
	round_stats "$va"
	round_stats "$vb"
	eval "${va}_${vb}_pair=$(paste "$WORK/times.$va" "$WORK/times.$vb" |
		awk '{ printf "%.4f\n", $2 / $1 }' | median)"
}

round_warm() {
	"$@" >"$WORK/last.out" 2>&1 || [ $? = 1 ] || { cat "$WORK/last.out"; exit 1; }
}

round_reset() {
	: >"$WORK/times.$1"
	: >"$WORK/cpu.$1"
	: >"$WORK/rss.$1"
}

# round_once VAR CMD...: one timed round, appended to VAR's files; the
# command in the array ROUND_BEFORE, when set, runs first, untimed (to
# drop a tree from the page cache, say)
round_once() {
	local var=$1 t0 t1 rc=0
	shift
	[ "${#ROUND_BEFORE[@]}" = 0 ] || "${ROUND_BEFORE[@]}" || { echo "bench: ${ROUND_BEFORE[*]} failed" >&2; exit 1; }
	t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S %M' -o "$WORK/cpu1" "$@" >"$WORK/last.out" 2>&1 || rc=$?
	else
		"$@" >"$WORK/last.out" 2>&1 || rc=$?
	fi
	t1=$(now)
	[ "$rc" -le 1 ] || { cat "$WORK/last.out"; exit 1; }
	echo "$t1 - $t0" | awk '{ printf "%.4f\n", $1 - $3 }' >>"$WORK/times.$var"
	# the last line: after a non-zero exit GNU time writes one before the times
	if [ -x /usr/bin/time ]; then
		tail -n 1 "$WORK/cpu1" | awk '{ printf "%.3f\n", $1 + $2 }' >>"$WORK/cpu.$var"
		tail -n 1 "$WORK/cpu1" | awk '{ printf "%.1f\n", $3 / 1024 }' >>"$WORK/rss.$var"
	fi
}

round_stats() {
	local var=$1
	eval "${var}_best=$(best <"$WORK/times.$var")"
	eval "${var}_median=$(median <"$WORK/times.$var")"
	eval "${var}_max=$(worst <"$WORK/times.$var")"
	if [ -s "$WORK/cpu.$var" ]; then
		eval "${var}_cpu=$(median <"$WORK/cpu.$var")"
	else
		eval "${var}_cpu=-"
	fi
	if [ -s "$WORK/rss.$var" ]; then
		eval "${var}_rss=$(sort -n "$WORK/rss.$var" | tail -n 1)"
	else
		eval "${var}_rss=-"
	fi
}
