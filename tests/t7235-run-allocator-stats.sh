#!/usr/bin/env bash
# run --allocator-stats on the default recipe's real jemalloc 5.3.0: a
# program linked with stock53's archive reads its own figures through
# mallctl just before it returns; the record's figures, from jemalloc's
# stats_print at exit, are those plus what stats_print allocates before
# it reads (its 64 KiB output buffer: allocated and metadata +65536,
# active and resident +65536 + a page, mapped + retained unchanged),
# dirty and muzzy pages equal. The setting joins the label's own
# MALLOC_CONF (fit-only) and is recorded with the variables set; compare
# shows the figures, refuses to pool runs with and without it; a
# policy's not_set names the run that set stats_print; a label whose
# allocator reports none is refused before any run; output without the
# statistics is recorded as missing, with a warning; a jemalloc with the
# prefix je_ gets JE_MALLOC_CONF. (mimalloc: t4040.)
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

default_build o
je=o/variants/stock53/build
cat >jeself.c <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <jemalloc/jemalloc.h>
static size_t get(const char *n) { size_t v = 0, l = sizeof(v); mallctl(n, &v, &l, NULL, 0); return v; }
int main(void)
{
	void *v[1000];
	uint64_t e = 1;
	size_t l = sizeof(e), page;
	char b[512];
	int n;

	for (int i = 0; i < 1000; i++)
		v[i] = malloc(100 + i * 37);
	for (int i = 0; i < 1000; i += 2)
		free(v[i]);
	mallctl("epoch", &e, &l, &e, l);
	page = get("arenas.page");
	/* no stdio buffer: nothing allocated after the figures are read */
	n = snprintf(b, sizeof(b), "SELF %zu %zu %zu %zu %zu %zu %zu %zu\n", get("stats.allocated"), get("stats.active"),
	    get("stats.metadata"), get("stats.resident"), get("stats.mapped"), get("stats.retained"),
	    get("stats.arenas.4096.pdirty") * page, get("stats.arenas.4096.pmuzzy") * page);
	return write(1, b, (size_t)n) == n ? 0 : 1;
}
C
cc -I$je/include -o jeself jeself.c $je/lib/libjemalloc_pic.a -lpthread -ldl || fail "cannot link jeself"

expect_exit 0 "$AB" run o stock53 fit-only --allocator-stats --repeat 2 --name st --sample-ms 0 --program ./jeself -- ./jeself
for f in o/runs/st/000[1-4]-*.intoto.json; do
	log=${f%.intoto.json}.log
	read -r _ a ac m r mp rt d mu < <(grep '^SELF ' $log) || fail "$log: no SELF line"
	check "$f: the figures are the program's plus stats_print's buffer" test \
		"$(json $f 'tuple(d["predicate"]["allocator_stats"]["figures"].values())')" = \
		"($((a + 65536)), $((ac + 69632)), $((m + 65536)), $((r + 69632)), $((mp + 69632)), $((rt - 69632)), $d, $mu)"
	check "$f: allocator, variable, setting" test "$(json $f '(lambda a: (a["allocator"], a["variable"], a["setting"], "missing" in a))(d["predicate"]["allocator_stats"])')" = \
		"('jemalloc', 'MALLOC_CONF', 'stats_print:true,stats_print_opts:Jgadblxeh', False)"
	check "$f: the figures as MiB" test "$(json $f '[(m["name"], m["unit"], m["value"] * 1048576) for m in d["predicate"]["metrics"]][3]')" = \
		"('jemalloc.resident_mib', 'MiB', $((r + 69632)).0)"
done
check "stock53: MALLOC_CONF is the setting" test "$(json o/runs/st/0001-stock53.intoto.json 'd["predicate"]["env_overrides"]["MALLOC_CONF"]')" = \
	"stats_print:true,stats_print_opts:Jgadblxeh"
check "fit-only: joined to its own MALLOC_CONF" test "$(json o/runs/st/0002-fit-only.intoto.json 'd["predicate"]["env_overrides"]["MALLOC_CONF"]')" = \
	"lg_extent_max_active_fit:30,stats_print:true,stats_print_opts:Jgadblxeh"

# compare shows them; a label with runs with and without: refused
expect_exit 0 "$AB" compare o --name st --format json
check "compare: the allocator's figures beside RSS" test \
	"$(json out '[m["name"] for m in d["sets"][0]["metrics"]][2:5]')" = "['maxrss_mib', 'jemalloc.allocated_mib', 'jemalloc.active_mib']"
check "compare json: the set says the runs asked for them" test \
	"$(json out 'd["sets"][0]["allocator_stats"]')" = "{'runs': 4, 'allocator': 'jemalloc', 'variable': 'MALLOC_CONF', 'setting': 'stats_print:true,stats_print_opts:Jgadblxeh'}"
expect_exit 0 "$AB" compare o --name st --metric jemalloc.dirty_mib
check "compare: the line that says so" grep -qxF "Allocator statistics: 4 of 4 runs asked jemalloc for them at exit (run --allocator-stats: MALLOC_CONF=stats_print:true,stats_print_opts:Jgadblxeh, a setting of the allocator, in every run of their labels); its figures are the jemalloc.*_mib rows." out
check "compare: jemalloc.dirty_mib of fit-only" grep -qE '^jemalloc.dirty_mib +MiB +- +fit-only +2 ' out
expect_exit 0 "$AB" run o stock53 --name st --sample-ms 0 --program ./jeself -- ./jeself
expect_exit 2 "$AB" compare o --name st
echo "allocbuild: compare: runs/st: stock53: 2 runs with --allocator-stats and 1 without: never pooled (asking for the statistics changes the allocator's settings); give them another --name" |
	expect_file err

# a policy's not_set: stats_print and "*" fail, naming the run; stock53 and special53 otherwise pass
cat >pol.json <<'X'
{"policy": 1, "name": "x", "rules": [{"variants": ["stock53"], "not_set": ["stats_print"]},
 {"variants": ["special53"], "not_set": ["stats_print"]}, {"variants": ["fit-only"], "not_set": ["*"]}]}
X
expect_exit 1 "$AB" verify --policy pol.json o
grep '^FAIL: rules' out >fails
expect_file fails <<'X'
FAIL: rules[0] not_set stock53: expected stats_print not set at run time, got stats_print set at run time by run --allocator-stats (runs/st/0001-stock53.intoto.json: predicate.allocator_stats)
FAIL: rules[2] not_set fit-only: expected no allocator option not set at run time, got stats_print set at run time by run --allocator-stats (runs/st/0002-fit-only.intoto.json: predicate.allocator_stats)
FAIL: rules[2] not_set fit-only: expected no allocator option set at run time, got MALLOC_CONF set at run time (provenance/allocator-probes.json: variants[2].probe.requested.env)
X
check "special53: never run with it, passes" grep -qxF \
	"pass: rules[1] not_set special53: stats_print not set at run time (provenance/allocator-probes.json: variants[1].probe.overrides)" out

# no statistics in the output (a command not linked with jemalloc): recorded as missing, warned
expect_exit 0 "$AB" run o stock53 --allocator-stats --name none --sample-ms 0 -- true
check "the warning" grep -qxF "allocbuild: warning: run: stock53: --allocator-stats: no jemalloc statistics in the output (no '{\"jemalloc\":{') (runs/none/0001-stock53.log)" err
check "the record: no figures" test "$(json o/runs/none/0001-stock53.intoto.json 'd["predicate"]["allocator_stats"]["figures"]')" = None
json o/runs/none/0001-stock53.intoto.json 'd["predicate"]["allocator_stats"]["missing"]' >missing
echo "no jemalloc statistics in the output (no '{\"jemalloc\":{')" | expect_file missing

# a label whose allocator is not one whose statistics allocbuild reads (none found): refused, nothing run
make_fakeproj_runtime_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_exit 2 "$AB" run bo a --allocator-stats --name g -- {bin}
echo "allocbuild: run: --allocator-stats: a's allocator is not known (its probe found none): allocbuild reads the statistics at exit of jemalloc and mimalloc" |
	expect_file err
[ ! -e bo/runs/g ] || fail "a refused run recorded something"

# a jemalloc built with --with-jemalloc-prefix=je_ (as Fluent Bit's) reads
# JE_MALLOC_CONF, as its probe found: the setting goes there, joined to the
# label's own narenas:2
suite_fixture je_prefix allocbuild
cp -a "$FIXTURE/jo" jo
jp=jo/variants/je/build
sed 's/mallctl(/je_mallctl(/g; s/= malloc(/= je_malloc(/; s/free(v/je_free(v/' jeself.c >jpself.c
cc -I$jp/include -o jpself jpself.c $jp/lib/libjemalloc_pic.a -lpthread -ldl || fail "cannot link jpself"
expect_exit 0 "$AB" run jo je-narenas --allocator-stats --name st --sample-ms 0 --program ./jpself -- ./jpself
f=jo/runs/st/0001-je-narenas.intoto.json
read -r _ a _ < <(grep '^SELF ' ${f%.intoto.json}.log) || fail "je-narenas: no SELF line"
check "prefixed: JE_MALLOC_CONF, joined" test "$(json $f '(d["predicate"]["allocator_stats"]["variable"], d["predicate"]["env_overrides"]["JE_MALLOC_CONF"], "MALLOC_CONF" in d["predicate"]["env_overrides"])')" = \
	"('JE_MALLOC_CONF', 'narenas:2,stats_print:true,stats_print_opts:Jgadblxeh', False)"
check "prefixed: allocated is the program's plus the buffer" test "$(json $f 'd["predicate"]["allocator_stats"]["figures"]["allocated"]')" = $((a + 65536))
