#!/usr/bin/env bash
# Benchmark of 'allocbuild upstream-diff':
#  (1) a 466-file tree (Fluent Bit's jemalloc-5.3.0: the release minus
#      VERSION, .clang-format, doc/jemalloc.3, doc/jemalloc.html) against
#      the .tar.bz2 release tarball, all in              (target < 0.25 s)
#  (2) a pair of 12,000-file trees (~170 MB each, sizes like a Fluent Bit
#      source tree, a few files changed) against `diff -rq` on the same
#      pair, warm page cache                              (target <= 1.5x)
# Each command runs ROUNDS times (default 5) after a warm-up; best and
# median are printed, with the load before and after (the machine is shared).
# Work files live in bench/.work (or $BENCH_DIR), removed unless KEEP=1.
# On a loaded machine, NICE=-20 (root only) runs the benchmark in its own
# session (its own scheduler autogroup) at that priority, both sides of
# every comparison alike (as bench/hash.sh does).
# usage: bench/upstream-diff.sh [ALLOCBUILD]
set -eu
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
WORK=${BENCH_DIR:-$TOP/bench/.work}/updiff
[ -x "$AB" ] || { echo "bench: no binary '$AB' (run make first)" >&2; exit 2; }
mkdir -p "$WORK"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

MIRROR=${AB_TEST_MIRROR:-$TOP/tests/.cache/mirror}
"$TOP/scripts/debian-mirror.sh" "$MIRROR" >/dev/null
TARBALL=$MIRROR/jemalloc-5.3.0.tar.bz2

now() { date +%s.%N; }

# time_cmd VAR CMD...: run CMD ROUNDS times after one warm-up (exit 0 or 1
# accepted), set VAR_best and VAR_median (seconds)
time_cmd() {
	local var=$1 i t0 t1 rc
	shift
	if [ -n "${NICE:-}" ]; then
		set -- nice -n "$NICE" "$@"
	fi
	"$@" >"$WORK/last.out" 2>&1 || [ $? = 1 ] || { cat "$WORK/last.out"; exit 1; }
	: >"$WORK/times"
	for ((i = 0; i < ROUNDS; i++)); do
		t0=$(now)
		rc=0
		"$@" >"$WORK/last.out" 2>&1 || rc=$?
		t1=$(now)
		[ "$rc" -le 1 ] || { cat "$WORK/last.out"; exit 1; }
		echo "$t1 - $t0" | awk '{ printf "%.4f\n", $1 - $3 }' >>"$WORK/times"
	done
	eval "${var}_best=$(sort -n "$WORK/times" | head -n 1)"
	eval "${var}_median=$(sort -n "$WORK/times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
}

echo "machine: $(nproc) cores, $(uptime | sed 's/.*load/load/')${NICE:+; both sides run at nice $NICE}"

# (1) Fluent-Bit-like tree against the release tarball
rm -rf "$WORK/fb"
mkdir "$WORK/fb"
tar xjf "$TARBALL" -C "$WORK/fb" --strip-components=1 --no-same-owner
rm "$WORK/fb/VERSION" "$WORK/fb/.clang-format" "$WORK/fb/doc/jemalloc.3" "$WORK/fb/doc/jemalloc.html"
time_cmd fb "$AB" upstream-diff "$WORK/fb" "$TARBALL"
grep -q '^466 files in candidate: 466 identical' "$WORK/last.out" || { cat "$WORK/last.out"; exit 1; }
TIMEFORMAT='%U %S'
{ time ${NICE:+nice -n "$NICE"} "$AB" upstream-diff "$WORK/fb" "$TARBALL" >/dev/null 2>&1; } 2>"$WORK/cpu"
cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$WORK/cpu")
printf '466-file tree vs .tar.bz2: %.3fs (target < 0.25s)  [median %.3fs; CPU %ss user+sys]\n' "$fb_best" "$fb_median" "$cpu"

# (2) two 12,000-file trees, the second with 20 files changed and 5 added
a=$WORK/a b=$WORK/b
if [ ! -f "$WORK/trees.done" ]; then
	rm -rf "$a" "$b"
	python3 - "$a" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(1)
nfiles, total = 12000, 170_000_000
sizes = [min(int(rng.lognormvariate(8.3, 1.6)), 8 << 20) for _ in range(nfiles)]
scale = total / sum(sizes)
sizes = [max(0, int(s * scale)) for s in sizes]
dirs = [""]
for i in range(900):
    parent = rng.choice(dirs) if rng.random() < 0.7 else ""
    if parent.count("/") >= 5:
        parent = ""
    dirs.append(os.path.join(parent, "d%03d" % i))
for d in dirs:
    os.makedirs(os.path.join(root, d), exist_ok=True)
blob = os.urandom(16 << 20)
for i, s in enumerate(sizes):
    d = rng.choice(dirs)
    off = rng.randrange(0, len(blob) - s) if s < len(blob) else 0
    with open(os.path.join(root, d, "f%05d.c" % i), "wb") as f:
        f.write(blob[off:off + s] if s <= len(blob) else os.urandom(s))
PY
	cp -r "$a" "$b"
	find "$b" -type f -name 'f*.c' | sort | awk 'NR % 600 == 1' | head -n 20 | while read -r f; do
		printf 'changed\n' >>"$f"
	done
	for i in 1 2 3 4 5; do printf 'new %d\n' "$i" >"$b/added$i.c"; done
	touch "$WORK/trees.done"
fi
nfiles=$(find "$a" -type f | wc -l)
mb=$(du -sm --apparent-size "$a" | cut -f1)
time_cmd ud "$AB" upstream-diff "$b" "$a"
grep -q "^$((nfiles + 5)) files in candidate: $((nfiles - 20)) identical, 20 differ, 5 only in candidate" "$WORK/last.out" ||
	{ tail -n 3 "$WORK/last.out"; exit 1; }
time_cmd dq diff -rq "$b" "$a"
ratio=$(awk -v a="$ud_best" -v b="$dq_best" 'BEGIN { printf "%.2f", a / b }')
mratio=$(awk -v a="$ud_median" -v b="$dq_median" 'BEGIN { printf "%.2f", a / b }')
printf '%d-file trees (%d MB each): upstream-diff %.3fs, diff -rq %.3fs, ratio %sx (target <= 1.5x)  [median: %.3fs vs %.3fs, %sx]\n' \
	"$nfiles" "$mb" "$ud_best" "$dq_best" "$ratio" "$ud_median" "$dq_median" "$mratio"
echo "machine after: $(uptime | sed 's/.*load/load/')"
