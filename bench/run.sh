#!/usr/bin/env bash
# Benchmark of allocbuild run (issue 14): allocbuild's own overhead per run,
# target under 20 ms of wall time. The same command (a 20 MB program that
# exits at once: a script whose interpreter is /bin/true, padded to 20 MiB)
# runs ROUNDS times (default 5, after a warm-up) directly and through
# `allocbuild run OUTDIR big --name bench -- {bin}`; the difference of the
# medians is what a run costs on top of the command: the checks of the
# build's record (binary-provenance.json and the statement against
# SHA256SUMS), the program's digest (from the digest cache, the program
# unchanged since its first run: lib/digestcache.h), the run environment read twice,
# the log teed, the record and its Statement written atomically (fsync),
# SHA256SUMS rewritten, and the OUTDIR lock. The OUTDIR is built in the work
# directory from a tiny autotools-shaped project (no compiler needed beyond
# the shell), so the benchmark runs in seconds. The page cache is warm.
# Part (2), below, times verify of that OUTDIR before and after RUNS_MANY
# more runs (about 30 s for the default 3000); part (3) the last cold.
# usage: bench/run.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup run 0 "$@"

machine_line
# the project: configure writes a Makefile whose all target makes bin/big
p=$WORK/src/bigprog-1.0
mkdir -p "$p" "$WORK/mirror/sha256"
cat >"$p/configure" <<'CFG'
#!/bin/sh
printf 'all: bin/big\n\nbin/big:\n\tmkdir -p bin\n\t{ printf "#!/bin/true\\n"; head -c 20971520 /dev/zero; } >bin/big.tmp\n\tchmod +x bin/big.tmp\n\tmv bin/big.tmp bin/big\n' >Makefile
CFG
chmod +x "$p/configure"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$WORK/src" -czf "$WORK/bigprog-1.0.tar.gz" bigprog-1.0
sha=$(sha256sum "$WORK/bigprog-1.0.tar.gz" | cut -d' ' -f1)
cp "$WORK/bigprog-1.0.tar.gz" "$WORK/mirror/sha256/$sha"
cat >"$WORK/r.json" <<JSON
{"recipe": 1, "name": "big",
 "sources": {"b": {"archive": {"urls": ["https://example.invalid/bigprog-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "big", "source": "b", "build": {"system": "autotools"}, "artifacts": ["bin/big"]}]}
JSON
o=$WORK/out
XDG_CACHE_HOME=$WORK/cache "$AB" build --mirror-dir "$WORK/mirror" -o "$o" "$WORK/r.json" >"$WORK/build.log" 2>&1 ||
	{ tail -n 30 "$WORK/build.log"; exit 1; }
big=$o/variants/big/build/bin/big
echo "program: $(du -m --apparent-size "$big" | cut -f1) MB, $big"

# the program settles (lib/digestcache.h: AB_DIGESTCACHE_SETTLE_MS) and its first run hashes it
sleep 1.1
"$AB" run "$o" big --cache "$WORK/cache" --name first -- {bin} >/dev/null 2>&1
time_cmd direct "$big"
time_cmd run "$AB" run "$o" big --cache "$WORK/cache" --name bench -- {bin}
# the same with the program hashed every time (--rehash): what a first run costs
time_cmd rehash "$AB" run "$o" big --cache "$WORK/cache" --rehash --name bench-rehash -- {bin}
"$AB" verify "$o" >/dev/null || { echo "bench: the OUTDIR does not verify after the runs" >&2; exit 1; }
runs=$(ls "$o/runs/bench" | grep -c 'intoto.json$')
# each side did what it is said to: the cache vouched for the program, --rehash hashed it
by() {
	python3 -c 'import glob, json, sys
print(" ".join(sorted({json.load(open(f))["predicate"]["artifact"]["checked_by"] for f in glob.glob(sys.argv[1] + "/*.intoto.json")})))' "$1"
}
[ "$(by "$o/runs/bench")" = "digest cache" ] && [ "$(by "$o/runs/bench-rehash")" = hash ] ||
	{ echo "bench: the runs did not check the program as expected" >&2; exit 1; }
# for scale: hashing the program alone
time_cmd hash "$AB" hash "$big"
# CPU time (user + system) of each side, from wait4's rusage in microseconds (GNU time
# has 10 ms steps): on a loaded machine wall time measures the queue, CPU time the work
cpu_ms() {
	python3 - "$ROUNDS" "$@" <<'PY'
import os, statistics, sys
rounds, argv = int(sys.argv[1]), sys.argv[2:]
out = []
for i in range(rounds + 1):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execvp(argv[0], argv)
    _, status, ru = os.wait4(pid, 0)
    if i:
        out.append((ru.ru_utime + ru.ru_stime) * 1000)
print("%.1f" % statistics.median(out))
PY
}
direct_cpums=$(cpu_ms "$big")
run_cpums=$(cpu_ms "$AB" run "$o" big --cache "$WORK/cache" --name bench-cpu -- {bin})
rehash_cpums=$(cpu_ms "$AB" run "$o" big --cache "$WORK/cache" --rehash --name bench-cpu-rehash -- {bin})
nlibs=$(ldd "$AB" | grep -c '=>' || true)
start_cpums=$(cpu_ms "$AB" --version)
hash_cpums=$(cpu_ms "$AB" hash "$big")
"$AB" verify "$o" >/dev/null || { echo "bench: the OUTDIR does not verify after the runs" >&2; exit 1; }

awk -v db="$direct_best" -v dm="$direct_median" -v rb="$run_best" -v rm="$run_median" -v hb="$hash_best" \
    -v rc="$run_cpu" -v r="$ROUNDS" -v n="$runs" -v hm="$rehash_median" -v hhb="$rehash_best" \
    -v ds="$direct_rss" -v rs="$run_rss" 'BEGIN {
	ov = rm - dm
	printf "direct:          best %6.1f ms, median of %d %6.1f ms, peak RSS %s MiB\n", db * 1000, r, dm * 1000, ds
	printf "allocbuild run:  best %6.1f ms, median of %d %6.1f ms, cpu %s s, peak RSS %s MiB (%d runs recorded)\n",
	    rb * 1000, r, rm * 1000, rc, rs, n
	printf "overhead per run (median - median): %.1f ms: %s (target < 20 ms)\n", ov * 1000, (ov < 0.020 ? "PASS" : "FAIL")
	printf "    with --rehash (the program hashed, as a first run does): best %.1f ms, median %.1f ms, overhead %.1f ms\n",
	    hhb * 1000, hm * 1000, (hm - dm) * 1000
	printf "    for scale: allocbuild hash of the 20 MB program alone, best %.1f ms\n", hb * 1000 }'
awk -v d="$direct_cpums" -v r="$run_cpums" -v s="$start_cpums" -v h="$hash_cpums" -v rh="$rehash_cpums" \
    -v nl="$nlibs" 'BEGIN {
	printf "CPU (user+sys, median): direct %.1f ms, allocbuild run %.1f ms: overhead %.1f ms: %s (target < 20 ms)\n",
	    d, r, r - d, (r - d < 20 ? "PASS" : "FAIL")
	printf "    of which: starting allocbuild (--version: the dynamic loader, %d libraries) %.1f ms,\n", nl, s
	printf "    the rest (records, environment, checks, the digest cache) %.1f ms\n", r - d - s
	printf "    with --rehash %.1f ms: overhead %.1f ms; allocbuild hash of the program (with the start) %.1f ms\n",
	    rh, rh - d, h }'

# (2) verify as the runs pile up: the OUTDIR above, then with RUNS_MANY
# (default 3000) more runs recorded (three files each), against
# `sha256sum -c SHA256SUMS` on the same files (verify also parses every
# run record and checks the lists against each other: each lookup must
# stay constant-time, lib/strmap.h, or verify grows with the square of
# the runs)
sums_cmd=(sh -c 'cd "$1" && sha256sum -c --quiet SHA256SUMS' sh "$o")
verify_cmd=("$AB" verify "$o")
verify_line() {
	local files
	files=$(wc -l <"$o/SHA256SUMS")
	time_pair ve ss verify_cmd sums_cmd
	awk -v f="$files" -v v="$ve_median" -v s="$ss_median" -v p="$ve_ss_pair" -v vr="$ve_rss" 'BEGIN {
		printf "verify of %d files: median %.3f s (%.1f us a file, peak RSS %s MiB), sha256sum -c %.3f s: %.2fx its time (median of the rounds %.2fx)\n",
		    f, v, v / f * 1e6, vr, s, v / s, 1 / p }'
}
verify_line
for ((i = 0; i < ${RUNS_MANY:-3000}; i++)); do
	"$AB" run "$o" big --cache "$WORK/cache" --name many -- {bin} >/dev/null 2>&1 ||
		{ echo "bench: run $i of RUNS_MANY failed" >&2; exit 1; }
done
verify_line
# (3) the same OUTDIR cold: its files dropped from the page cache before
# every round of either side (bench/evict.py), as an OUTDIR verified an
# hour after the runs is; verify reads SHA256SUMS's files on the pool
sync
ROUND_BEFORE=(python3 "$TOP/bench/evict.py" "$o")
printf 'cold: '
verify_line
ROUND_BEFORE=()
echo "machine after: $(uptime | sed 's/.*load/load/')"
