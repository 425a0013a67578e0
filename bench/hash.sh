#!/usr/bin/env bash
# Benchmark of 'allocbuild hash' against its peers, measured in the same run
# (targets of issue 19, as median ratios):
#  (a) one 1 GiB file: allocbuild hash vs `openssl dgst -sha256` (the same
#      SHA-256 code: target at least 0.85 of its speed) and vs sha256sum
#      (target >= 4.5x)
#  (b) a tree of ~12,000 files, ~170 MB (sizes distributed like a Fluent Bit
#      source tree): allocbuild hash vs the in-toto dirHash pipeline
#      find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum
#      with a warm page cache, the two run in turn round by round (target >= 9x)
#  (c) the same tree cold (its files dropped from the page cache before
#      every round), against the pipeline and against allocbuild with one
#      worker per core
# Each command runs ROUNDS times (default 5) after a warm-up; min, median
# and max times are printed, with the peak resident set of each side
# (the largest of the rounds). Work files live in bench/.work (or $BENCH_DIR)
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
# written back before timing: the flusher's writes would land in either side's rounds
sync
want=$(sha256sum "$f")
[ "$("$AB" hash "$f")" = "$want" ] || { echo "bench: allocbuild and sha256sum disagree on $f" >&2; exit 1; }
[ "$(openssl dgst -sha256 -r "$f" | cut -c1-64)" = "${want%% *}" ] ||
	{ echo "bench: allocbuild and openssl disagree on $f" >&2; exit 1; }
time_cmd ab "$AB" hash "$f"
time_cmd os openssl dgst -sha256 "$f"
time_cmd ss sha256sum "$f"
printf 'file 1GiB, median of %d: allocbuild %.3fs, openssl dgst -sha256 %.3fs, sha256sum %.3fs\n' "$ROUNDS" \
	"$ab_median" "$os_median" "$ss_median"
printf '  speed of openssl: %s (target >= 0.85); against sha256sum: %sx (target >= 4.5x)\n' \
	"$(ratio "$os_median" "$ab_median")" "$(speedup "$ab_median" "$ss_median")"
printf '  min/max: allocbuild %.3f/%.3fs, openssl %.3f/%.3fs, sha256sum %.3f/%.3fs\n' \
	"$ab_best" "$ab_max" "$os_best" "$os_max" "$ss_best" "$ss_max"
printf '  cpu (user+sys) %ss, %ss, %ss; peak RSS %s, %s, %s MiB\n' \
	"$ab_cpu" "$os_cpu" "$ss_cpu" "$ab_rss" "$os_rss" "$ss_rss"
rm -f "$f"

# (b) a Fluent-Bit-sized tree: 12,000 files, 170 MB, log-normal sizes
# (median 4 KiB, a few files of several MB), 6 levels of directories
t=$WORK/tree
if [ ! -f "$t.done" ]; then
	rm -rf "$t"
	python3 "$TOP/bench/gentree.py" "$t"
	touch "$t.done"
fi
sync
nfiles=$(find "$t" -type f | wc -l)
mb=$(du -sm --apparent-size "$t" | cut -f1)
pipeline=(sh -c 'cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum' sh "$t")
want=$("${pipeline[@]}" | cut -c1-64)
got=$("$AB" hash "$t" | cut -c1-64)
[ "$got" = "$want" ] || { echo "bench: allocbuild and the pipeline disagree on the tree" >&2; exit 1; }
# in turn, round by round: the pipeline's own time drifts by a third from
# minute to minute on this machine, and a block of its rounds after a block
# of allocbuild's would compare two different machines
tree_cmd=("$AB" hash "$t")
time_pair ab pl tree_cmd pipeline
printf 'tree %d files %d MB, median of %d: allocbuild %.3fs, dirHash pipeline %.3fs, ratio %sx (target >= 9x)\n' \
	"$nfiles" "$mb" "$ROUNDS" "$ab_median" "$pl_median" "$(speedup "$ab_median" "$pl_median")"
printf '  median of the rounds'"'"' ratios (each round: allocbuild, then the pipeline): %.1fx\n' "$ab_pl_pair"
printf '  min/max: allocbuild %.3f/%.3fs, pipeline %.3f/%.3fs; best against best %sx\n' \
	"$ab_best" "$ab_max" "$pl_best" "$pl_max" "$(speedup "$ab_best" "$pl_best")"
printf '  cpu (user+sys) %ss vs %ss; peak RSS %s vs %s MiB\n' "$ab_cpu" "$pl_cpu" "$ab_rss" "$pl_rss"
# (c) the same tree cold: before every round of either side the pages of
# its files are dropped from the page cache (bench/evict.py:
# posix_fadvise DONTNEED, what the kernel's reclaim does to files unread
# for a while; the directories stay cached), so every file is read from
# the disk. Also allocbuild with one worker per core (the default before
# it took four per core) against its default, to show what the extra
# workers buy when the reads wait on the disk.
ROUND_BEFORE=(python3 "$TOP/bench/evict.py" "$t")
time_pair ab pl tree_cmd pipeline
printf 'tree cold, median of %d: allocbuild %.3fs, dirHash pipeline %.3fs, ratio %sx (median of the rounds'"'"' ratios %.1fx)\n' \
	"$ROUNDS" "$ab_median" "$pl_median" "$(speedup "$ab_median" "$pl_median")" "$ab_pl_pair"
printf '  min/max: allocbuild %.3f/%.3fs, pipeline %.3f/%.3fs; cpu %ss vs %ss; peak RSS %s vs %s MiB\n' \
	"$ab_best" "$ab_max" "$pl_best" "$pl_max" "$ab_cpu" "$pl_cpu" "$ab_rss" "$pl_rss"
cores_cmd=("$AB" hash -j "$(nproc)" "$t")
time_pair ab co tree_cmd cores_cmd
printf '  allocbuild -j %d (one worker per core): %.3fs (%.3f-%.3f), %sx the default'"'"'s time (median of the rounds'"'"' ratios %.2f)\n' \
	"$(nproc)" "$co_median" "$co_best" "$co_max" "$(ratio "$co_median" "$ab_median")" "$ab_co_pair"
ROUND_BEFORE=()
echo "machine after: $(uptime | sed 's/.*load/load/')"
