#!/usr/bin/env bash
# pr.md's first screen leads with the benchmark's answer (issue 48, item
# 2): under the title, per run name a line, then one line per label
# against the baseline with its results that differ first (the ratio of
# medians and its 95% interval, grouped by verdict, the strongest first),
# "no difference shown" with the runs compared, the labels that are the
# same bytes as another (an A/A pair by construction, item 10: compare
# says so too), a label whose every run failed, and the set's notes (the
# A/A control's state, failed runs). Past its budget the run names are
# counted in one line, and the page stays under GitHub's limit. On
# tests/fakeproj.sh's twins: normal53 and relink53 are the same bytes;
# its program reports the figure ops_per_s that the test gives it.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_twins_recipe r.json level half
expect_exit 0 "$AB" build -o bo r.json
cat >drive <<'SH'
#!/bin/sh
case $ALLOCBUILD_LABEL in other) v=2000 ;; level) v=1000 ;; half) exit 5 ;; *) v=1000 ;; esac
exec "$@" --once --metric "ops_per_s=$v ops/s"
SH
chmod +x drive
expect_exit 1 "$AB" run bo normal53 relink53 other level half --repeat 5 --rotate --sample-ms 0 --name bench -- ./drive {bin}
expect_exit 0 "$AB" pr -o pr bo
unload pr/pr.md
# the title, then the benchmark
sed -n '3,4p' pr/pr.md >head
expect_file head <<'X'
**Benchmark** `bench`: 25 runs of 5 labels against `normal53`, paired by repetition (the comparison: Runs, below):

X
awk '/^\*\*Benchmark\*\* `bench`/ { f = 1; next } f && /^\*\*/ { exit } f && /^- /' pr/pr.md >lines
# other's ops_per_s, twice its baseline's, is its strongest result (timing noise is far below 2x)
check "other: its difference first" grep -qE '^- `other`: \*\*better\*\* `ops_per_s` 2\.000× \[2\.000, 2\.000\][;,]' lines
check "other: the runs compared" grep -qE '^- `other`: .* \(5 pairs\)$' lines
check "relink53: the same bytes and environment as normal53, the A/A control" grep -qE \
	'^- `relink53` \(the same bytes and runtime environment as `normal53`: the A/A control\): .*\(5 pairs\)$' lines
check "relink53: no difference in ops_per_s" not grep -qE '^- `relink53`.*\*\*[a-z]+( \(unreliable\))?\*\*[^;]*`ops_per_s`' lines
check "level (its ops_per_s its baseline's): no difference in it" \
	not grep -qE '^- `level`.*\*\*[a-z]+( \(unreliable\))?\*\*[^;]*`ops_per_s`' lines
check "level: the runs compared" grep -qE '^- `level`: .* \(5 pairs\)$' lines
check "half: every run failed" grep -qxF -- '- `half`: ❌ every run failed: nothing compared' lines
check "the control's note" grep -qE '^- (✅ A/A control clean: `normal53` and `relink53` \(the same bytes and runtime environment\) show no difference|❌ A/A control `normal53` and `relink53` \(the same bytes and runtime environment\) show a difference: every verdict above is unreliable)$' lines
check "the failed runs' note" grep -qxF -- '- ⚠ 5 failed runs left out' lines
expect_grep '**5 variants built**; `relink53` is the same bytes as `normal53` (an A/A pair by construction); every file matches SHA256SUMS' pr/pr.md
# compare says the same of the two labels, and of the control
expect_exit 1 "$AB" compare bo --name bench --metric ops_per_s
unload
expect_grep "A/A control: normal53 against relink53 (the same bytes, sha256 $(sed -n 's|^\([0-9a-f]\{12\}\).*  variants/normal53/build/bin/wait$|\1|p' bo/SHA256SUMS), and runtime environment: an A/A pair by construction): no difference shown in any metric." out
expect_grep "FAILED: every run of half failed: nothing of it is compared." out
# a label that ran another's bytes in another environment is said to (run --env sets none here: an env of the recipe)
python3 - r.json >r2.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["variants"].append({"label": "tuned", "runtime_of": "normal53", "runtime": {"env": {"TUNED": "1"}}})
json.dump(r, sys.stdout, indent=1)
PY
expect_exit 0 "$AB" build -o bo r2.json
expect_exit 0 "$AB" run bo normal53 tuned --repeat 4 --rotate --sample-ms 0 --name env -- ./drive {bin}
expect_exit 0 "$AB" compare bo --name env --metric ops_per_s
expect_grep "Same bytes: tuned ran the bytes of normal53 in another runtime environment." out
expect_exit 0 "$AB" pr -o pr bo
check "pr.md: tuned ran normal53's bytes" grep -qE \
	'^- `tuned` \(the same bytes as `normal53`, in another runtime environment\): ' pr/pr.md

# --- many run names: the verdict stays within its budget, the rest counted; the page under the limit
for n in $(seq 1 14); do
	expect_exit 1 "$AB" run bo normal53 relink53 other level half --sample-ms 0 --name "many-$n" -- ./drive {bin}
done
expect_exit 0 "$AB" pr -o pr bo
check "the verdict names the run names it has no room for" \
	grep -qE '^\*\*Benchmark\*\*: [0-9]+ more run names: `many-[0-9]+`, .* \(their comparisons: Runs, below\)\.$' pr/pr.md
awk '/^\*\*Benchmark\*\*/,/^\*\*[0-9]+ variants built\*\*/' pr/pr.md >block
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' block)
check "the benchmark's lines take at most 8,000 characters and a line ($chars)" test "$chars" -lt 8600
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' pr/pr.md)
check "pr.md under GitHub's limit ($chars)" test "$chars" -lt 65536
