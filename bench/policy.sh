#!/usr/bin/env bash
# Benchmark of verify --policy (issue 35) on the default recipe's OUTDIR
# (recipes/jemalloc-5.3.0-policy.json) with RUNS run records (default
# 1,000: `run --repeat RUNS/2` of stock53 and fit-only, a command that
# exits at once): the plain `verify OUTDIR` against `verify --policy` with
# the shipped policy (recipes/jemalloc-5.3.0-policy.policy.json) plus a
# runs rule over the records (repetitions per label, THP and governor
# equal, an A/A control), run in turn (A B A B ...) on a warm page cache.
# Target: under 100 ms beyond the plain verify. The OUTDIR is $OUTDIR when
# set (a default-recipe build; copied, not changed), else the default recipe
# is built in the work directory (2-3 minutes; KEEP=1 keeps it).
# usage: OUTDIR=DIR [RUNS=1000] bench/policy.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup policy 0 "$@"
RUNS=${RUNS:-1000}

machine_line
default_outdir
o=$WORK/outdir
if [ ! -d "$o/runs/b" ] || [ "$(ls "$o/runs/b" | grep -c '\.intoto\.json$')" != "$RUNS" ]; then
	rm -rf "$o"
	cp -a "$src" "$o"
	echo "recording $RUNS runs ..."
	"$AB" run -q "$o" stock53 fit-only --repeat $((RUNS / 2)) --rotate --name b -- true >"$WORK/run.log" 2>&1 ||
		{ tail -n 20 "$WORK/run.log"; exit 1; }
fi
python3 - "$TOP/recipes/jemalloc-5.3.0-policy.policy.json" >"$WORK/policy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rules"].append({"variants": ["stock53", "fit-only"], "runs": {"name": "b", "min_repetitions": 3,
    "equal": ["memory.thp_enabled", "cpu.governor"], "aa_control": True}})
json.dump(d, sys.stdout)
PY
echo "OUTDIR: $(ls "$o/runs/b" | grep -c '\.intoto\.json$') run records, $(wc -l <"$o/SHA256SUMS") lines of SHA256SUMS"
plain=("$AB" verify "$o")
policy=("$AB" verify --policy "$WORK/policy.json" "$o")
time_pair plain policy plain policy
awk -v a="$plain_best" -v am="$plain_median" -v b="$policy_best" -v bm="$policy_median" -v r="$ROUNDS" 'BEGIN {
	printf "verify OUTDIR                best %6.1f ms, median of %d %6.1f ms\n", a * 1000, r, am * 1000
	printf "verify --policy OUTDIR       best %6.1f ms, median of %d %6.1f ms\n", b * 1000, r, bm * 1000
	printf "cost of the policy: %.1f ms (best), %.1f ms (median): %s (target < 100 ms)\n", (b - a) * 1000,
	    (bm - am) * 1000, (bm - am < 0.100 ? "PASS" : "FAIL") }'
echo "cpu: plain $plain_cpu s, with the policy $policy_cpu s"
echo "machine after: $(uptime | sed 's/.*load/load/')"
