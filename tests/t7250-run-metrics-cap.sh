#!/usr/bin/env bash
# A driver that reports 40,000 figures (once: run 6 s, compare 22 s, both
# quadratic, and pr failed on its summary limit): a run keeps the first
# 256 (AB_METRICS_MAX, a name in a cell), warns, and its record counts the
# reports left out (metrics_dropped); compare warns of them; pr's page
# stays under its limit by leaving the Runs section's charts, then its
# comparison, to pr-details.md in the bundle, and says so on the page.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
# 40,000 names, the first reported twice (a value replaced, not a figure more)
cat >drive <<'SH'
#!/bin/sh
echo "ALLOCBUILD_METRIC m00000=7 u"
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "ALLOCBUILD_METRIC m%05d=%d u\n", i, i }'
SH
chmod +x drive
expect_exit 0 "$AB" run bo a a2 --name many --sample-ms 0 -- ./drive
for l in a a2; do
	check "run warns of $l's figures left out" grep -qxF "allocbuild: warning: run: $l: the command reported more than 256 figures (a name in a cell): 39744 reports of further ones left out, counted in the record's metrics_dropped (docs/runs.md, \"Figures of the benchmark\")" err
done
rec=bo/runs/many/0001-a.intoto.json
check "the record keeps 256 figures, the first ones" test \
	"$(json $rec '(len(d["predicate"]["metrics"]), d["predicate"]["metrics"][0]["name"], d["predicate"]["metrics"][0]["value"], d["predicate"]["metrics"][0]["reported"], d["predicate"]["metrics"][-1]["name"])')" = \
	"(256, 'm00000', 0, 2, 'm00255')"
check "the record counts the reports left out" test "$(json $rec 'd["predicate"]["metrics_dropped"]')" = 39744
expect_exit 0 "$AB" verify bo

expect_exit 0 "$AB" compare bo --name many
check "compare: a row per figure and label" test "$(grep -c '^m[0-9]\{5\} ' out)" = 512
check "compare warns of the reports left out" grep -qxF \
	"allocbuild: warning: compare: runs/many: the runs left out 79488 reports of figures past the 256 a run keeps (each record's metrics_dropped): they are in no comparison" err
expect_exit 0 "$AB" compare bo --name many --format csv
check "csv: a row per run and figure" test "$(grep -c ',m[0-9]\{5\},' out)" = 512

# --- pr: under the limit, the charts left to pr-details.md, said on the page
expect_exit 0 "$AB" pr -o pr bo
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' pr/pr.md)
check "pr.md under GitHub's 65,536 characters ($chars)" test "$chars" -lt 65536
check "the page says where its charts are" grep -qxF 'Its charts are left out of this page, which they would take past its 65536-character limit: they are in `pr-details.md` inside `provenance-fk.tar.gz`, and as SVG files under `pr-charts/many/`.' pr/pr.md
check "the page keeps the comparison" grep -qF '| `m00255` (u) | `a2` | 1 | 255.0 |' pr/pr.md
check "no chart on the page" not grep -q '^xychart-beta$' pr/pr.md
tar -xzf pr/provenance-fk.tar.gz
check "pr-details.md holds the charts" grep -qxF '#### Charts of `many`' provenance-fk/pr-details.md
check "all 259 of them" test "$(grep -c '^xychart-beta$' provenance-fk/pr-details.md)" = 259
check "and each as an SVG file" test "$(ls provenance-fk/pr-charts/many/metric | wc -l)" = 259
expect_exit 0 "$AB" verify pr/provenance-fk.tar.gz

# --- a smaller limit: the comparison itself goes to pr-details.md, and the page says so
rm -rf pr bo/pr-details.md bo/pr-charts provenance-fk
expect_exit 0 "$AB" pr -o pr --limit 8000 bo
check "the page names what it left out and where" grep -qxF 'Its comparison (259 figures of 2 labels), warnings, charts and run environment are left out of this page, which they would take past its 8000-character limit: they are in `pr-details.md` inside `provenance-fk.tar.gz` (the charts also as SVG files under `pr-charts/many/`); `allocbuild compare OUTDIR --name many` prints the comparison.' pr/pr.md
check "no comparison on the page" not grep -qF '| `m00255` (u) |' pr/pr.md
tar -xzf pr/provenance-fk.tar.gz
check "pr-details.md holds the comparison" grep -qF '| `m00255` (u) | `a2` | 1 | 255.0 |' provenance-fk/pr-details.md
check "under its heading" grep -qxF '### Runs left out of pr.md' provenance-fk/pr-details.md
expect_exit 0 "$AB" verify pr/provenance-fk.tar.gz
