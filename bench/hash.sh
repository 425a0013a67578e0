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
. "$(dirname "$0")/lib.sh"
bench_setup "" 0 "$@"

machine_line

# (a) one 1 GiB file
f=$WORK/file-1g
if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" != 1073741824 ]; then
	head -c 1073741824 /dev/urandom >"$f"
fi
want=$(sha256sum "$f")
[ "$("$AB" hash "$f")" = "$want" ] || { echo "bench: allocbuild and sha256sum disagree on $f" >&2; exit 1; }
time_cmd ab "$AB" hash "$f"
time_cmd ss sha256sum "$f"
printf 'file 1GiB: allocbuild %.2fs, sha256sum %.2fs, ratio %sx (target >= 4x)\n' \
	"$ab_best" "$ss_best" "$(speedup "$ab_best" "$ss_best")"
printf '  median of %d: %.2fs vs %.2fs, ratio %sx; cpu (user+sys) %ss vs %ss\n' "$ROUNDS" \
	"$ab_median" "$ss_median" "$(speedup "$ab_median" "$ss_median")" "$ab_cpu" "$ss_cpu"
rm -f "$f"

# (b) a Fluent-Bit-sized tree: 12,000 files, 170 MB, log-normal sizes
# (median 4 KiB, a few files of several MB), 6 levels of directories
t=$WORK/tree
if [ ! -f "$t.done" ]; then
	rm -rf "$t"
	python3 "$TOP/bench/gentree.py" "$t"
	touch "$t.done"
fi
nfiles=$(find "$t" -type f | wc -l)
mb=$(du -sm --apparent-size "$t" | cut -f1)
pipeline=(sh -c 'cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum' sh "$t")
want=$("${pipeline[@]}" | cut -c1-64)
got=$("$AB" hash "$t" | cut -c1-64)
[ "$got" = "$want" ] || { echo "bench: allocbuild and the pipeline disagree on the tree" >&2; exit 1; }
time_cmd ab "$AB" hash "$t"
time_cmd pl "${pipeline[@]}"
printf 'tree %d files %d MB: allocbuild %.3fs, dirHash pipeline %.3fs, ratio %sx (target >= 5x)\n' \
	"$nfiles" "$mb" "$ab_best" "$pl_best" "$(speedup "$ab_best" "$pl_best")"
printf '  median of %d: %.3fs vs %.3fs, ratio %sx; cpu (user+sys) %ss vs %ss\n' "$ROUNDS" \
	"$ab_median" "$pl_median" "$(speedup "$ab_median" "$pl_median")" "$ab_cpu" "$pl_cpu"
echo "machine after: $(uptime | sed 's/.*load/load/')"
