#!/usr/bin/env bash
# Benchmark of 'allocbuild hash' against coreutils, measured in the same run:
#  (a) one 1 GiB file: allocbuild hash vs sha256sum            (target >= 4x)
#  (b) a tree of ~12,000 files, ~170 MB (sizes distributed like a Fluent Bit
#      source tree): allocbuild hash vs the in-toto dirHash pipeline
#      find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum
#      with a warm page cache                                  (target >= 5x)
# Each command runs ROUNDS times (default 5) after a warm-up; the best and
# the median times are printed. Work files live in bench/.work (or $BENCH_DIR)
# and are removed at the end unless KEEP=1. On a machine busy with other
# work, NICE=-20 (root only) runs the benchmark in its own session (its own
# scheduler autogroup) at that priority, both sides of every comparison
# alike, which approximates an idle machine without favouring either.
# usage: bench/hash.sh [ALLOCBUILD]
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
WORK=${BENCH_DIR:-$TOP/bench/.work}
[ -x "$AB" ] || { echo "bench: no binary '$AB' (run make first)" >&2; exit 2; }
mkdir -p "$WORK"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }

# time_cmd VAR CMD...: run CMD ROUNDS times (stdout to $WORK/last.out) and
# set VAR_best, VAR_median (wall seconds) and VAR_cpu (median user+sys
# seconds, children included, when GNU time is there; "-" otherwise)
time_cmd() {
	local var=$1 i t0 t1
	shift
	: >"$WORK/times"
	: >"$WORK/cpu"
	if [ -n "${NICE:-}" ]; then
		set -- nice -n "$NICE" "$@"
	fi
	for ((i = 0; i < ROUNDS; i++)); do
		t0=$(now)
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f '%U %S' -o "$WORK/cpu1" "$@" >"$WORK/last.out"
			awk '{ printf "%.3f\n", $1 + $2 }' "$WORK/cpu1" >>"$WORK/cpu"
		else
			"$@" >"$WORK/last.out"
		fi
		t1=$(now)
		echo "$t1 - $t0" | awk '{ printf "%.4f\n", $1 - $3 }' >>"$WORK/times"
	done
	eval "${var}_best=$(sort -n "$WORK/times" | head -n 1)"
	eval "${var}_median=$(median <"$WORK/times")"
	if [ -s "$WORK/cpu" ]; then
		eval "${var}_cpu=$(median <"$WORK/cpu")"
	else
		eval "${var}_cpu=-"
	fi
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b / a }'; }

echo "machine: $(nproc) cores, $(uptime | sed 's/.*load/load/')${NICE:+; both sides run at nice $NICE}"

# (a) one 1 GiB file
f=$WORK/file-1g
if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" != 1073741824 ]; then
	head -c 1073741824 /dev/urandom >"$f"
fi
cat "$f" >/dev/null
want=$(sha256sum "$f")
[ "$("$AB" hash "$f")" = "$want" ] || { echo "bench: allocbuild and sha256sum disagree on $f" >&2; exit 1; }
time_cmd ab "$AB" hash "$f"
time_cmd ss sha256sum "$f"
printf 'file 1GiB: allocbuild %.2fs, sha256sum %.2fs, ratio %sx (target >= 4x)\n' \
	"$ab_best" "$ss_best" "$(ratio "$ab_best" "$ss_best")"
printf '  median of %d: %.2fs vs %.2fs, ratio %sx; cpu (user+sys) %ss vs %ss\n' "$ROUNDS" \
	"$ab_median" "$ss_median" "$(ratio "$ab_median" "$ss_median")" "$ab_cpu" "$ss_cpu"
rm -f "$f"

# (b) a Fluent-Bit-sized tree: 12,000 files, 170 MB, log-normal sizes
# (median 4 KiB, a few files of several MB), 6 levels of directories
t=$WORK/tree
if [ ! -f "$t.done" ]; then
	rm -rf "$t"
	python3 - "$t" <<'PY'
import math, os, random, sys
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
	touch "$t.done"
fi
nfiles=$(find "$t" -type f | wc -l)
mb=$(du -sm --apparent-size "$t" | cut -f1)
pipeline() {
	sh -c 'cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum' sh "$t"
}
want=$(pipeline | cut -c1-64)
got=$("$AB" hash "$t" | cut -c1-64)
[ "$got" = "$want" ] || { echo "bench: allocbuild and the pipeline disagree on the tree" >&2; exit 1; }
time_cmd ab "$AB" hash "$t"
time_cmd pl sh -c 'cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum' sh "$t"
printf 'tree %d files %d MB: allocbuild %.3fs, dirHash pipeline %.3fs, ratio %sx (target >= 5x)\n' \
	"$nfiles" "$mb" "$ab_best" "$pl_best" "$(ratio "$ab_best" "$pl_best")"
printf '  median of %d: %.3fs vs %.3fs, ratio %sx; cpu (user+sys) %ss vs %ss\n' "$ROUNDS" \
	"$ab_median" "$pl_median" "$(ratio "$ab_median" "$pl_median")" "$ab_cpu" "$pl_cpu"
echo "machine after: $(uptime | sed 's/.*load/load/')"
