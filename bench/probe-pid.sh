#!/usr/bin/env bash
# Benchmark of `allocbuild probe --pid` (issue 13): one running process
# whose executable is 20 MB (recipes/alive linked statically with Debian's
# libjemalloc.a, padded with 20 MB of read-only data), target under 50 ms
# of wall time per probe. For scale, the same run times `sha256sum` of
# /proc/PID/exe, the one part of the work that grows with the executable:
# the ratio says what the rest (the ELF scan for allocators, /proc/PID/maps,
# environ, stat, the checks) costs on top of hashing. Each command runs
# ROUNDS times (default 5) after a warm-up, with a warm page cache.
# usage: bench/probe-pid.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup probe-pid 0 "$@"
lib=/usr/lib/x86_64-linux-gnu/libjemalloc.a
[ -f "$lib" ] || { echo "bench: $lib is needed (libjemalloc-dev)" >&2; exit 2; }

machine_line
printf 'const unsigned char alive_pad[20 << 20] = {1};\n' >"$WORK/pad.c"
cc -O2 -o "$WORK/alive" recipes/alive/alive.c "$WORK/pad.c" "$lib" -lpthread -ldl -lm
echo "executable: $(stat -c %s "$WORK/alive") bytes, jemalloc $(strings "$lib" | grep -m1 -o '^5\.[0-9.]*-[0-9]*-g[0-9a-f]*' || echo '?')"
MALLOC_CONF=narenas:2 "$WORK/alive" --wait >"$WORK/ready" 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/ready" ] && break; sleep 0.05; done
[ -s "$WORK/ready" ] || { echo "bench: the process did not start" >&2; exit 1; }

time_cmd probe "$AB" probe --pid "$pid"
time_cmd json "$AB" probe --pid "$pid" --json
time_cmd hash sha256sum "/proc/$pid/exe"
awk -v b="$probe_best" -v m="$probe_median" -v c="$probe_cpu" -v r="$ROUNDS" -v s="$probe_rss" 'BEGIN {
	printf "probe --pid                best %5.1f ms, median of %d %5.1f ms, cpu %s s, peak RSS %s MiB: %s (target < 50 ms)\n",
	    b * 1000, r, m * 1000, c, s, (m < 0.050 ? "PASS" : "FAIL") }'
awk -v b="$json_best" -v m="$json_median" -v r="$ROUNDS" -v s="$json_rss" 'BEGIN {
	printf "probe --pid --json         best %5.1f ms, median of %d %5.1f ms, peak RSS %s MiB\n", b * 1000, r, m * 1000, s }'
awk -v b="$hash_best" -v m="$hash_median" -v r="$ROUNDS" -v s="$hash_rss" 'BEGIN {
	printf "for scale: sha256sum exe   best %5.1f ms, median of %d %5.1f ms, peak RSS %s MiB\n", b * 1000, r, m * 1000, s }'
echo "probe --pid / sha256sum of the executable (medians): $(ratio "$probe_median" "$hash_median")"
echo "machine after: $(uptime | sed 's/.*load/load/')"
