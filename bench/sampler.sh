#!/usr/bin/env bash
# Benchmark of run's sampler (issue 32): its overhead at the default 50 ms
# on a process tree of 8 processes, as CPU seconds of allocbuild against
# the command's, target under 1%. The command: a shell that starts 8
# processes, each busy for SECONDS (default 10) half of the time (a loop
# of 20 ms of work and 20 ms of sleep, as a server under load), and waits
# for them. `run --sample-ms 50` records allocbuild's own CPU
# (allocbuild_cpu_s: the sampler, the run environment, the log's tee and
# the wait) and the sampler thread's (sampler_cpu_s) beside the command's
# tree (user_s + sys_s, wait4); the same command with --sample-ms 0 gives
# what allocbuild costs without the sampler. A tiny OUTDIR as in
# bench/compare.sh. ROUNDS runs of each (default 3).
# usage: bench/sampler.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
bench_setup sampler 0 "$@"

machine_line
p=$WORK/src/tiny-1.0
mkdir -p "$p" "$WORK/mirror/sha256"
cat >"$p/configure" <<'CFG'
#!/bin/sh
printf 'all: bin/tiny\n\nbin/tiny:\n\tmkdir -p bin\n\tprintf "#!/bin/true\\n" >bin/tiny\n\tchmod +x bin/tiny\n' >Makefile
CFG
chmod +x "$p/configure"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$WORK/src" -czf "$WORK/tiny-1.0.tar.gz" tiny-1.0
sha=$(sha256sum "$WORK/tiny-1.0.tar.gz" | cut -d' ' -f1)
cp "$WORK/tiny-1.0.tar.gz" "$WORK/mirror/sha256/$sha"
cat >"$WORK/r.json" <<JSON
{"recipe": 1, "name": "tiny",
 "sources": {"t": {"archive": {"urls": ["https://example.invalid/tiny-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "a", "source": "t", "build": {"system": "autotools"}, "artifacts": ["bin/tiny"]}]}
JSON
o=$WORK/out
XDG_CACHE_HOME=$WORK/cache "$AB" build --mirror-dir "$WORK/mirror" -o "$o" "$WORK/r.json" >"$WORK/build.log" 2>&1 ||
	{ tail -n 30 "$WORK/build.log"; exit 1; }
cat >"$WORK/busy.py" <<'PY'
# busy.py SECONDS: 20 ms of work, 20 ms of sleep, for SECONDS
import sys, time
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    t = time.monotonic() + 0.02
    while time.monotonic() < t:
        pass
    time.sleep(0.02)
PY
cat >"$WORK/tree.sh" <<SH2
#!/bin/sh
for i in 1 2 3 4 5 6 7 8; do /usr/bin/python3 "$WORK/busy.py" ${SECONDS_BUSY:-10} & done
wait
SH2
chmod +x "$WORK/tree.sh"
for ((i = 0; i < ROUNDS; i++)); do
	"$AB" run "$o" a --cache "$WORK/cache" --name sampled -- "$WORK/tree.sh" >/dev/null 2>&1
	"$AB" run "$o" a --cache "$WORK/cache" --name unsampled --sample-ms 0 -- "$WORK/tree.sh" >/dev/null 2>&1
done
python3 - "$o" <<'PY'
import glob, json, statistics, sys
def runs(name):
    return [json.load(open(f))["predicate"] for f in sorted(glob.glob("%s/runs/%s/*.intoto.json" % (sys.argv[1], name)))]
s, u = runs("sampled"), runs("unsampled")
cmd = [r["user_s"] + r["sys_s"] for r in s]
ab = [r["overhead"]["allocbuild_cpu_s"] for r in s]
sam = [r["overhead"]["sampler_cpu_s"] for r in s]
reads = [r["overhead"]["sampler_readings"] for r in s]
procs = [r["sampling"]["figures"]["max_processes"] for r in s]
ab0 = [r["overhead"]["allocbuild_cpu_s"] for r in u]
m = statistics.median
print("command: %d processes at most, %.2f s of CPU (median of %d runs), %d readings at 50 ms" %
      (max(procs), m(cmd), len(s), m(reads)))
print("allocbuild: %.4f s of CPU sampled, of which the sampler %.4f s (%.3f ms a reading); %.4f s unsampled" %
      (m(ab), m(sam), 1000 * m(sam) / m(reads), m(ab0)))
r = m(ab) / m(cmd)
print("allocbuild's CPU against the command's: %.3f%% (the sampler's alone %.3f%%): %s (target < 1%%)" %
      (100 * r, 100 * m(sam) / m(cmd), "PASS" if r < 0.01 else "FAIL"))
PY
echo "machine after: $(uptime | sed 's/.*load/load/')"
