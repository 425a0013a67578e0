#!/usr/bin/env bash
# Benchmark of sharded builds and `merge`, figures measured in this run:
#  1. a five-variant CMake fixture (three builds, a relink, a runtime_of;
#     tests/fakeproj.sh) built whole, and as the three shards of
#     `plan --matrix -n 3` one after another; the ratio of their wall
#     times, and the merge of the three shards (--copy and --move);
#     target: the merge under 1 s;
#  2. the merge of the default recipe's OUTDIR (two jemalloc builds and a
#     runtime_of, about 260 MB of build trees) given as the only shard,
#     --copy and --move (the OUTDIR of tests/lib.sh's default_build when
#     present, else built here once, several minutes); target under 1 s.
# usage: bench/scale.sh [ALLOCBUILD]   (KEEP=1 keeps bench/.work/scale)
#        BENCH_DEFAULT=0 skips part 2
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup scale 0 "$@"
export XDG_CACHE_HOME=$WORK/cache LC_ALL=C TZ=UTC
unset MALLOC_CONF LD_PRELOAD
machine_line

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
verdict() { awk -v d="$1" 'BEGIN { print (d < 1 ? "PASS" : "FAIL") }'; }

echo "== 1. the fixture: whole against 3 shards one after another, then merged"
cd "$WORK"
rm -rf fx && mkdir fx && cd fx
. "$TOP/tests/fakeproj.sh"
make_fakecmake_shard_recipe r.json
# the sources in the cache first: neither side pays for the first fetch
"$AB" fetch -q --mirror-dir mirror -o warm r.json >/dev/null
t0=$(now)
"$AB" build -j 2 --mirror-dir mirror -o whole r.json >/dev/null 2>&1
t1=$(now)
for k in 1 2 3; do
	"$AB" build -j 2 --mirror-dir mirror --shard $k/3 -o s$k r.json >/dev/null 2>&1
done
t2=$(now)
"$AB" merge -o merged s1 s2 s3 2>/dev/null
t3=$(now)
"$AB" verify merged >/dev/null
for k in 1 2 3; do cp -a s$k m$k; done
t4=$(now)
"$AB" merge --move -o moved m1 m2 m3 2>/dev/null
t5=$(now)
whole=$(secs "$t0" "$t1")
shards=$(secs "$t1" "$t2")
mc=$(secs "$t2" "$t3")
mm=$(secs "$t4" "$t5")
echo "whole build ${whole}s; 3 shards one after another ${shards}s ($(ratio "$shards" "$whole")x the whole: the variants two shards need are built twice)"
echo "merge --copy of 3 shards ${mc}s: $(verdict "$mc") (target < 1s)"
echo "merge --move of 3 shards ${mm}s: $(verdict "$mm") (target < 1s)"

if [ "${BENCH_DEFAULT:-1}" = 1 ]; then
	echo "== 2. the default recipe's OUTDIR merged (--copy, --move)"
	cd "$WORK"
	src=$TOP/tests/.cache/default-build/out
	if [ ! -f "$src/SHA256SUMS" ]; then
		mirror=$("$TOP/scripts/debian-mirror.sh" "$WORK/mirror")
		"$AB" build --mirror-dir "$mirror" -o "$WORK/default" "$TOP/recipes/jemalloc-5.3.0-policy.json" >/dev/null 2>&1
		src=$WORK/default
	fi
	rm -rf d1 dm dv
	cp -a "$src" d1
	echo "shard: $(du -sh d1 | cut -f1), $(find d1 -type f | wc -l) files"
	t0=$(now)
	"$AB" merge -o dm d1 2>/dev/null
	t1=$(now)
	"$AB" verify dm >/dev/null
	t2=$(now)
	"$AB" merge --move -o dv d1 2>/dev/null
	t3=$(now)
	mc=$(secs "$t0" "$t1")
	mm=$(secs "$t2" "$t3")
	echo "merge --copy ${mc}s: $(verdict "$mc") (target < 1s)"
	echo "merge --move ${mm}s: $(verdict "$mm") (target < 1s)"
fi
