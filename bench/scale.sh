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
#     present, else built here once, several minutes); target under 1 s;
#  3. a shared compile cache on a real redis-server (started here on a
#     free loopback port, stopped by pid): the flb-like fixture's three
#     variants (tests/fixtures/make-flb-like.sh, real jemalloc 5.3.0 from
#     Debian's tarball) built without ccache, then with --ccache-remote and
#     both caches empty (cold), then in another, longer OUTDIR with an
#     empty local cache and the warm remote; target: the warm build at
#     most 0.35x the cold builds' wall time (both of them). REMOTE_ROUNDS
#     (default 1) repeats it; the medians are printed. About 7 min a round.
# usage: bench/scale.sh [ALLOCBUILD]   (KEEP=1 keeps bench/.work/scale)
#        BENCH_DEFAULT=0 skips part 2, BENCH_REMOTE=0 part 3
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

if [ "${BENCH_REMOTE:-1}" = 1 ]; then
	echo "== 3. the flb-like fixture with a warm remote cache (redis) and an empty local one, against cold builds"
	cd "$WORK"
	rm -rf rc && mkdir rc && cd rc
	mirror=$("$TOP/scripts/debian-mirror.sh" "${AB_TEST_MIRROR:-$TOP/tests/.cache/mirror}")
	commit=$("$TOP/tests/fixtures/make-flb-like.sh" --git flb-like.git "$mirror/jemalloc-5.3.0.tar.bz2")
	"$TOP/tests/fixtures/flb-like-recipe.sh" https://git.example.invalid/flb-like.git "$commit" \
		"$(sha256sum "$mirror/jemalloc-5.3.0.tar.bz2" | cut -d' ' -f1)" \
		"--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30" >r.json
	src=(--mirror "https://git.example.invalid/=$PWD/" --mirror-dir "$mirror")
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no >redis.log 2>&1 &
	rpid=$!
	trap 'kill $rpid 2>/dev/null; [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"' EXIT
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
		sleep 0.1
	done
	"$AB" fetch -q "${src[@]}" -o warm r.json >/dev/null
	deep=$PWD/another/much/longer/directory/for/the/second/machine
	mkdir -p "$deep"
	: >t-plain; : >t-cold; : >t-warm
	for ((r = 0; r < ${REMOTE_ROUNDS:-1}; r++)); do
		rm -rf plain cold "$deep/warm" cache-cold cache-warm
		redis-cli -p "$port" flushall >/dev/null
		t0=$(now)
		"$AB" build -j 2 "${src[@]}" -o plain r.json >/dev/null 2>&1
		t1=$(now)
		"$AB" build -j 2 "${src[@]}" --ccache-remote "redis://127.0.0.1:$port" --ccache-dir "$PWD/cache-cold" \
			-o cold r.json >/dev/null 2>&1
		t2=$(now)
		"$AB" build -j 2 "${src[@]}" --ccache-remote "redis://127.0.0.1:$port" --ccache-dir "$PWD/cache-warm" \
			-o "$deep/warm" r.json >warm.out 2>&1
		t3=$(now)
		secs "$t0" "$t1" >>t-plain; secs "$t1" "$t2" >>t-cold; secs "$t2" "$t3" >>t-warm
		# through ccache the bytes are not those of a build without it (docs/build.md, "ccache")
		grep -E '  variants/[^/]+/build/' cold/SHA256SUMS >a1
		grep -E '  variants/[^/]+/build/' "$deep/warm/SHA256SUMS" >a2
		cmp -s a1 a2 || { echo "bench: the warm build's artifacts differ from the cold build's" >&2; exit 1; }
	done
	mem=$(redis-cli -p "$port" info memory | tr -d '\r' | sed -n 's/^used_memory_human://p')
	keys=$(redis-cli -p "$port" dbsize)
	kill $rpid; wait $rpid 2>/dev/null || true
	plain=$(median <t-plain) cold=$(median <t-cold) warm=$(median <t-warm)
	grep '^ccache ' warm.out | sed 's/^/  warm: /'
	echo "redis: $keys keys, $mem used"
	echo "build without ccache ${plain}s; cold caches ${cold}s; warm remote, empty local ${warm}s (median of ${REMOTE_ROUNDS:-1})"
	rp=$(ratio "$warm" "$plain") rc=$(ratio "$warm" "$cold")
	echo "warm remote: ${rp}x the build without ccache, ${rc}x the cold-cache build: $(awk -v a="$rp" -v b="$rc" 'BEGIN { print (a <= 0.35 && b <= 0.35 ? "PASS" : "FAIL") }') (target <= 0.35x); the warm and cold builds' artifacts identical"
fi
