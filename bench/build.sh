#!/usr/bin/env bash
# Benchmark of `allocbuild build`, figures measured in this run:
#  1. allocbuild's own time on the default recipe: its CPU time (getrusage
#     RUSAGE_SELF, every thread) against the build's wall time; target <= 2%;
#  2. a no-op rerun of the whole recipe; target < 1 s;
#  3. whether the variants were built in parallel (their steps overlap);
#  4. with ccache installed: a three-variant build of the flb-like fixture
#     with and without --ccache (cold cache for "without", warm objects shared
#     between the variants for "with"), and the ratio.
# usage: bench/build.sh [WORKDIR]   (default: a temporary directory)
#        BENCH_CCACHE=0 skips part 4
set -eu
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
TOP=$(pwd)
make -s allocbuild
AB=$TOP/allocbuild
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
mirror=$("$TOP/scripts/debian-mirror.sh" "$work/mirror")
export XDG_CACHE_HOME=$work/cache
unset MALLOC_CONF LD_PRELOAD

stat_line() { grep '^allocbuild: stats:' "$1" | tail -1; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "== 1. allocbuild's own time, default recipe (2 jemalloc builds)"
rm -rf "$work/out"
ALLOCBUILD_STATS=1 "$AB" build --mirror-dir "$mirror" -o "$work/out" recipes/jemalloc-5.3.0-policy.json \
	>"$work/build.out" 2>"$work/build.err"
cat "$work/build.out"
s=$(stat_line "$work/build.err")
echo "$s"
own_pct=$(echo "$s" | sed -n 's/.*(\([0-9.]*\)% of wall).*/\1/p')
awk -v p="$own_pct" 'BEGIN { printf "own time %.2f%% of wall: %s (target <= 2%%)\n", p, (p <= 2.0 ? "PASS" : "FAIL") }'

echo "== 2. no-op rerun"
t0=$(now)
ALLOCBUILD_STATS=1 "$AB" build --mirror-dir "$mirror" -o "$work/out" recipes/jemalloc-5.3.0-policy.json \
	>/dev/null 2>"$work/noop.err"
t1=$(now)
grep -c "up to date" "$work/noop.err" | sed 's/^/steps up to date: /'
awk -v a="$t0" -v b="$t1" 'BEGIN { d = b - a; printf "no-op rerun %.3fs: %s (target < 1s)\n", d, (d < 1 ? "PASS" : "FAIL") }'

echo "== 3. parallel variants"
python3 - "$work/out/provenance/build-commands.json" <<'PY'
import json, sys, datetime
d = json.load(open(sys.argv[1]))
spans = {}
for v in d["variants"]:
    for s in v["steps"]:
        if "started_on" not in s:
            continue
        t = datetime.datetime.strptime(s["started_on"], "%Y-%m-%dT%H:%M:%SZ").timestamp()
        a, b = spans.get(v["label"], (t, t))
        spans[v["label"]] = (min(a, t), max(b, t + s["duration_s"]))
print("build spans:", ", ".join("%s %.0fs" % (k, b - a) for k, (a, b) in spans.items()))
ls = list(spans.values())
if len(ls) >= 2:
    ov = min(ls[0][1], ls[1][1]) - max(ls[0][0], ls[1][0])
    print("variants overlapped for %.0fs: %s" % (max(ov, 0), "PASS (parallel)" if ov > 0 else "sequential"))
PY

echo "== 4. ccache"
if [ "${BENCH_CCACHE:-1}" = 0 ]; then
	echo "skipped (BENCH_CCACHE=0)"
	exit 0
fi
if ! command -v ccache >/dev/null; then
	echo "ccache not installed: skipped"
	exit 0
fi
rm -rf "$work/flb"
commit=$(sh tests/fixtures/make-flb-like.sh --git "$work/flb" "$mirror/jemalloc-5.3.0.tar.bz2")
cat >"$work/flb3.json" <<JSON
{
	"recipe": 1,
	"name": "flb3",
	"sources": {"flb": {"git": {"url": "file://$work/flb", "commit": "$commit"}}},
	"variants": [
		{"label": "a", "source": "flb", "build": {"system": "cmake", "defines": {"FLB_JEMALLOC": "On"}, "targets": ["fluent-bit-bin"]}, "artifacts": ["bin/fluent-bit"]},
		{"label": "b", "source": "flb", "build": {"system": "cmake", "defines": {"FLB_JEMALLOC": "On", "FLB_BENCH_B": "1"}, "targets": ["fluent-bit-bin"]}, "artifacts": ["bin/fluent-bit"]},
		{"label": "c", "source": "flb", "build": {"system": "cmake", "defines": {"FLB_JEMALLOC": "On", "FLB_BENCH_C": "1"}, "targets": ["fluent-bit-bin"]}, "artifacts": ["bin/fluent-bit"]}
	]
}
JSON
export CCACHE_DIR=$work/ccache
rm -rf "$CCACHE_DIR"
t0=$(now)
"$AB" build -o "$work/flb-plain" "$work/flb3.json" >/dev/null 2>"$work/flb-plain.err"
t1=$(now)
"$AB" build --ccache -o "$work/flb-ccache" "$work/flb3.json" >/dev/null 2>"$work/flb-ccache.err"
t2=$(now)
"$AB" build --ccache --force -o "$work/flb-ccache" "$work/flb3.json" >/dev/null 2>"$work/flb-ccache2.err"
t3=$(now)
ccache -s | grep -Ei 'hits|misses' | head -4 || true
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN { p = b - a; q = c - b; w = d - c;
	printf "three variants: without ccache %.1fs; with ccache, empty cache (variants share objects) %.1fs, ratio %.2f; with ccache, warm cache (--force) %.1fs, ratio %.2f\n", p, q, p / q, w, p / w }'
