#!/usr/bin/env bash
# pr.md's charts as a reader sees them (issue 48, item 7), rendered by
# headless chromium: the Mermaid charts GitHub draws and the SVG files of
# the bundle. Five labels, two of them long (their names ran together on
# the x axis), a driver's figure of about 2e5 (its axis read 2.013e+05,
# over the axis' name), runs of different lengths (a shorter run's line
# dropped to 0 where it ended, as if its memory were released), ticks
# that were not round (27.72, 0.7496). Each chart is checked for clipped
# and overlapping texts, round ticks in engineering notation, and lines
# that end where their runs ended (tests/charts-lib.sh); pr.md links each
# SVG file, and each link leads to its file. On tests/fakeproj.sh's twins.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/charts-lib.sh"

long1=fluent-bit-jemalloc-5.3.1-special
long2=fluent-bit-jemalloc-5.3.0-runtime-fit
make_twins_recipe r.json $long1 $long2
expect_exit 0 "$AB" build -o bo r.json
# each label holds its MiB for its own time, then is ended; its figure about 2e5
cat >drive <<'SH'
#!/bin/sh
case $ALLOCBUILD_LABEL in
normal53) mib=24 t=0.6 v=201300 ;;
relink53) mib=24 t=0.6 v=200100 ;;
other) mib=40 t=1.2 v=203900 ;;
fluent-bit-jemalloc-5.3.1-special) mib=32 t=0.9 v=198700 ;;
*) mib=16 t=0.4 v=205200 ;;
esac
"$1" $mib --metric "ops_per_s=$v ops/s" & p=$!
sleep $t
kill $p
wait $p || true
SH
chmod +x drive
expect_exit 0 "$AB" run bo normal53 relink53 other $long1 $long2 --repeat 2 --rotate --sample-ms 20 \
	--name charts -- ./drive {bin}
expect_exit 0 "$AB" pr bo
sed -n '/^#### `charts`/,/^Run environment/p' bo/pr.md >charts.md
check "pr.md holds the run's 7 charts" test "$(grep -c '^xychart-beta' charts.md)" = 7

# --- what the reader sees: nothing clipped or overlapping, round ticks in engineering notation, whole lines
charts_check charts.md seen bo/pr-charts/charts/rss-over-time.svg bo/pr-charts/charts/metric/*.svg
expect_file seen <<'X'
drawn 7 of 7
X
# the figure of 2e5 on an axis of thousands; the RSS over each run's own time
expect_grep '    y-axis "ops/s (×10³)" 0 --> 250' charts.md
expect_grep '    x-axis "% of the run" 0 --> 100' charts.md
# no line of the Mermaid chart ends at 0 after it rose; the SVG's lines end at their runs' ends
python3 - charts.md bo/pr-charts/charts/rss-over-time.svg <<'PY'
import re, sys
md = open(sys.argv[1]).read()
rss = md[md.index('title "RSS over time"'):]
rss = rss[:rss.index("```")]
lines = [[float(x) for x in l.split(", ")] for l in re.findall(r"^    line \[(.*)\]$", rss, re.M)]
assert len(lines) == 5, lines
for v in lines:
    assert not (v[-1] == 0 and max(v) > 0), "a line drops to 0 at its end: %s" % v
svg = open(sys.argv[2]).read()
ends = [float(p.split()[-1].split(",")[0]) for p in re.findall(r'<polyline class="series"[^>]* points="([^"]*)"', svg)]
assert len(ends) == 5, ends
# other's run (1.2 s) is the longest; the last label's (0.4 s) ends a third of the way
assert ends[2] == max(ends) and ends[4] < ends[2] * 0.6, "the lines' ends: %s" % ends
print("lines end where their runs ended:", ends)
PY

# --- pr.md links each SVG file, and each link leads to it (pr.md beside OUTDIR's pr-charts)
grep -o '](<pr-charts/[^>]*>)' bo/pr.md | sed 's/^](<//; s/>)$//' | sort -u >linked
(cd bo && find pr-charts/charts -name '*.svg' | sort) >files
expect_file linked <files
while read -r f; do check "the link $f leads to its file" test -s "bo/$f"; done <linked
# and the bundle holds them where the links say
tar -tzf bo/provenance-twins.tar.gz | sed -n 's|^provenance-twins/||p' | grep '^pr-charts/charts/.*svg$' | sort >bundled
expect_file bundled <files
