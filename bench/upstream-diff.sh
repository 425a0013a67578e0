#!/usr/bin/env bash
# Benchmark of 'allocbuild upstream-diff':
#  (1) a 466-file tree (Fluent Bit's jemalloc-5.3.0: the release minus
#      VERSION, .clang-format, doc/jemalloc.3, doc/jemalloc.html) against
#      the .tar.bz2 release tarball, all in              (target < 0.25 s)
#  (2) a pair of 12,000-file trees (~170 MB each, sizes like a Fluent Bit
#      source tree, a few files changed) against `diff -rq` on the same
#      pair, warm page cache, while computing both dirHashes (issue 19:
#      median ratio                                       target <= 1.0x)
#  (3) the same pair cold (every file dropped from the page cache before
#      each round, bench/evict.py) against `diff -rq`
# Each command runs ROUNDS times (default 5) after a warm-up; min, median
# and max are printed with the peak resident set of each side (the largest
# of the rounds), and the load before and after (the machine is shared).
# Work files live in bench/.work (or $BENCH_DIR), removed unless KEEP=1.
# On a loaded machine, NICE=-20 (root only) runs the benchmark in its own
# session (its own scheduler autogroup) at that priority, both sides of
# every comparison alike (as bench/hash.sh does).
# usage: bench/upstream-diff.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup updiff 0 "$@"

MIRROR=${AB_TEST_MIRROR:-$TOP/tests/.cache/mirror}
"$TOP/scripts/debian-mirror.sh" "$MIRROR" >/dev/null
TARBALL=$MIRROR/jemalloc-5.3.0.tar.bz2

machine_line

# (1) Fluent-Bit-like tree against the release tarball
rm -rf "$WORK/fb"
mkdir "$WORK/fb"
tar xjf "$TARBALL" -C "$WORK/fb" --strip-components=1 --no-same-owner
rm "$WORK/fb/VERSION" "$WORK/fb/.clang-format" "$WORK/fb/doc/jemalloc.3" "$WORK/fb/doc/jemalloc.html"
time_cmd fb "$AB" upstream-diff "$WORK/fb" "$TARBALL"
grep -q '^466 files in candidate: 466 identical' "$WORK/last.out" || { cat "$WORK/last.out"; exit 1; }
printf '466-file tree vs .tar.bz2: %.3fs (target < 0.25s)  [median %.3fs, max %.3fs; CPU %ss user+sys; peak RSS %s MiB]\n' \
	"$fb_best" "$fb_median" "$fb_max" "$fb_cpu" "$fb_rss"

# (2) two 12,000-file trees, the second with 20 files changed and 5 added
a=$WORK/a b=$WORK/b
if [ ! -f "$WORK/trees.done" ]; then
	rm -rf "$a" "$b"
	python3 "$TOP/bench/gentree.py" "$a"
	cp -r "$a" "$b"
	find "$b" -type f -name 'f*.c' | sort | awk 'NR % 600 == 1' | head -n 20 | while read -r f; do
		printf 'changed\n' >>"$f"
	done
	for i in 1 2 3 4 5; do printf 'new %d\n' "$i" >"$b/added$i.c"; done
	touch "$WORK/trees.done"
fi
sync # written back before timing
nfiles=$(find "$a" -type f | wc -l)
mb=$(du -sm --apparent-size "$a" | cut -f1)
time_cmd ud "$AB" upstream-diff "$b" "$a"
grep -q "^$((nfiles + 5)) files in candidate: $((nfiles - 20)) identical, 20 differ, 5 only in candidate" "$WORK/last.out" ||
	{ tail -n 3 "$WORK/last.out"; exit 1; }
time_cmd dq diff -rq "$b" "$a"
printf '%d-file trees (%d MB each), median of %d: upstream-diff %.3fs, diff -rq %.3fs, ratio %sx (target <= 1.0x)\n' \
	"$nfiles" "$mb" "$ROUNDS" "$ud_median" "$dq_median" "$(ratio "$ud_median" "$dq_median")"
printf '  min/max: upstream-diff %.3f/%.3fs, diff -rq %.3f/%.3fs; best against best %sx\n' \
	"$ud_best" "$ud_max" "$dq_best" "$dq_max" "$(ratio "$ud_best" "$dq_best")"
printf '  cpu (user+sys) %ss vs %ss; peak RSS %s vs %s MiB\n' "$ud_cpu" "$dq_cpu" "$ud_rss" "$dq_rss"
# (3) the same pair cold: both trees' files dropped from the page cache
# before every round of either side (bench/evict.py), the two in turn
ud_cmd=("$AB" upstream-diff "$b" "$a")
dq_cmd=(diff -rq "$b" "$a")
ROUND_BEFORE=(python3 "$TOP/bench/evict.py" "$a" "$b")
time_pair ud dq ud_cmd dq_cmd
ROUND_BEFORE=()
printf 'the same trees cold, median of %d: upstream-diff %.3fs, diff -rq %.3fs, ratio %sx (median of the rounds %.2fx)\n' \
	"$ROUNDS" "$ud_median" "$dq_median" "$(ratio "$ud_median" "$dq_median")" "$(awk -v p="$ud_dq_pair" 'BEGIN { printf "%.2f", 1 / p }')"
printf '  min/max: upstream-diff %.3f/%.3fs, diff -rq %.3f/%.3fs; peak RSS %s vs %s MiB\n' \
	"$ud_best" "$ud_max" "$dq_best" "$dq_max" "$ud_rss" "$dq_rss"
echo "machine after: $(uptime | sed 's/.*load/load/')"
