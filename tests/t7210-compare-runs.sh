#!/usr/bin/env bash
# compare on real runs of a small allocating program linked against the
# default recipe's stock53 and special53 archives. Its driver reports a
# figure of its own (ops_per_s) from a table, so that those comparisons
# are exact and known: the table of medians, ranges, ratios with their
# bootstrap intervals, U tests and verdicts; the sampled RSS of 32 MiB
# against 40 MiB found worse. The figures checked against scipy (U and p
# exactly, the interval within 1%). An A/A control recognised by digest
# (stock53 and its runtime variant fit-only with the same MALLOC_CONF),
# not when fit-only's setting differs; a control that shows a difference
# flags every verdict. Cells (run --cell). Too few repetitions, a failed
# run among them, runs under mixed run environments (refused paired,
# flagged unpaired), the csv, json and md formats, pr.md's verdict and
# Runs section and its charts (rendered by headless chromium and checked
# for what a reader sees, tests/charts-lib.sh; as SVG files in the
# bundle), a tampered series, and the refusals (exit 2, nothing printed).
. "$TOP/tests/lib.sh"
. "$TOP/tests/charts-lib.sh"

SCIPY_PY=/usr/bin/python3
"$SCIPY_PY" -c 'import scipy' 2>/dev/null || fail "Debian's python3-scipy is not installed (scripts/install-deps.sh)"

default_build bo
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* prog MIB OPS: allocates and touches MIB MiB, holds them $HOLD_MS ms between two marks, reports OPS as its figure */
int
main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 16;
	char **blk = calloc(mib, sizeof(*blk));
	long hold = getenv("HOLD_MS") ? atol(getenv("HOLD_MS")) : 0;
	struct timespec ts = {hold / 1000, hold % 1000 * 1000000};

	for (size_t i = 0; i < mib; i++) {
		if (!(blk[i] = malloc(1 << 20)))
			return 3;
		memset(blk[i], 1, 1 << 20);
	}
	printf("held\n");
	fflush(stdout);
	nanosleep(&ts, NULL);
	printf("done\n");
	printf("ALLOCBUILD_METRIC ops_per_s=%s ops/s\n", argc > 2 ? argv[2] : "0");
	for (size_t i = 0; i < mib; i++)
		free(blk[i]);
	free(blk);
	return 0;
}
C
for l in stock53 special53; do
	cc -O1 -o prog-$l prog.c bo/variants/$l/build/lib/libjemalloc_pic.a -lpthread -ldl -lm ||
		fail "cannot link against $l's archive"
done
cp prog-stock53 prog-fit-only
# the n-th run of a label takes its MiB and ops/s from the table (label n MiB ops);
# a run without a row fails (exit 7)
cat >drive <<'SH'
#!/bin/sh
f=count-$ALLOCBUILD_LABEL
n=$(($(cat "$f" 2>/dev/null || echo 0) + 1))
echo $n >"$f"
set -- $(awk -v l="$ALLOCBUILD_LABEL" -v n=$n '$1 == l && $2 == n { print $3, $4 }' table)
[ $# = 2 ] || exit 7
exec ./prog-"$ALLOCBUILD_LABEL" "$@"
SH
chmod +x drive
cat >table <<'T'
stock53 1 32 1000
stock53 2 32 1010
stock53 3 32 990
stock53 4 32 1005
stock53 5 32 995
special53 1 40 1042
special53 2 40 1048
special53 3 40 1035
special53 4 40 1051
special53 5 40 1040
fit-only 1 32 1003
fit-only 2 32 992
fit-only 3 32 1008
fit-only 4 32 997
fit-only 5 32 1001
T
# runs NAME ARGS...: run with fresh counters
runs() {
	local name=$1
	shift
	rm -f count-*
	"$AB" run bo "$@" --name "$name" -- ./drive >run.out 2>run.err || return $?
}
# the artifact every label here runs: the archive (stock53's, fit-only's) or special53's
stock=$(sed -n 's/^\([0-9a-f]\{64\}\)  variants\/stock53\/build\/lib\/libjemalloc_pic\.a$/\1/p' bo/SHA256SUMS)
[ ${#stock} = 64 ] || fail "no digest of stock53's archive in SHA256SUMS"

# the comparison: three labels, five rotated repetitions, sampled (the window: while the memory is held)
runs ab stock53 special53 fit-only --repeat 5 --rotate --sample-ms 20 --env HOLD_MS=200 \
	--mark-start '^held$' --mark '^done$'
expect_exit 0 "$AB" compare bo --metric ops_per_s
cp out first
unload
expect_file out <<OUT
runs/ab: 15 runs of 3 labels, 0 failed; baseline stock53; paired by repetition (rotated runs)
ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%
Same bytes: fit-only ran the bytes of stock53 in another runtime environment.
No A/A control: no two labels ran the same bytes with the same runtime environment.

METRIC     UNIT   CELL  LABEL      N  MEDIAN  MIN-MAX     RATIO  95% CI          P        VERDICT
ops_per_s  ops/s  -     stock53    5  1000    990.0-1010  -      -               -        baseline
ops_per_s  ops/s  -     special53  5  1042    1035-1051   1.042  [1.038, 1.046]  0.00794  better
ops_per_s  ops/s  -     fit-only   5  1001    992.0-1008  1.001  [0.982, 1.018]  1        no difference shown
OUT
[ ! -s err ] || fail "warnings: $(cat err)"
# the same again: the seed is fixed
expect_exit 0 "$AB" compare bo --metric ops_per_s
cmp -s out first || fail "two comparisons of the same runs differ"
# another baseline; the default metrics, the sampled RSS among them: 40 MiB against 32 is worse
expect_exit 0 "$AB" compare bo --baseline special53 --metric ops_per_s --metric steady_rss_mib --format json
[ "$(json out "[(c['label'], c['metric'], c['verdict']) for c in d['sets'][0]['comparisons']]")" = \
	"[('stock53', 'ops_per_s', 'worse'), ('fit-only', 'ops_per_s', 'worse'), ('stock53', 'steady_rss_mib', 'better'), ('fit-only', 'steady_rss_mib', 'better')]" ] ||
	fail "against special53: $(json out "d['sets'][0]['comparisons']")"
expect_exit 0 "$AB" compare bo --format json
[ "$(json out "[m['name'] for m in d['sets'][0]['metrics']]")" = \
	"['wall_s', 'cpu_s', 'steady_rss_mib', 'peak_rss_mib', 'rss_gib_s', 'ops_per_s']" ] ||
	fail "the default metrics: $(json out "d['sets'][0]['metrics']")"
ratio=$(json out "[c['ratio'] for c in d['sets'][0]['comparisons'] if c['label'] == 'special53' and c['metric'] == 'steady_rss_mib'][0]")
awk -v r="$ratio" 'BEGIN { exit !(r > 1.15 && r < 1.3) }' || fail "special53's steady RSS ratio $ratio, not about 40/32"
[ "$(json out "[c['verdict'] for c in d['sets'][0]['comparisons'] if c['label'] == 'special53' and c['metric'] == 'steady_rss_mib'][0]")" = worse ]

# scipy's answers on the same values (the json gives the values and the runs; the records their pairing)
cat >check.py <<'PY'
import json, sys
import numpy as np
from scipy import stats

doc, outdir = json.load(open(sys.argv[1])), sys.argv[2]
checked, worst = 0, 0.0


def run_keys(name, g):
    """(batch, repetition) of each run of a group, from its record"""
    keys = []
    for n in g["runs"]:
        p = json.load(open("%s/runs/%s/%04d-%s.intoto.json" % (outdir, name, n, g["label"])))["predicate"]
        keys.append((p["batch"], p["repetition"]))
    return keys


for s in doc["sets"]:
    groups = {(g["cell"], g["label"], g["metric"]): g for g in s["groups"]}
    for g in s["groups"]:
        v = sorted(g["values"])
        assert abs(np.median(v) - g["median"]) <= 1e-12 * abs(g["median"]), g
        assert (v[0], v[-1]) == (g["min"], g["max"]), g
    for c in s["comparisons"]:
        a, b = groups[(c["cell"], c["label"], c["metric"])], groups[(c["cell"], c["against"], c["metric"])]
        if c["paired"]:
            ka, kb = dict(zip(run_keys(s["name"], a), a["values"])), dict(zip(run_keys(s["name"], b), b["values"]))
            both = sorted(set(ka) & set(kb))
            x, y = [ka[k] for k in both], [kb[k] for k in both]
        else:
            x, y = a["values"], b["values"]
        assert (len(x), len(y)) == (c["n"], c["n_against"]), c
        assert abs(np.median(x) / np.median(y) - c["ratio"]) <= 1e-12 * c["ratio"], c
        u = stats.mannwhitneyu(x, y, alternative="two-sided")
        assert u.statistic == c["u"] and abs(u.pvalue - c["p"]) <= 1e-9, (u, c)
        ci = stats.bootstrap((x, y), lambda p, q, axis=-1: np.median(p, axis=axis) / np.median(q, axis=axis),
                             vectorized=True, paired=c["paired"], n_resamples=100000, method="percentile",
                             random_state=1).confidence_interval
        lo, hi = c["ci"]
        if abs(lo - ci.low) > 0.01 * ci.low or abs(hi - ci.high) > 0.01 * ci.high:
            sys.exit("%s %s/%s: compare's interval [%g, %g], scipy's [%g, %g]" %
                     (c["metric"], c["label"], c["against"], lo, hi, ci.low, ci.high))
        worst = max(worst, abs(lo - ci.low) / ci.low, abs(hi - ci.high) / ci.high)
        checked += 1
print("scipy agrees on %d comparisons: U and p exactly, the interval within %.2f%%" % (checked, worst * 100))
PY
expect_exit 0 "$AB" compare bo --resamples 100000 --format json
"$SCIPY_PY" check.py out bo >scipy.out || fail "scipy disagrees"
expect_grep "scipy agrees on 12 comparisons" scipy.out
cat scipy.out
# unpaired too
expect_exit 0 "$AB" compare bo --unpaired --format json
[ "$(json out "d['sets'][0]['unpaired_why']")" = --unpaired ]
"$SCIPY_PY" check.py out bo >scipy.out || fail "scipy disagrees (unpaired)"

# csv: one row per observation
expect_exit 0 "$AB" compare bo --metric ops_per_s --metric steady_rss_mib --format csv
[ "$(wc -l <out)" = 31 ] || fail "csv: $(wc -l <out) lines, not 1 + 15 runs x 2 metrics"
head -n 3 out >csv.head
expect_file csv.head <<CSV
name,number,batch,repetition,label,cell,status,metric,value,unit,artifact_sha256,host
ab,1,1,1,stock53,,exit 0,ops_per_s,1000,ops/s,$stock,$(uname -n)
ab,1,1,1,stock53,,exit 0,steady_rss_mib,$(sed -n 3p out | cut -d, -f9),MiB,$stock,$(uname -n)
CSV

# the A/A control: stock53 and fit-only (the same archive) with the same MALLOC_CONF, found by digest
runs aa stock53 fit-only --repeat 5 --rotate --sample-ms 0 --env MALLOC_CONF=lg_extent_max_active_fit:30
expect_exit 0 "$AB" compare bo --name aa --metric ops_per_s
expect_grep "A/A control: stock53 against fit-only (the same bytes, sha256 ${stock:0:12}, and runtime environment: an A/A pair by construction): no difference shown in any metric." out
expect_grep "ops_per_s  ops/s  -     fit-only  5  1001    992.0-1008  1.001  [0.982, 1.018]  1  no difference shown (A/A control)" out
expect_exit 0 "$AB" compare bo --name aa --metric ops_per_s --format json
[ "$(json out "d['sets'][0]['controls']")" = "[{'labels': ['stock53', 'fit-only'], 'artifact_sha256': '$stock'}]" ] ||
	fail "controls: $(json out "d['sets'][0]['controls']")"
# ab's fit-only sets lg_extent_max_active_fit, its stock53 not: no control (above, and in json)
expect_exit 0 "$AB" compare bo --name ab --format json
[ "$(json out "d['sets'][0]['controls']")" = "[]" ]
# a control that shows a difference: every verdict of its set is unreliable, exit 1
awk '$1 == "fit-only" { $4 = $4 + 60 } { print }' table >table.aa
cp table table.ab
cp table.aa table
runs aa-differs stock53 special53 fit-only --repeat 5 --rotate --sample-ms 0 --env MALLOC_CONF=lg_extent_max_active_fit:30
cp table.ab table
expect_exit 1 "$AB" compare bo --name aa-differs --metric ops_per_s
unload
expect_file out <<OUT
runs/aa-differs: 15 runs of 3 labels, 0 failed; baseline stock53; paired by repetition (rotated runs)
ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%
A/A control: stock53 against fit-only (the same bytes, sha256 ${stock:0:12}, and runtime environment: an A/A pair by construction): shows a difference: every verdict is unreliable.
UNRELIABLE: the A/A control shows a difference

METRIC     UNIT   CELL  LABEL      N  MEDIAN  MIN-MAX     RATIO  95% CI          P        VERDICT
ops_per_s  ops/s  -     stock53    5  1000    990.0-1010  -      -               -        baseline
ops_per_s  ops/s  -     special53  5  1042    1035-1051   1.042  [1.038, 1.046]  0.00794  better (unreliable)
ops_per_s  ops/s  -     fit-only   5  1061    1052-1068   1.061  [1.042, 1.079]  0.00794  better (A/A control)
OUT
expect_file err <<ERR
allocbuild: warning: compare: runs/aa-differs: the A/A control fit-only against stock53 (the same bytes and runtime environment) shows a difference in ops_per_s (ratio 1.061, p 0.00794): every verdict is flagged unreliable
ERR

# too few repetitions: a warning saying how many the test needs, no verdict
runs few stock53 special53 --repeat 2 --rotate --sample-ms 0
expect_exit 0 "$AB" compare bo --name few --metric ops_per_s
unload
expect_grep "ops_per_s  ops/s  -     special53  2  1045    1042-1048  1.040  [1.038, 1.042]  0.333  too few runs" out
expect_file err <<ERR
allocbuild: warning: compare: runs/few: too few runs for a verdict: the Mann-Whitney U test needs at least 4 successful runs of each label to reach p < 0.05 (its smallest p with 3 and 3 is 0.1); stock53 has 2, special53 has 2
ERR

# cells (run --cell, the campaigns' group/encoding rows): a column of their own
runs cells stock53 special53 --repeat 4 --rotate --sample-ms 0 --cell json/large
expect_exit 0 "$AB" compare bo --name cells --metric ops_per_s
expect_grep "ops_per_s  ops/s  json/large  special53  4  1045    1035-1051   1.042  [1.038, 1.046]  0.0286  better" out
expect_exit 0 "$AB" compare bo --name cells --metric ops_per_s --format md
expect_grep '| `ops_per_s` (ops/s) | `json/large` | `special53` | 4 | 1045 (1035–1051) |' out

# a failed run among them: left out, named; its pair dropped
grep -v '^special53 3 ' table.ab >table
runs failed stock53 special53 --repeat 5 --rotate --sample-ms 0 && fail "special53's third run did not fail"
cp table.ab table
expect_exit 0 "$AB" compare bo --name failed --metric ops_per_s --format json
unload
[ "$(json out "[(c['n'], c['n_against'], round(c['p'], 4), c['verdict']) for c in d['sets'][0]['comparisons']]")" = \
	"[(4, 4, 0.0286, 'better')]" ] || fail "with a failed run: $(json out "d['sets'][0]['comparisons']")"
expect_file err <<ERR
allocbuild: warning: compare: runs/failed: 1 failed run left out: 0006-special53 (exit 7)
ERR

# mixed run environments (two invocations on different CPUs): refused paired, flagged unpaired
runs mixed stock53 special53 --repeat 2 --rotate --sample-ms 0 --cpus 0
runs mixed stock53 special53 --repeat 3 --rotate --sample-ms 0 --cpus 1
expect_exit 1 "$AB" compare bo --name mixed --metric ops_per_s
[ ! -s out ] || fail "a refused comparison printed: $(cat out)"
expect_file err <<ERR
allocbuild: compare: runs/mixed: rotated runs, to be compared in pairs, ran under different run environments (cpu.affinity: 0 (stock53, special53); 1 (stock53, special53)): refusing a paired comparison ('--unpaired' compares them unpaired, flagged unreliable)
ERR
expect_exit 1 "$AB" compare bo --name mixed --metric ops_per_s --unpaired
expect_grep "UNRELIABLE: the runs ran under different run environments" out
expect_grep "ops_per_s  ops/s  -     special53  5  1042    1035-1048   1.042  [1.032, 1.053]  0.0112  better (unreliable)" out
expect_grep "every verdict is flagged unreliable" err

# markdown, as pr.md shows it
expect_exit 0 "$AB" compare bo --name ab --metric ops_per_s --format md
[ "$(grep -c '^xychart-beta$' out)" = 2 ] || fail "md: not the 2 charts (RSS over time, ops_per_s)"
sed '/^RSS over time/,$d; /^> \[!WARNING\]$/,$d' out >md.head
unload md.head
expect_file md.head <<'OUT'
#### `ab`

Against `stock53`, paired by repetition (rotated runs): ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%.

| metric | label | runs | median (min–max) | ratio [95% CI] | p | verdict |
|---|---|---|---|---|---|---|
| `ops_per_s` (ops/s) | `stock53` | 5 | 1000 (990.0–1010) | baseline | | |
| `ops_per_s` (ops/s) | `special53` | 5 | 1042 (1035–1051) | 1.042 [1.038, 1.046] | 0.00794 | **better** |
| `ops_per_s` (ops/s) | `fit-only` | 5 | 1001 (992.0–1008) | 1.001 [0.982, 1.018] | 1 | no difference shown |

Same bytes: `fit-only` ran the bytes of `stock53` in another runtime environment.
No A/A control: no two labels ran the same bytes with the same runtime environment.

OUT

# pr.md's Runs section shows the comparison: statuses, then the table, the control, the warnings
expect_exit 0 "$AB" pr -o pr bo
cmark-gfm --extension table pr/pr.md >pr.html
# the verdict at the top leads with the benchmark's answer (tests/t7270 checks the block's shape): per run
# name a line, per label its results that differ first, then the set's notes
unload pr/pr.md
grep '^\*\*Benchmark\*\*' pr/pr.md | sed 's/ (the comparison: Runs, below):$//' >sets
expect_file sets <<'X'
**Benchmark** `aa`: 10 runs of 2 labels against `stock53`, paired by repetition
**Benchmark** `aa-differs`: 15 runs of 3 labels against `stock53`, paired by repetition
**Benchmark** `ab`: 15 runs of 3 labels against `stock53`, paired by repetition
**Benchmark** `cells`: 8 runs of 2 labels against `stock53`, paired by repetition
**Benchmark** `failed`: 10 runs of 2 labels against `stock53`, paired by repetition
**Benchmark** `few`: 4 runs of 2 labels against `stock53`, paired by repetition
**Benchmark** `mixed`: 10 runs of 2 labels against `stock53`, unpaired
X
# block NAME: the lines of a run name's part of the verdict
block() { awk -v h="**Benchmark** \`$1\`:" 'index($0, h) == 1 { f = 1; next } f && /^\*\*/ { exit } f && /^- /' pr/pr.md; }
block ab >ab.lines
check "ab: special53's better ops_per_s, with its interval" grep -qE '^- `special53`: .*\*\*better\*\* `ops_per_s` 1\.042× \[1\.038, 1\.046\]' ab.lines
check "ab: special53's steady RSS, 40 MiB against 32, worse" grep -qE '^- `special53`: .*\*\*worse\*\* .*`steady_rss_mib` 1\.[12][0-9]*×' ab.lines
check "ab: the runs compared" grep -qE '^- `special53`: .* \(5 pairs\)$' ab.lines
check "ab: fit-only ran stock53's bytes" grep -qE '^- `fit-only` \(the same bytes as `stock53`, in another runtime environment\): ' ab.lines
check "ab: no A/A control" grep -qxF -- '- ⚠ no A/A control: no two labels ran the same bytes with the same runtime environment' ab.lines
block aa-differs >aad.lines
check "aa-differs: the control shows a difference" grep -qxF -- '- ❌ A/A control `stock53` and `fit-only` (the same bytes and runtime environment) show a difference: every verdict above is unreliable' aad.lines
check "aa-differs: its verdicts unreliable" grep -qE '^- `special53`: \*\*[a-z]+ \(unreliable\)\*\*' aad.lines
check "aa: the control, clean or not (timing noise may show one in wall_s)" grep -qE '^- (✅|❌) A/A control' <(block aa)
check "failed: the failed run" grep -qxF -- '- ⚠ 1 failed run left out' <(block failed)
check "few: too few runs" grep -qE '^- `special53`: too few runs for a verdict in ' <(block few)
check "mixed: unreliable" grep -qxF -- '- ❌ the runs ran under different run environments: every verdict above is unreliable' <(block mixed)
sed -n '/^#### `ab`/,/^Run environment/p' pr/pr.md >ab.md
# the program each label ran: the test's driver, no artifact of the build
expect_grep "| \`fit-only\` | 5 | 0, 0, 0, 0, 0 | \`drive\` \`$(sha256sum <drive | cut -c1-12)\` ⚠ not an artifact of this build | – |" ab.md
expect_grep '| `ops_per_s` (ops/s) | `special53` | 5 | 1042 (1035–1051) | 1.042 [1.038, 1.046] | 0.00794 | **better** |' ab.md
expect_grep '<td><code>ops_per_s</code> (ops/s)</td>' pr.html
sed -n '/^#### `aa-differs`/,/^Run environment/p' pr/pr.md >aa.md
expect_grep "A/A control: \`stock53\` against \`fit-only\` (the same bytes, sha256 \`${stock:0:12}\`, and runtime environment: an A/A pair by construction): **shows a difference**: every verdict is unreliable." aa.md
expect_grep '| `ops_per_s` (ops/s) | `special53` | 5 | 1042 (1035–1051) | 1.042 [1.038, 1.046] | 0.00794 | **better (unreliable)** |' aa.md
# every metric it differs in is named: ops_per_s's, and wall_s's too when timing noise shows one
# (a warning is Markdown text on the page: its underscores escaped, docs/pr.md)
grep -q '^> - the A/A control fit-only against stock53 (the same bytes and runtime environment) shows a difference in \(wall\\_s ([^)]*), \)\?ops\\_per\\_s (ratio 1.061, p 0.00794): every verdict' aa.md ||
	{ cat aa.md; fail "aa-differs: the A/A control's warning does not name ops_per_s"; }
sed -n '/^#### `mixed`/,/^Run environment/p' pr/pr.md >mixed.md
expect_grep 'Against `stock53`, unpaired (the runs ran under different run environments)' mixed.md
expect_grep '> - the runs ran under different run environments (cpu.affinity: 0 (stock53, special53); 1 (stock53, special53)): every verdict is flagged unreliable' mixed.md
sed -n '/^#### `failed`/,/^Run environment/p' pr/pr.md >failed.md
expect_grep "| \`special53\` | 5 | 0, 0, 7, 0, 0 | \`drive\` \`$(sha256sum <drive | cut -c1-12)\` ⚠ not an artifact of this build | – |" failed.md
expect_grep '> - 1 failed run left out: 0006-special53 (exit 7)' failed.md

# the charts: RSS over time (ab was sampled) and each metric per label, as Mermaid
# xychart-beta blocks; rendered by headless chromium with the mermaid package
# from the npm registry (fetched once into tests/.cache/npm by tests/lib.sh's npm_pinned, its script pinned)
[ "$(grep -c '^xychart-beta$' ab.md)" = 7 ] || fail "ab's charts: $(grep -c '^xychart-beta$' ab.md), not 7"
expect_grep '    title "RSS over time"' ab.md
expect_grep '    x-axis ["stock53", "special53", "fit-only"]' ab.md
expect_grep '    y-axis "ops/s (×10³)" 0 --> 1.2' ab.md
expect_grep '    bar [1.000, 1.042, 1.001]' ab.md
need_mermaid
cat >charts.py <<'PY'
# charts.py MD JS HTML: a page rendering MD's mermaid blocks, its title saying how many drew a plot
import html, re, sys
blocks = re.findall(r"^```mermaid\n(.*?)^```$", open(sys.argv[1]).read(), re.S | re.M)
with open(sys.argv[3], "w") as f:
    f.write('<!doctype html><html><head><meta charset="utf-8"></head><body style="background: white; display: grid; grid-template-columns: repeat(3, 1fr)">\n')
    for b in blocks:
        f.write('<pre class="mermaid">\n%s</pre>\n' % html.escape(b))
    f.write('<script src="file://%s"></script>\n<script>\n' % sys.argv[2])
    f.write("mermaid.initialize({startOnLoad: false});\n"
            "mermaid.run().then(() => { const svgs = [...document.querySelectorAll('pre.mermaid svg')];\n"
            "  const plots = svgs.filter(s => s.querySelector('.line-plot-0 path, .bar-plot-0 rect'));\n"
            "  document.title = 'rendered ' + svgs.length + ' of %d, ' + plots.length + ' with plots'; },\n"
            "  e => { document.title = 'error: ' + e; });\n</script></body></html>\n" % len(blocks))
PY
python3 charts.py ab.md "$MERMAID_JS" charts.html
chrome --dump-dom "file://$PWD/charts.html" | grep -o '<title>[^<]*</title>' >title || true
[ "$(cat title)" = "<title>rendered 7 of 7, 7 with plots</title>" ] || fail "the charts: $(cat title)"
# three charts a row, at half scale: 750 x 650 pixels to decode
chrome --force-device-scale-factor=0.5 --window-size=1500,1300 --screenshot="$PWD/charts.png" \
	"file://$PWD/charts.html" >/dev/null
# the screenshot: its size, and how much of it is not white (the PNG decoded here)
cat >png.py <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and colour in (2, 6), (depth, colour)
        bpp = 3 if colour == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, ink = zlib.decompress(idat), w * bpp, 0
prev = bytearray(stride)
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        p = a + b - c
        paeth = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth)[f]) & 255
    ink += sum(1 for x in range(0, stride, bpp) if min(line[x:x + 3]) < 200)
    prev = line
print(w, h, "%.1f" % (100.0 * ink / (w * h)))
PY
python3 png.py charts.png >shot
read -r sw sh ink <shot
[ "$sw" = 750 ] && [ "$sh" = 650 ] || fail "the screenshot is ${sw}x$sh"
awk -v i="$ink" 'BEGIN { exit !(i > 2) }' || fail "the screenshot is blank: $ink% of it is not white"
# and as SVG files in the bundle (unlisted in SHA256SUMS, as pr-details.md): listed in pr.md, verified, drawn
tar -tzf pr/provenance-jemalloc-5.3.0-policy.tar.gz | sed -n 's|^provenance-jemalloc-5.3.0-policy/pr-charts/ab/||p' |
	grep 'svg$' | sort >svgs
expect_file svgs <<'LIST'
metric/cpu_s.svg
metric/ops_per_s.svg
metric/peak_rss_mib.svg
metric/rss_gib_s.svg
metric/steady_rss_mib.svg
metric/wall_s.svg
rss-over-time.svg
LIST
expect_grep 'The same charts as SVG files in the bundle: `pr-charts/ab/rss-over-time.svg`, `pr-charts/ab/metric/wall_s.svg`,' ab.md
expect_exit 0 "$AB" verify pr/provenance-jemalloc-5.3.0-policy.tar.gz
chrome --window-size=640,360 --screenshot="$PWD/rss.png" "file://$PWD/bo/pr-charts/ab/rss-over-time.svg" >/dev/null
python3 png.py rss.png >shot
read -r sw sh ink <shot
[ "$sw" = 640 ] && [ "$sh" = 360 ] || fail "the SVG's screenshot is ${sw}x$sh"
awk -v i="$ink" 'BEGIN { exit !(i > 2) }' || fail "the SVG is blank: $ink% of it is not white"
# what a reader sees of each chart, Mermaid's and the SVG files (tests/charts-lib.sh): no text clipped or
# running into another, round ticks in engineering notation (the SVG's ticks were 9.311, 18.62, ...), lines
# that end where their runs ended (a run shorter than the longest dropped to 0 at its end)
charts_check ab.md seen bo/pr-charts/ab/rss-over-time.svg bo/pr-charts/ab/metric/*.svg
expect_file seen <<'X'
drawn 7 of 7
X

# a series that does not hold what its record says: md (which charts it) refuses, exit 1, prints nothing
mkdir series.saved
cp bo/runs/ab/*.series.csv series.saved/
sed -i '2s/^\([0-9]*\),[0-9]*,/\1,1,/' bo/runs/ab/*.series.csv
expect_exit 1 "$AB" compare bo --name ab --format md
[ ! -s out ] || fail "md with a tampered series printed"
expect_grep ".series.csv': sha256 " err
expect_grep "its record says" err
cp series.saved/* bo/runs/ab/

# --- compare --sign: each run name's findings as an in-toto test-result Statement
# (test-results/NAME.intoto.json), signed with the OUTDIR's Statements; verify --key and
# docs/dsse-verify.py check it, and every figure of pr.md's runs table is a field of it
. "$TOP/tests/sign-lib.sh"
make_keys
chmod 600 ed.pem
expect_exit 0 "$AB" compare bo --name ab --metric ops_per_s --sign ed.pem
expect_file out <first
expect_grep "test results in 'bo/test-results/'" err
ls bo/test-results >results
printf '%s.intoto.json\n' aa-differs aa ab cells failed few mixed | expect_file results
T=bo/test-results/ab.intoto.json
json $T '"\n".join([d["predicateType"], d["predicate"]["result"]] + [s["name"] + " " + s["digest"]["sha256"] for s in d["subject"]])' >st
# the subjects: the artifacts the runs ran (fit-only's is stock53's archive)
printf '%s\n' https://in-toto.io/attestation/test-result/v0.1 PASSED "variants/stock53/build/lib/libjemalloc_pic.a $stock" \
	"variants/special53/build/lib/libjemalloc_pic.a $(sha256sum <bo/variants/special53/build/lib/libjemalloc_pic.a | cut -c1-64)" |
	expect_file st
json $T '"\n".join(k + ": " + "; ".join(d["predicate"][k]) for k in ("passedTests", "warnedTests", "failedTests"))' >tests
grep -q "^passedTests: .*ops_per_s: special53 against stock53" tests || fail "the tests: $(cat tests)"
grep -q "^failedTests: $" tests || fail "failed tests in ab: $(cat tests)"
json $T '[(c["name"], c.get("annotations", {}).get("label")) for c in d["predicate"]["configuration"]][:3]' >conf
echo "[('recipe.json', None), ('allocbuild compare settings', None), ('runs/ab/0001-stock53.intoto.json', 'stock53')]" |
	expect_file conf
json $T '[c["annotations"] for c in d["predicate"]["configuration"] if c["name"] == "allocbuild compare settings"][0]' >settings
grep -q "'seed': '1', 'resamples': 10000, 'threshold': 0.01" settings || fail "the settings: $(cat settings)"
json $T '"environment" in d["predicate"]["configuration"][2]["annotations"]' | grep -qx True ||
	fail "a run record's descriptor has no run environment"
# aa-differs: the control's difference is a failed test
json bo/test-results/aa-differs.intoto.json 'd["predicate"]["result"]' | grep -qx FAILED ||
	fail "aa-differs: $(json bo/test-results/aa-differs.intoto.json 'd["predicate"]["failedTests"]')"
expect_exit 0 "$AB" verify -v --key ed.pub.pem bo
expect_grep "ok: test-results/ab.intoto.json, signed by" out
"$SSLIB_PY" "$TOP/docs/dsse-verify.py" ed.pub.pem bo/provenance/provenance.intoto.jsonl >sums 2>dsse.err ||
	fail "dsse-verify.py: $(cat dsse.err)"
expect_grep "https://in-toto.io/attestation/test-result/v0.1: signature by" dsse.err
check "dsse-verify.py's digests hold" sh -c "cd bo && sha256sum -c --quiet" <sums
# pr.md's runs table: every figure there is a field of the signed statement (pr --sign writes the
# test results with compare's defaults, as pr.md compares)
expect_exit 0 "$AB" pr --sign ed.pem -o pr2 bo
python3 - pr2/pr.md bo/test-results >traced <<'PY'
import json, os, re, sys
page = open(sys.argv[1]).read()
for f in sorted(os.listdir(sys.argv[2])):
    name = f[:-len(".intoto.json")]
    p = json.load(open(os.path.join(sys.argv[2], f)))["predicate"]
    sec = re.search(r"^#### `%s`[^\n]*\n(.*?)(?=^#### |^### |\Z)" % re.escape(name), page, re.S | re.M)
    rows = [l for l in sec.group(1).splitlines() if l.startswith("| `") and "|---" not in l]
    n = 0
    for row in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]
        if len(cells) < 7:
            continue
        metric, label = re.match(r"`([^`]*)`", cells[0]).group(1), cells[-6].strip("`")
        cell = (cells[1].strip("`") or None) if len(cells) == 8 else None
        g = [x for x in p["figures"] if x["metric"] == metric and x["label"] == label and x.get("cell") == cell]
        assert len(g) == 1, (name, row)
        g, fig = g[0], cells[-4]
        m = re.match(r"(\S+)(?: \((\S+)–(\S+)\))?$", fig)
        assert str(g["n"]) == cells[-5] and m.group(1) == g["shown"]["median"], (row, g)
        assert m.group(2) is None or (m.group(2), m.group(3)) == (g["shown"]["min"], g["shown"]["max"]), (row, g)
        if cells[-3] != "baseline":
            base = p["configuration"][1]["annotations"]["baseline"]
            t = [x for x in p["tests"] if x["metric"] == metric and x["label"] == label and
                 x.get("cell") == cell and x["against"] == base]
            assert len(t) == 1, (row, t)
            s = t[0]["shown"]
            assert cells[-3] == (s["ratio"] + " " + (s["ci"] if s["ci"] != "-" else "")).strip(), (row, s)
            assert cells[-2] == s["p"] and cells[-1].strip("*") == s["verdict"], (row, s)
        n += 1
    print(name, n)
PY
expect_file traced <<'X'
aa-differs 12
aa 8
ab 18
cells 8
failed 8
few 8
mixed 8
X
# the bundle carries them; verify --key checks them there
tar -tzf pr2/provenance-jemalloc-5.3.0-policy.tar.gz | grep '/test-results/.' | sed 's|^[^/]*/||' >members
printf 'test-results/%s.intoto.json\n' aa-differs aa ab cells failed few mixed | expect_file members
expect_exit 0 "$AB" verify --key ed.pub.pem pr2/provenance-jemalloc-5.3.0-policy.tar.gz
# a result changed after signing: verify --key fails; sign writes it again, the same bytes
cp $T ab.saved
sed -i 's/"result":[[:space:]]*"[A-Z]*"/"result": "PASSED!"/' $T
cmp -s $T ab.saved && fail "the test result was not changed"
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_grep "test-results/ab.intoto.json" out
expect_exit 0 "$AB" sign --signing-key ed.pem bo
check "sign wrote the test result again, byte for byte" cmp $T ab.saved
expect_exit 0 "$AB" verify --key ed.pub.pem bo

# refusals: exit 2, nothing on stdout
for args in "--name nosuch" "--baseline nosuch" "--metric nosuch" "--format xml" "--threshold 200" \
	"--resamples 5" "--seed -1"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$AB" compare bo $args
	[ ! -s out ] || fail "compare $args printed: $(cat out)"
done
expect_exit 2 "$AB" compare bo --name nosuch
expect_file err <<'ERR'
allocbuild: compare: 'bo' has no runs named 'nosuch' in its SHA256SUMS
ERR
expect_exit 2 "$AB" compare bo --name ab --baseline nosuch
expect_file err <<'ERR'
allocbuild: compare: runs/ab has no runs of the baseline 'nosuch' (its labels: stock53, special53, fit-only)
ERR
default_build empty
expect_exit 2 "$AB" compare empty
expect_file err <<'ERR'
allocbuild: compare: 'empty' has no runs in its SHA256SUMS: record some with 'allocbuild run'
ERR
# a record that does not hold what SHA256SUMS says: exit 1, named
sed -i 's/"wall_s":\([[:space:]]*\)[0-9.]*/"wall_s":\19/' bo/runs/few/0001-stock53.intoto.json
grep -q '"wall_s":[[:space:]]*9,' bo/runs/few/0001-stock53.intoto.json || fail "the record was not changed"
expect_exit 1 "$AB" compare bo --name few
[ ! -s out ] || fail "compare of a tampered record printed: $(cat out)"
expect_grep "allocbuild: compare: 'bo/runs/few/0001-stock53.intoto.json': sha256 " err
expect_grep "run 'allocbuild verify bo'" err
