#!/usr/bin/env bash
# An A/A control (a and its runtime variant a2 with the same environment:
# one artifact) whose runs differ every time must not pass as clean. A
# driver's figure of 0 against 5 has no ratio of medians (a zero
# baseline): compare shows the difference of the medians, the U test
# alone decides (differs, p 0.004), the control shows a difference, exit 1;
# a policy's aa_control rule fails on it, and on a difference with a ratio
# (1000 against 1200: the rule once read compare without an interval, so
# no ratio could ever show one), and on a control of too few runs to
# show any difference (2 and 2). Non-finite values and values whose sums
# overflow (1e308) are refused where they are read: by run (a warning, the
# figure left out) and in a record (compare refuses it, exit 2), never
# shown as a median of "inf". Values past 1e15 are drawn in pr.md's charts
# in units of a power of ten, a multiple of 3 (Mermaid reads no exponent).
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
art=$(sed -n 's|^\([0-9a-f]\{64\}\)  variants/a/build/bin/fake$|\1|p' bo/SHA256SUMS)
check "the program's digest in SHA256SUMS" test ${#art} = 64

# the driver: x is 0 for a and 5 for a2; y 1000 against 1200; big 1e308 (refused)
cat >drive <<'SH'
#!/bin/sh
case $ALLOCBUILD_LABEL in a) x=0 y=1000 ;; *) x=5 y=1200 ;; esac
[ "${ONLY_Y:-}" ] || echo "ALLOCBUILD_METRIC x=$x u"
echo "ALLOCBUILD_METRIC y=$y u"
[ "${ONLY_Y:-}" ] || echo "ALLOCBUILD_METRIC big=1e308 u"
echo "ALLOCBUILD_METRIC same=7 u"
SH
chmod +x drive
expect_exit 0 "$AB" run bo a a2 --repeat 5 --rotate --name p --sample-ms 0 -- ./drive
check "run warns of the value 1e308 and leaves it out" \
	grep -qxF "allocbuild: warning: run: a: log line 3: 'ALLOCBUILD_METRIC big=1e308 u': not a metric: its VALUE is not a finite decimal number of at most 1e300" err
check "no record keeps the figure 1e308" \
	test "$(json bo/runs/p/0001-a.intoto.json '[m["name"] for m in d["predicate"]["metrics"]]')" = "['x', 'y', 'same']"

# --- 0 against 5: no ratio, the difference shown, the U test decides, the control differs
expect_exit 1 "$AB" compare bo --metric x
unload
expect_file out <<OUT
runs/p: 10 runs of 2 labels, 0 failed; baseline a; paired by repetition (rotated runs)
ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%
A/A control: a against a2 (the same bytes, sha256 ${art:0:12}, and runtime environment: an A/A pair by construction): shows a difference: every verdict is unreliable.
UNRELIABLE: the A/A control shows a difference

METRIC  UNIT  CELL  LABEL  N  MEDIAN  MIN-MAX      RATIO        95% CI  P        VERDICT
x       u     -     a      5  0       0-0          -            -       -        baseline
x       u     -     a2     5  5.000   5.000-5.000  diff +5.000  -       0.00398  differs (ratio undefined) (A/A control)
OUT
expect_file err <<ERR
allocbuild: warning: compare: runs/p: the A/A control a2 against a (the same bytes and runtime environment) shows a difference in x (no ratio, difference +5.000, p 0.00398): every verdict is flagged unreliable
allocbuild: warning: compare: runs/p: no ratio of medians for x (a2 against a): a baseline value is not positive; the row shows the difference of the medians instead, and the U test alone decides whether the runs differ
ERR
expect_exit 1 "$AB" compare bo --metric x --format json
check "json: no ratio, why, the difference, the verdict" test \
	"$(json out '[(c["ratio"], c["ratio_undefined"], c["difference"], c["verdict"], c["control"]) for c in d["sets"][0]["comparisons"]]')" = \
	"[(None, 'a baseline value is not positive', 5, 'differs (ratio undefined)', True)]"
check "json: the control differs" test "$(json out 'd["sets"][0]["control_differs"]')" = True
expect_exit 1 "$AB" compare bo --metric x --format md
check "md: the difference and the verdict" grep -qxF \
	'| `x` (u) | `a2` | 5 | 5.000 (5.000–5.000) | diff +5.000  | 0.00398 | **differs (ratio undefined) (A/A control)** |' out
check "md: the control shows a difference" grep -qF \
	"A/A control: \`a\` against \`a2\` (the same bytes, sha256 \`${art:0:12}\`, and runtime environment: an A/A pair by construction): **shows a difference**" out

# --- the policy's aa_control rule fails on both controls
expect_exit 0 "$AB" run bo a a2 --repeat 5 --rotate --name q --sample-ms 0 --env ONLY_Y=1 -- ./drive
for name in p q; do
	cat >policy-$name.json <<X
{"policy": 1, "name": "aa", "rules": [
 {"variants": ["a", "a2"], "runs": {"name": "$name", "min_repetitions": 5, "aa_control": true}}
]}
X
	expect_exit 1 "$AB" verify --policy policy-$name.json bo
	check "runs/$name: the rule's repetitions pass" grep -qxF \
		"pass: rules[0] runs a2: 5 successful runs (runs/$name/*-a2.intoto.json: predicate.status)" out
	check "runs/$name: the A/A control fails the rule" grep -qxF \
		"FAIL: rules[0] runs A/A control: expected an A/A control (two labels, one artifact) showing no difference, got a against a2 differs (runs/$name/*.intoto.json: subject, predicate.env_overrides)" out
done
# judged on the metrics a policy names: "same" (7 in every run) shows none
cat >policy-same.json <<X
{"policy": 1, "name": "aa", "rules": [
 {"variants": ["a", "a2"], "runs": {"name": "p", "min_repetitions": 5, "aa_control": true,
  "metrics": ["same"]}}
]}
X
expect_exit 0 "$AB" verify --policy policy-same.json bo
check "runs/p judged on 'same': the A/A control passes" grep -qxF \
	"pass: rules[0] runs A/A control: a against a2: no difference (runs/p/*.intoto.json: subject, predicate.env_overrides)" out
sed 's/"same"/"same", "x"/' policy-same.json >policy-samex.json
expect_exit 1 "$AB" verify --policy policy-samex.json bo
check "runs/p judged on 'same' and 'x': the A/A control fails" grep -qxF \
	"FAIL: rules[0] runs A/A control: expected an A/A control (two labels, one artifact) showing no difference, got a against a2 differs (runs/p/*.intoto.json: subject, predicate.env_overrides)" out
sed 's/"aa_control": true,//' policy-same.json >policy-noaa.json
expect_exit 2 "$AB" verify --policy policy-noaa.json bo
echo "policy-noaa.json:3:14: rules[0].runs.metrics: the metrics an A/A control is judged on: only with \"aa_control\": true" |
	expect_file err
# two runs of each: no difference shown, as none could be (the U test's
# smallest p with 2 and 2 is 0.33): too few runs for a control, the rule fails
expect_exit 0 "$AB" run bo a a2 --repeat 2 --rotate --name few --sample-ms 0 --env ONLY_Y=1 -- ./drive
cat >policy-few.json <<X
{"policy": 1, "name": "aa", "rules": [
 {"variants": ["a", "a2"], "runs": {"name": "few", "min_repetitions": 2, "aa_control": true}}
]}
X
expect_exit 1 "$AB" verify --policy policy-few.json bo
check "runs/few: two runs of each pass as an A/A control" grep -qxF \
	"FAIL: rules[0] runs A/A control: expected an A/A control (two labels, one artifact) showing no difference, got a against a2: too few runs for a verdict (the U test needs 4 successful runs of each to reach p < 0.05) (runs/few/*.intoto.json: subject, predicate.env_overrides)" out
expect_exit 0 "$AB" compare bo --name few --format json
check "runs/few: compare's json judges the control" test "$(json out '(d["sets"][0]["control_judged"], d["sets"][0]["control_differs"])')" = "(False, False)"
# the same artifact and environment, but another driver ran for a2 (its
# bytes changed between the two runs): not an A/A pair
expect_exit 0 "$AB" run bo a --repeat 4 --name drivers --sample-ms 0 --env ONLY_Y=1 -- ./drive
cp drive drive.v1
echo ': a second version' >>drive
expect_exit 0 "$AB" run bo a2 --repeat 4 --name drivers --sample-ms 0 --env ONLY_Y=1 -- ./drive
expect_exit 0 "$AB" compare bo --name drivers --format json
check "runs/drivers: labels that ran other drivers are an A/A pair" test "$(json out 'd["sets"][0]["controls"]')" = "[]"
cp drive.v1 drive
# y alone, 1000 against 1200: a ratio (1.2 every time), a difference compare shows too
expect_exit 1 "$AB" compare bo --name q --metric y
check "runs/q: 1000 against 1200 is a difference" grep -qE '^y +u +- +a2 +5 +1200 +1200-1200 +1.200 +\[1.200, 1.200\] +0.00[0-9]+ +(better|worse) \(A/A control\)$' out

# --- a record with a value past what compare can compute with: refused, named
cp -a bo bo-inf
edit_record() { # OUTDIR REL FROM TO: the record's text changed, SHA256SUMS rewritten to match
	python3 - "$@" <<'PY'
import hashlib, sys
outdir, rel, old, new = sys.argv[1:5]
b = open(outdir + "/" + rel, "rb").read()
assert old.encode() in b, old
b = b.replace(old.encode(), new.encode(), 1)
open(outdir + "/" + rel, "wb").write(b)
sums = [hashlib.sha256(b).hexdigest() + "  " + rel if l.endswith("  " + rel) else l
        for l in open(outdir + "/SHA256SUMS").read().splitlines()]
open(outdir + "/SHA256SUMS", "w").write("\n".join(sums) + "\n")
PY
}
val=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([m for m in d["predicate"]["metrics"] if m["name"] == "y"][0]["value"])' bo/runs/p/0001-a.intoto.json)
check "the record's value of y" test "$val" = 1000
edit_record bo-inf runs/p/0001-a.intoto.json '"value":	1000,' '"value":	1e999,'
check "the record holds 1e999" grep -qF '1e999' bo-inf/runs/p/0001-a.intoto.json
expect_exit 2 "$AB" compare bo-inf --metric y
echo "allocbuild: 'bo-inf/runs/p/0001-a.intoto.json': predicate.metrics: the value of 'y': not a finite number of at most 1e300: not a figure allocbuild records" |
	expect_file err
check "nothing printed" test ! -s out
# 1e308 is finite, but the sum of two (an even count's median) is not
cp -a bo bo-big
edit_record bo-big runs/p/0001-a.intoto.json '"value":	1000,' '"value":	1e308,'
expect_exit 2 "$AB" compare bo-big --metric y
echo "allocbuild: 'bo-big/runs/p/0001-a.intoto.json': predicate.metrics: the value of 'y': not a finite number of at most 1e300: not a figure allocbuild records" |
	expect_file err
check "never a median of inf" not grep -q inf out

# --- values past 1e15: compare shows an exponent, pr.md's chart a power of ten on its axis (engineering notation)
cat >drive-huge <<'SH'
#!/bin/sh
case $ALLOCBUILD_LABEL in a) echo "ALLOCBUILD_METRIC bytes=2e18 B" ;; *) echo "ALLOCBUILD_METRIC bytes=3e18 B" ;; esac
SH
chmod +x drive-huge
expect_exit 0 "$AB" run bo a a2 --name huge --sample-ms 0 -- ./drive-huge
expect_exit 0 "$AB" compare bo --name huge --metric bytes
check "an exponent for values past 1e15" grep -qE '^bytes +B +- +a2 +1 +3.000e\+18 +3.000e\+18-3.000e\+18 +1.500 ' out
expect_exit 0 "$AB" compare bo --name huge --metric bytes --format md
sed -n '/^xychart-beta/,/^```/p' out >chart
expect_file chart <<'X'
xychart-beta
    title "bytes, B"
    x-axis ["a", "a2"]
    y-axis "B (×10¹⁸)" 0 --> 3
    bar [2.000, 3.000]
    line [2.000, 3.000]
    line [2.000, 3.000]
```
X
