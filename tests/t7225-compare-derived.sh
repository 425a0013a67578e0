#!/usr/bin/env bash
# Derived figures (compare --derive, --metrics FILE): a driver reports
# busy seconds and records from a table, and compare computes CPU seconds
# per million records per run, exactly as by hand, with the same medians,
# ranges, ratio, U test and verdict as a raw figure; its definition in the
# table, in json, in the signed test result and in pr.md. A run without
# an input, and one whose input is 0, have no value, said, never 0. The
# RSS window figures of real sampled runs against a hand computation from
# their series files. Errors: the position and the nearest name, exit 2,
# nothing printed.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

make_fakeproj_runtime_recipe r.json '{"FAKE_MODE": "two"}'
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json

# the n-th run of a label reports busy_s and records from the table; NORECORDS=N leaves records out of run N
cat >table <<'T'
a 1 0.50 1000000
a 2 0.60 1000000
a 3 0.40 1000000
a 4 0.55 1000000
a 5 0.45 1000000
a2 1 0.70 500000
a2 2 0.80 500000
a2 3 0.75 500000
a2 4 0.72 500000
a2 5 0.78 0
T
cat >drive <<'SH'
#!/bin/sh
f=count-$ALLOCBUILD_LABEL
n=$(($(cat "$f" 2>/dev/null || echo 0) + 1))
echo $n >"$f"
set -- $(awk -v l="$ALLOCBUILD_LABEL" -v n=$n '$1 == l && $2 == n { print $3, $4 }' table)
echo "ALLOCBUILD_METRIC busy_s=$1 s"
[ "${NORECORDS:-}" = "$n" ] || echo "ALLOCBUILD_METRIC records=$2 records better=higher"
SH
chmod +x drive
# 4 rotated repetitions: every value is in the table, by hand per_M = busy_s / records * 1e6:
# a 0.5 0.6 0.4 0.55 (median 0.525, 0.4-0.6), a2 1.4 1.6 1.5 1.44 (median 1.47, 1.4-1.6): ratio 2.8;
# busy_s a2 0.7 0.8 0.75 0.72 (median 0.735): ratio 1.4; every run of a2 above every run of a: p 2/C(8,4)
expect_exit 0 "$AB" run bo a a2 --repeat 4 --rotate --name p --sample-ms 0 -- ./drive
def='per_M s/M = busy_s / records * 1e6'
expect_exit 0 "$AB" compare bo --name p --metric busy_s --derive "$def"
unload
expect_file out <<'OUT'
runs/p: 8 runs of 2 labels, 0 failed; baseline a; paired by repetition (rotated runs)
ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%
Derived: per_M (s/M) = busy_s / records * 1e6, computed per run (lower is better).
Same bytes: a2 ran the bytes of a in another runtime environment.
No A/A control: no two labels ran the same bytes with the same runtime environment.

METRIC  UNIT  CELL  LABEL  N  MEDIAN  MIN-MAX        RATIO  95% CI          P       VERDICT
busy_s  s     -     a      4  0.5250  0.4000-0.6000  -      -               -       baseline
busy_s  s     -     a2     4  0.7350  0.7000-0.8000  1.400  [1.309, 1.875]  0.0286  worse
per_M   s/M   -     a      4  0.5250  0.4000-0.6000  -      -               -       baseline
per_M   s/M   -     a2     4  1.470   1.400-1.600    2.800  [2.618, 3.750]  0.0286  worse
OUT
check "no warnings" test ! -s err
# the per-run values, each against the hand computation
expect_exit 0 "$AB" compare bo --name p --metric busy_s --derive "$def" --format json
check "json: the values of per_M, as by hand" python3 - out <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["sets"][0]
want = {"a": [0.5, 0.6, 0.4, 0.55], "a2": [1.4, 1.6, 1.5, 1.44]}
for g in d["groups"]:
    if g["metric"] != "per_M":
        continue
    got = g["values"]
    assert len(got) == 4 and all(abs(x - y) <= 1e-12 * y for x, y in zip(sorted(got), sorted(want[g["label"]]))), (g["label"], got)
    assert abs(g["median"] - {"a": 0.525, "a2": 1.47}[g["label"]]) <= 1e-12, g
m = [x for x in d["metrics"] if x["name"] == "per_M"][0]
assert m == {"name": "per_M", "unit": "s/M", "better": "lower", "from": "derived", "definition": "busy_s / records * 1e6"}, m
PY
# the same from a metrics file; a definition in it that does not parse is named by line and column
printf '{"derived": [\n  "%s"\n]}\n' "$def" >metrics.json
expect_exit 0 "$AB" compare bo --name p --metric busy_s --metrics metrics.json
cp out from-file
expect_exit 0 "$AB" compare bo --name p --metric busy_s --derive "$def"
check "--metrics FILE and --derive give the same table" cmp -s out from-file
expect_exit 0 "$AB" compare bo --name p --metric busy_s --metric per_M --derive "$def"
check "--metric may name a derived figure" cmp -s out from-file

# --- a run without records, a run with 0 records: no value, said; never 0
# (the second run of each label reports no records, a2's fifth 0 records:
# a 0.5 0.4 0.55 0.45, median 0.475; a2 1.4 1.5 1.44, median 1.44)
rm -f count-*
expect_exit 0 "$AB" run bo a a2 --repeat 5 --name q --sample-ms 0 --env NORECORDS=2 -- ./drive
expect_exit 0 "$AB" compare bo --name q --metric busy_s --derive "$def"
unload
check "per_M of a: 4 runs" grep -qE '^per_M +s/M +- +a +4 +0.4750 +0.4000-0.5500 +- ' out
check "per_M of a2: 3 runs" grep -qE '^per_M +s/M +- +a2 +3 +1.440 +1.400-1.500 +3.032 .* too few runs$' out
expect_file err <<'ERR'
allocbuild: warning: compare: runs/q: per_M: 3 of the 10 successful runs have no value of the derived figure (busy_s / records * 1e6), left out, not shown as 0: 0003-a (no value of 'records'), 0004-a2 (no value of 'records'), 0010-a2 ('records' is 0: a division by zero (position 20))
ERR

# --- the definitions recorded: in the signed test result and pr.md
make_keys
expect_exit 0 "$AB" compare bo --name p --metric busy_s --derive "$def" --sign ed.pem
check "test result: the definition in compare's settings" test "$(json bo/test-results/p.intoto.json '[json.loads(__import__("base64").b64decode(c["content"])).get("derived") for c in d["predicate"]["configuration"] if c.get("name") == "allocbuild compare settings"]')" = "[['$def']]"
check "test result: per_M's test with its definition" test "$(json bo/test-results/p.intoto.json '[(t["metric"], t["definition"], t["shown"]["ratio"], t["outcome"]) for t in d["predicate"]["tests"] if t["metric"] == "per_M"]')" = "[('per_M', 'busy_s / records * 1e6', '2.800', 'FAILED')]"
expect_exit 0 "$AB" verify --key ed.pub.pem bo
rm bo/test-results/p.intoto.json
expect_exit 0 "$AB" pr --sign ed.pem --derive "$def" bo
check "pr --sign: the test result has the derived figure too" test "$(json bo/test-results/p.intoto.json '[t["shown"]["ratio"] for t in d["predicate"]["tests"] if t["metric"] == "per_M"]')" = "['2.800']"
expect_exit 0 "$AB" verify --key ed.pub.pem bo
expect_grep 'Derived figure: `per_M` (s/M) = `busy_s / records * 1e6`, computed per run (lower is better).' bo/pr.md
expect_grep '| `per_M` (s/M) | `a2` | 4 | 1.470 (1.400–1.600) | 2.800 [2.618, 3.750] | 0.0286 | **worse** |' bo/pr.md

# --- window figures of the RSS series: real runs, checked against their series files by hand
cat >grow <<'SH'
#!/bin/sh
exec python3 -c '
import time, sys
a = bytearray(8 << 20); time.sleep(0.4)
print("grown", flush=True)
b = bytearray(24 << 20); time.sleep(0.4)
print("done", flush=True); time.sleep(0.1)
'
SH
chmod +x grow
expect_exit 0 "$AB" run bo a a2 --repeat 2 --name soak --sample-ms 20 --mark-start '^grown$' --mark '^done$' -- ./grow
win='late MiB = rss_mean(start, end)'
drift='drift % = growth_pct(rss_median(start + 100ms, end), rss_median(100ms, start - 50ms))'
expect_exit 0 "$AB" compare bo --name soak --metric wall_s --derive "$win" --derive "$drift" --format json
check "the window figures, as by hand from each series" python3 - out bo <<'PY'
import csv, json, statistics, sys
d = json.load(open(sys.argv[1]))["sets"][0]
outdir = sys.argv[2]
def rss(series, a, b):
    v = [int(r["rss_kb"]) / 1024 for r in series if int(r["ms"]) + 0.5 >= a * 1000 and int(r["ms"]) - 0.5 <= b * 1000]
    assert len(v) >= 3, (a, b, v)
    return v
got = {}
for g in d["groups"]:
    for run, v in zip(g["runs"], g["values"]):
        got[(g["metric"], run)] = v
n = 0
for g in d["groups"]:
    if g["metric"] != "wall_s":
        continue
    for run in g["runs"]:
        rec = json.load(open("%s/runs/soak/%04d-%s.intoto.json" % (outdir, run, g["label"])))["predicate"]
        series = list(csv.DictReader(open("%s/%s" % (outdir, rec["sampling"]["series"]["path"]))))
        w = rec["sampling"]["window"]
        late = statistics.mean(rss(series, w["start_s"], w["end_s"]))
        drift = (statistics.median(rss(series, w["start_s"] + 0.1, w["end_s"])) /
                 statistics.median(rss(series, 0.1, w["start_s"] - 0.05)) - 1) * 100
        assert abs(got[("late", run)] - late) <= 1e-9 * late, (run, got[("late", run)], late)
        assert abs(got[("drift", run)] - drift) <= 1e-9 * abs(drift), (run, got[("drift", run)], drift)
        assert drift > 50, (run, drift)
        n += 1
assert n == 4, n
PY

# --- refused, exit 2, nothing printed
expect_exit 2 "$AB" compare bo --name p --derive 'per_M s/M = busy_s / recrods * 1e6'
echo "allocbuild: compare: runs/p: --derive: position 22: unknown metric 'recrods' (did you mean 'records'?)" | expect_file err
check "nothing printed" test ! -s out
expect_exit 2 "$AB" compare bo --name p --derive 'per_M s/M = busy_s / / records'
echo "allocbuild: --derive: position 22: expected a number, a metric or '(', not '/'" | expect_file err
check "nothing printed" test ! -s out
printf '{"derived": [\n  "x = 1",\n  "y = (busy_s"\n]}\n' >bad.json
expect_exit 2 "$AB" compare bo --name p --metrics bad.json
echo "bad.json:3:3: derived[1]: position 12: expected ')', not the end" | expect_file err
expect_exit 2 "$AB" compare bo --name p --derive 'busy_s = 1'
echo "allocbuild: compare: runs/p: --derive: position 1: 'busy_s' is a figure its runs report: a derived figure takes another name" | expect_file err
expect_exit 2 "$AB" pr --derive 'per_M = recrods' bo
echo "allocbuild: compare: runs/p: --derive: position 9: unknown metric 'recrods' (did you mean 'records'?)" | expect_file err
