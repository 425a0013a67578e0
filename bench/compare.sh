#!/usr/bin/env bash
# Benchmark of allocbuild compare (issue 32): compare on RUNS_MANY (default
# 10,000) run records, target under 1 s. A tiny OUTDIR (a program that is
# /bin/true, and a runtime variant of it: an A/A control) gets 10 real
# runs (--repeat 5 --rotate), which bench/compare.py copies into RUNS_MANY
# records of one run name (two labels, 5,000 rotated repetitions, wall
# and CPU time, peak RSS and a driver's figure drawn from a seeded normal
# distribution), listed in SHA256SUMS. compare reads them all (each
# checked against its digest in SHA256SUMS), pairs them, and bootstraps
# each of its 4 rows (wall_s, cpu_s, maxrss_mib, the driver's ops_per_s;
# 10,000 resamples) over 5,000 pairs. The peer: python3 reading and parsing the same records with its
# json module (no statistics), measured in the same rounds.
# usage: bench/compare.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup compare 0 "$@"

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
 "variants": [{"label": "a", "source": "t", "build": {"system": "autotools"}, "artifacts": ["bin/tiny"]},
              {"label": "b", "runtime_of": "a"}]}
JSON
o=$WORK/out
XDG_CACHE_HOME=$WORK/cache "$AB" build --mirror-dir "$WORK/mirror" -o "$o" "$WORK/r.json" >"$WORK/build.log" 2>&1 ||
	{ tail -n 30 "$WORK/build.log"; exit 1; }
"$AB" run "$o" a b --cache "$WORK/cache" --name seed --repeat 5 --rotate --sample-ms 0 -- {bin} >/dev/null 2>&1
python3 "$TOP/bench/compare.py" "$o" seed many "${RUNS_MANY:-10000}"
n=$(ls "$o/runs/many" | grep -c 'intoto.json$')
echo "records: $n in $o/runs/many ($(du -sm "$o/runs/many" | cut -f1) MB)"

compare_cmd=("$AB" compare "$o" --name many --format json)
peer_cmd=(python3 -c 'import glob, json, sys
for f in glob.glob(sys.argv[1] + "/runs/many/*.intoto.json"):
    json.load(open(f))' "$o")
"${compare_cmd[@]}" >"$WORK/compare.json" 2>"$WORK/compare.err" || true
python3 - "$WORK/compare.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sets"][0]
print("compared: %d runs, %s, controls %s" % (s["runs"], "paired" if s["paired"] else "unpaired: " + s["unpaired_why"],
      [c["labels"] for c in s["controls"]]))
for c in s["comparisons"]:
    print("  %-9s %s against %s: n %d, ratio %.4f [%.4f, %.4f], p %.3g: %s" % (c["metric"], c["label"], c["against"],
          c["n"], c["ratio"], c["ci"][0], c["ci"][1], c["p"], c["verdict"]))
PY
time_pair cmp py compare_cmd peer_cmd
awk -v c="$cmp_median" -v cb="$cmp_best" -v cc="$cmp_cpu" -v cr="$cmp_rss" -v p="$py_median" -v n="$n" \
    -v pair="$cmp_py_pair" 'BEGIN {
	printf "compare of %d runs: best %.3f s, median %.3f s, cpu %s s, peak RSS %s MiB: %s (target < 1 s)\n",
	    n, cb, c, cc, cr, (c < 1 ? "PASS" : "FAIL")
	printf "python3 json.load of the same records: median %.3f s; compare takes %.2fx its time (median of the rounds %.2fx)\n",
	    p, c / p, 1 / pair }'
echo "machine after: $(uptime | sed 's/.*load/load/')"
