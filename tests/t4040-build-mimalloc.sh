#!/usr/bin/env bash
# build: mimalloc 2.0.9 from Debian's source through a git repository the
# test creates; MI_SECURE=ON against OFF (the probe's secure level differs),
# and MIMALLOC_PURGE_DELAY, unknown to 2.0.9, reported as unknown.
. "$TOP/tests/lib.sh"

mkdir mi
tar -xf "$MIMALLOC_TARBALL" -C mi --strip-components=1
git -C mi init -q
git -C mi add -A
git -C mi commit -qm "mimalloc 2.0.9 (Debian's source)"
commit=$(git -C mi rev-parse HEAD)
cat >r.json <<JSON
{
	"recipe": 1,
	"name": "mi",
	"sources": {
		"mimalloc": {"git": {"url": "file://$PWD/mi", "commit": "$commit"}}
	},
	"variants": [
		{"label": "mi-plain", "source": "mimalloc",
		 "build": {"system": "cmake", "defines": {"MI_SECURE": "OFF", "MI_BUILD_SHARED": "OFF", "MI_BUILD_OBJECT": "OFF", "MI_BUILD_TESTS": "OFF"},
			"targets": ["mimalloc-static"]},
		 "artifacts": ["libmimalloc.a"],
		 "allocator": {"kind": "mimalloc", "archive": "libmimalloc.a"}},
		{"label": "mi-secure", "source": "mimalloc",
		 "build": {"system": "cmake", "defines": {"MI_SECURE": "ON", "MI_BUILD_SHARED": "OFF", "MI_BUILD_OBJECT": "OFF", "MI_BUILD_TESTS": "OFF"},
			"targets": ["mimalloc-static"]},
		 "artifacts": ["libmimalloc-secure.a"],
		 "allocator": {"kind": "mimalloc", "archive": "libmimalloc-secure.a"}},
		{"label": "mi-purge", "runtime_of": "mi-plain",
		 "runtime": {"env": {"MIMALLOC_PURGE_DELAY": "0"}}}
	]
}
JSON

# the unknown runtime option is a failed check: exit 1, everything built and recorded
expect_exit 1 "$AB" build -o bo r.json
expect_grep "allocbuild: mi-purge: probe: " err
grep "mi-purge: probe: " err | grep -q MIMALLOC_PURGE_DELAY || fail "the unknown option is not named"
P=bo/provenance/allocator-probes.json
[ "$(json $P '[v["label"] for v in d["variants"]]')" = "['mi-plain', 'mi-secure', 'mi-purge']" ]
[ "$(json $P 'd["variants"][0]["probe"]["version"]')" = "2.0.9" ]
[ "$(json $P 'd["variants"][0]["probe"]["ok"]')" = True ]
[ "$(json $P 'd["variants"][1]["probe"]["ok"]')" = True ]
plain=$(json $P 'd["variants"][0]["probe"]["secure"]')
secure=$(json $P 'd["variants"][1]["probe"]["secure"]')
[ "$plain" = 0 ] || fail "mi-plain secure level $plain"
[ "$secure" = 4 ] || fail "mi-secure secure level $secure"
[ "$(json $P 'd["variants"][2]["probe"]["ok"]')" = False ]
[ "$(json $P '[p["setting"] for p in d["variants"][2]["probe"]["problems"]]')" = "['MIMALLOC_PURGE_DELAY']" ]

# the two cmake variants differ in MI_SECURE (and the library's name)
C=bo/provenance/cmake-cache-provenance.json
[ "$(json $C 'd["diffs"][0]["a"] + " " + d["diffs"][0]["b"]')" = "mi-plain mi-secure" ]
json $C '"\n".join(sorted(set(x["key"] for x in d["diffs"][0]["differences"] if x["section"] == "keys")))' >keys
expect_grep "MI_SECURE" keys
[ "$(json bo/provenance/sources.json 'd["sources"]["mimalloc"]["commit"]')" = "$commit" ]
[ "$(json bo/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["resolvedDependencies"][0]["digest"]["gitCommit"]')" = "$commit" ]
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo

expect_exit 0 "$AB" env bo mi-purge
printf "unset MALLOC_CONF\nexport MIMALLOC_PURGE_DELAY='0'\n# warning: mimalloc 2.0.9 has no option MIMALLOC_PURGE_DELAY: it ignores it silently\n" | expect_file out
expect_grep "mimalloc 2.0.9 has no option MIMALLOC_PURGE_DELAY" err
expect_exit 0 "$AB" env bo mi-secure
printf "unset MALLOC_CONF\nunset MIMALLOC_PURGE_DELAY\n" | expect_file out

# reproducible: built again into a longer, nested OUTDIR at -j1, every
# artifact line of SHA256SUMS is the same (CMake found the compiler wrapper)
expect_exit 1 "$AB" build -j 1 -o a/longer/nested/output/directory r.json
grep -E '  variants/[^/]+/build/' bo/SHA256SUMS >a1
grep -E '  variants/[^/]+/build/' a/longer/nested/output/directory/SHA256SUMS >a2
[ "$(wc -l <a1)" = 2 ] || fail "artifacts: $(cat a1)"
diff -u a1 a2 || fail "the mimalloc archives depend on the OUTDIR"
[ "$(json $C '[L[v]["compilers"]["C"]["path"] for v in ("mi-plain", "mi-secure")]')" = "['/usr/bin/cc', '/usr/bin/cc']" ]
[ "$(json $C 'L["mi-plain"]["compilers"]["C"]["wrapper"]')" = "/allocbuild/ccwrap/cc" ]

# what a variant expects (issue 13, item 4): met, the probe says so; not met, the variant fails naming both values
python3 - r.json r2.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["variants"][0]["expect"] = {"version": "2.0.9", "secure": 0, "options": {"decommit_delay": "25"}}
d["variants"][1]["expect"] = {"version": "v2.1.7", "secure": 4}
d["variants"] = d["variants"][:2]
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
expect_exit 1 "$AB" build -o bo r2.json
expect_grep "allocbuild: mi-secure: probe: expected version v2.1.7, the probe found 2.0.9" err
expect_no_grep "mi-plain: probe: expected" err
P=bo/provenance/allocator-probes.json
[ "$(json $P '[(v["label"], v["probe"]["ok"], v["probe"]["expected"]) for v in d["variants"]]')" = \
	"[('mi-plain', True, {'version': '2.0.9', 'secure': 0, 'options': {'decommit_delay': '25'}}), ('mi-secure', False, {'version': 'v2.1.7', 'secure': 4})]" ] ||
	fail "the expectations are not recorded with their verdicts"
[ "$(json $P '[(p["kind"], p["setting"]) for p in d["variants"][1]["probe"]["problems"]]')" = "[('expect_mismatch', 'version')]" ]
[ "$(json bo/provenance/build-commands.json '[v["definition"]["expect"] for v in d["variants"]][1]')" = "{'version': 'v2.1.7', 'secure': 4}" ]

# a program linked against mi-plain's archive ({variant:...}, from a dir source beside the recipe), and its
# diagnostic relink with mi-secure's: without allocator or probe keys the relink is probed as mimalloc, like
# its from variant, and its probe shows the replacement's secure level (issue 13, items 3 and 5)
cp -a "$TOP/recipes/alive" alive
python3 - r.json r3.json "$("$AB" hash alive | cut -d' ' -f1)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["sources"]["alive"] = {"dir": {"path": "alive", "dirHash": sys.argv[3]}}
d["variants"] = d["variants"][:2] + [
	{"label": "alive-plain", "source": "alive",
	 "build": {"system": "cmake", "defines": {"ALIVE_ARCHIVE": "{variant:mi-plain:libmimalloc.a}", "ALIVE_ALLOCATOR": "mimalloc"},
		"targets": ["alive"]},
	 "artifacts": ["alive"], "allocator": {"kind": "mimalloc"}, "expect": {"secure": 0}},
	{"label": "alive-secure",
	 "relink": {"from": "alive-plain", "link_txt": "CMakeFiles/alive.dir/link.txt",
		"replace": [{"path": "{variant:mi-plain:libmimalloc.a}", "with": {"variant": "mi-secure", "artifact": "libmimalloc-secure.a"}}],
		"output": "alive-secure"},
	 "expect": {"secure": 4}}]
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
expect_exit 0 "$AB" build -o b3 r3.json
P=b3/provenance/allocator-probes.json
[ "$(json $P '[(v["label"], v["probe"]["allocator"], v["probe"]["secure"], v["probe"]["ok"]) for v in d["variants"]]')" = \
	"[('mi-plain', 'mimalloc', 0, True), ('mi-secure', 'mimalloc', 4, True), ('alive-plain', 'mimalloc', 0, True), ('alive-secure', 'mimalloc', 4, True)]" ] ||
	fail "the relink is not probed as its from variant's allocator"
[ "$(json b3/provenance/binary-provenance.json '[(v["label"], v["allocator"]["kind"], v["allocator"].get("archive")) for v in d["variants"] if v["label"].startswith("alive")]')" = \
	"[('alive-plain', 'mimalloc', None), ('alive-secure', 'mimalloc', None)]" ]
# the relinked program runs with the replacement: mimalloc's own report says so
MIMALLOC_VERBOSE=1 b3/variants/alive-plain/build/alive-secure 2>verbose >/dev/null
expect_grep "secure level: 4" verbose

# run --allocator-stats on mi-plain: MIMALLOC_SHOW_STATS=1, its table read
# back at exit; a program linked with mi-plain's archive reads its own
# commit figures through mi_process_info just before it returns: the
# record's committed and committed_peak are those (32.0 MiB, exact at the
# table's tenth of a MiB), its peak RSS at least the program's (the table
# is printed after, touching more), each amount known to a tenth of its unit
cat >miself.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <mimalloc.h>
int main(void)
{
	size_t el, us, sy, crss, prss, ccom, pcom, pf;
	void *v[1000];
	char b[256];
	int n;

	for (int i = 0; i < 1000; i++)
		v[i] = malloc(100 + i * 37);
	for (int i = 0; i < 1000; i += 2)
		free(v[i]);
	mi_process_info(&el, &us, &sy, &crss, &prss, &ccom, &pcom, &pf);
	n = snprintf(b, sizeof(b), "SELF %zu %zu %zu\n", ccom, pcom, prss);
	return write(1, b, (size_t)n) == n ? 0 : 1;
}
C
cc -Ibo/variants/mi-plain/src/include -o miself miself.c bo/variants/mi-plain/build/libmimalloc.a -lpthread ||
	fail "cannot link miself"
expect_exit 0 "$AB" run bo mi-plain --allocator-stats --name st --sample-ms 0 --program ./miself -- ./miself
f=bo/runs/st/0001-mi-plain.intoto.json
read -r _ ccom pcom prss < <(grep '^SELF ' bo/runs/st/0001-mi-plain.log) || fail "no SELF line"
check "mimalloc: allocator, variable, setting" test "$(json $f '(lambda a: (a["allocator"], a["variable"], a["setting"]))(d["predicate"]["allocator_stats"])')" = \
	"('mimalloc', 'MIMALLOC_SHOW_STATS', '1')"
check "mimalloc: committed and its peak are the program's" test \
	"$(json $f '(lambda f: (f["committed"], f["committed_peak"]))(d["predicate"]["allocator_stats"]["figures"])')" = "($ccom, $pcom)"
check "mimalloc: 32.0 MiB committed" test "$ccom" = 33554432
check "mimalloc: peak RSS at least the program's" test \
	"$(json $f '(lambda a: a["figures"]["peak_rss"] + a["resolution"]["peak_rss"] > '$prss')(d["predicate"]["allocator_stats"])')" = True
check "mimalloc: the resolution of a MiB amount" test "$(json $f 'd["predicate"]["allocator_stats"]["resolution"]["committed"]')" = 104857.6
check "mimalloc: the figures as MiB" test "$(json $f '[m["name"] for m in d["predicate"]["metrics"]]')" = \
	"['mimalloc.reserved_mib', 'mimalloc.committed_mib', 'mimalloc.committed_peak_mib', 'mimalloc.reset_mib', 'mimalloc.peak_rss_mib', 'mimalloc.peak_commit_mib']"
