#!/usr/bin/env bash
# build --check and rebuild against a variant made irreproducible on
# purpose (its build writes random bytes into noise.o inside libnoise.a):
# both exit 1 and name the artifact and the member; the reproducible
# variant of the same recipe is identical, although its build asks for
# `ar rcU` and `ranlib -U` and puts its source directory into -D strings;
# a "reproducible": false variant is marked so
# in every manifest and in pr.md, and its difference is expected. The
# records survive a no-op build and go when the artifacts change; sign
# covers them. Debian's diffoscope explains the first artifact that
# differs: its report (bounded) is kept beside the evidence, named by the
# output, the record (with its digest) and pr.md.
. "$TOP/tests/lib.sh"
command -v diffoscope >/dev/null || fail "no diffoscope (scripts/install-deps.sh: diffoscope-minimal)"
. "$TOP/tests/fakeproj.sh"

sha=$(make_noisyproj "$PWD")
cat >r.json <<JSON
{
	"recipe": 1,
	"name": "noisy",
	"sources": {
		"noisy": {"archive": {"urls": ["https://example.invalid/noisyproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}
	},
	"variants": [
		{"label": "noisy", "source": "noisy",
		 "build": {"system": "autotools", "targets": ["libnoise.a"]}, "artifacts": ["libnoise.a"]},
		{"label": "quiet", "source": "noisy",
		 "build": {"system": "autotools", "targets": ["libquiet.a"]}, "artifacts": ["libquiet.a"]},
		{"label": "debug", "source": "noisy", "reproducible": false,
		 "build": {"system": "autotools", "targets": ["libquiet.a"]}, "artifacts": ["libquiet.a"]}
	]
}
JSON

expect_exit 1 "$AB" build --no-sandbox --check -j 2 --mirror-dir mirror -o o r.json
O=$PWD/o
sha_of() { sha256sum "$1" | cut -c1-64; }
n1=$(sha_of o/variants/noisy/build/libnoise.a)
n2=$(sha_of o/reproducibility/check/variants/noisy/build/libnoise.a)
q=$(sha_of o/variants/quiet/build/libquiet.a)
d1=$(sha_of o/variants/debug/build/libquiet.a)
d2=$(sha_of o/reproducibility/check/variants/debug/build/libquiet.a)
[ "$n1" != "$n2" ] || fail "noise.o is not noisy"
[ "$d1" != "$d2" ] || fail "the debug build does not embed its directory"
[ "$q" = "$(sha_of o/reproducibility/check/variants/quiet/build/libquiet.a)" ] || fail "libquiet.a differs"
cat >want <<EOT
reproducibility: built again in $O/reproducibility/check with -j 4
differs    noisy  variants/noisy/build/libnoise.a  ${n1:0:12} -> ${n2:0:12}: members differ: noise.o (sections .rodata)
           first differing compile (1 of the variant's differ): noise.c -> noise.o in /allocbuild/build
           command: cc -g -c noise.c -o noise.o
identical  quiet  variants/quiet/build/libquiet.a  ${q:0:12}
differs    debug  variants/debug/build/libquiet.a  ${d1:0:12} -> ${d2:0:12}: members differ: quiet.o (sections .rodata .rela.debug_info .rela.debug_line .debug_line_str) (expected: "reproducible": false)
           likely cause: the variant is built with "reproducible": false
1/3 artifacts identical; 1 of a variant built with "reproducible": false differs
diffoscope: variants/noisy/build/libnoise.a of noisy: $O/diffoscope/noisy.libnoise.a.txt
EOT
# after the build's table
sed -n '/^reproducibility:/,$p' out | expect_file want
# diffoscope's report of the first artifact that differs (and of it only), outside provenance/
check "diffoscope explains noise.o" grep -q "noise.o" o/diffoscope/noisy.libnoise.a.txt
[ "$(ls o/diffoscope)" = noisy.libnoise.a.txt ] || fail "diffoscope's reports: $(ls o/diffoscope)"
[ "$(wc -c <o/diffoscope/noisy.libnoise.a.txt)" -le 1048576 ] || fail "diffoscope's report passes 1 MiB"

# `ar rcU` and `ranlib -U` went through the wrapper: deterministic members
ar tv o/variants/quiet/build/libquiet.a >members
sed "s/ *[0-9]* Jan/ SIZE Jan/" members | grep -qx "rw-r--r-- 0/0 SIZE Jan  1 00:00 1970 quiet.o" || { cat members; fail "libquiet.a is not deterministic"; }
# the debug variant (no wrapper) kept the real timestamp and its directory
ar tv o/variants/debug/build/libquiet.a | grep -qv " 1970 " || fail "the debug archive is deterministic"
grep -aq "$O/variants/debug" o/variants/debug/build/libquiet.a || fail "the debug build has no path in it"
! grep -aq "$O" o/variants/quiet/build/libquiet.a || fail "the OUTDIR is in libquiet.a"
grep -aq "/allocbuild/build" o/variants/quiet/build/libquiet.a || fail "no mapped directory in libquiet.a"
# the -D string that names the source directory, mapped as the debug info is
grep -aq "/allocbuild/src/quiet.c" o/variants/quiet/build/libquiet.a || fail "QUIET_WHERE is not mapped"
grep -aq "/allocbuild/src/stable.c" o/variants/noisy/build/libnoise.a || fail "STABLE_WHERE is not mapped"
grep -aq "$O/variants/debug/src/quiet.c" o/variants/debug/build/libquiet.a || fail "QUIET_WHERE of the debug build is mapped"
[ "$(json o/provenance/build-commands.json 'd["variants"][1]["reproducible"]["macro_definitions"]')" = \
  "the directories of the maps replaced in the build's own -D values, as the maps would" ]

# the record: a statement in SHA256SUMS, its subjects the first build's artifacts
R=o/provenance/reproducibility.intoto.json
expect_grep "  provenance/reproducibility.intoto.json" o/SHA256SUMS
[ "$(tail -n1 o/SHA256SUMS | cut -c67-)" = provenance/reproducibility.intoto.json ]
[ "$(json $R 'd["predicateType"]')" = https://allocbuild.dev/reproducibility/v1 ]
[ "$(json $R '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = \
  "[('variants/noisy/build/libnoise.a', '$n1'), ('variants/quiet/build/libquiet.a', '$q'), ('variants/debug/build/libquiet.a', '$d1')]" ]
[ "$(json $R '[(a["label"], a["identical"], a["reproducible"]) for a in d["predicate"]["comparison"]["artifacts"]]')" = \
  "[('noisy', False, True), ('quiet', True, True), ('debug', False, False)]" ]
[ "$(json $R 'd["predicate"]["comparison"]["artifacts"][0]["difference"]["members"]')" = \
  "{'differ': ['noise.o'], 'missing': [], 'extra': []}" ]
[ "$(json $R '[d["predicate"]["original"]["jobs"], d["predicate"]["rebuild"]["jobs"]]')" = "[2, 4]" ]
[ "$(json $R '[d["predicate"]["comparison"]["artifacts"][0][k] for k in ("diffoscope", "diffoscope_sha256")]')" = \
  "['diffoscope/noisy.libnoise.a.txt', '$(sha_of o/diffoscope/noisy.libnoise.a.txt)']" ]
expect_exit 0 "$AB" verify o

# "reproducible": false, in every manifest
B=o/provenance/binary-provenance.json C=o/provenance/build-commands.json I=o/provenance/provenance.intoto.json
[ "$(json $B '[(v["label"], v["reproducible"]) for v in d["variants"]]')" = "[('noisy', True), ('quiet', True), ('debug', False)]" ]
[ "$(json $C '[v["reproducible"]["enabled"] for v in d["variants"]]')" = "[True, True, False]" ]
[ "$(json $C 'd["variants"][2]["reproducible"]["reason"]')" = 'the recipe sets "reproducible": false' ]
[ "$(json $C 'd["variants"][2]["reproducible"].get("compiler_flags")')" = None ]
[ "$(json $C 'd["variants"][1]["reproducible"]["compiler_flags"]')" = \
  "['-ffile-prefix-map=OUTDIR=/allocbuild', '-ffile-prefix-map=OUTDIR/variants/quiet/src=/allocbuild/src', '-ffile-prefix-map=OUTDIR/variants/quiet/build=/allocbuild/build']" ]
[ "$(json $I '[(k, v["enabled"]) for k, v in d["predicate"]["buildDefinition"]["internalParameters"]["reproducible"].items()]')" = \
  "[('noisy', True), ('quiet', True), ('debug', False)]" ]
[ "$(json $C '"PATH" in d["variants"][2]["steps"][1]["env_set"]')" = False ]
[ "$(json $C 'd["variants"][1]["steps"][1]["env_set"]["PATH"].split(":")[0]')" = "OUTDIR/ccwrap" ]
expect_exit 0 "$AB" pr o
expect_grep '| `debug` | normal build **⚠ not reproducible** **⚠ not sandboxed** |' o/pr.md
expect_grep '| `quiet` | normal build **⚠ not sandboxed** |' o/pr.md
expect_grep "**⚠ No variant is built in allocbuild's build sandbox** (\`--no-sandbox\`): each is compiled at its real paths with \`-ffile-prefix-map\`" o/pr.md
expect_grep ', except those marked **⚠ not reproducible** (`"reproducible": false`).' o/pr.md
expect_grep '- `build --check`, built again in a second directory (-j 4): **1/3 artifacts identical; 1 of a variant built with "reproducible": false differs**' o/pr.md
expect_grep "  - differs: \`variants/noisy/build/libnoise.a\`: members differ: noise.o (sections .rodata); diffoscope's report: \`diffoscope/noisy.libnoise.a.txt\` sha256 \`$(sha_of o/diffoscope/noisy.libnoise.a.txt | cut -c1-12)\`" o/pr.md

# a no-op build keeps the record; one that changes an artifact it names drops it
expect_exit 0 "$AB" build --no-sandbox --mirror-dir mirror -o o r.json
expect_grep "  provenance/reproducibility.intoto.json" o/SHA256SUMS
expect_exit 0 "$AB" verify o

# rebuild of the OUTDIR: the same findings; records in both OUTDIRs; the fake
# diffoscope's report in the rebuild's diffoscope/, its digest in the record
mkdir bin
cat >bin/diffoscope <<'SH'
#!/bin/sh
[ "$1 $2 $3" = "--max-text-report-size 1048576 --text" ] || exit 2
printf 'diffoscope %s %s\n' "$5" "$6" >"$4"
exit 1
SH
chmod +x bin/diffoscope
PATH=$PWD/bin:$PATH expect_exit 1 "$AB" rebuild --diffoscope --mirror-dir mirror -o rb o
RB=$PWD/rb
n3=$(sha_of rb/variants/noisy/build/libnoise.a)
d3=$(sha_of rb/variants/debug/build/libquiet.a)
head -n 5 out >got
cat >want <<EOT
rebuild of o in $RB
differs    noisy  variants/noisy/build/libnoise.a  ${n1:0:12} -> ${n3:0:12}: members differ: noise.o (sections .rodata)
           first differing compile (1 of the variant's differ): noise.c -> noise.o in /allocbuild/build
           command: cc -g -c noise.c -o noise.o
identical  quiet  variants/quiet/build/libquiet.a  ${q:0:12}
EOT
expect_file got <want
expect_grep "1/3 artifacts identical; 1 of a variant built with \"reproducible\": false differs" out
expect_grep "diffoscope: variants/noisy/build/libnoise.a of noisy: $RB/diffoscope/noisy.libnoise.a.txt" out
expect_grep "diffoscope: variants/debug/build/libquiet.a of debug: $RB/diffoscope/debug.libquiet.a.txt" out
echo "diffoscope $O/variants/noisy/build/libnoise.a $RB/variants/noisy/build/libnoise.a" |
	expect_file rb/diffoscope/noisy.libnoise.a.txt
[ "$(json rb/provenance/rebuild.intoto.json '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = \
  "[('variants/noisy/build/libnoise.a', '$n3'), ('variants/quiet/build/libquiet.a', '$q'), ('variants/debug/build/libquiet.a', '$d3')]" ]
[ "$(json rb/provenance/rebuild.intoto.json '[d["predicate"]["comparison"]["artifacts"][0][k] for k in ("diffoscope", "diffoscope_sha256")]')" = \
  "['diffoscope/noisy.libnoise.a.txt', '$(sha_of rb/diffoscope/noisy.libnoise.a.txt)']" ]
[ "$(json o/provenance/rebuild.intoto.json '[s["digest"]["sha256"] for s in d["subject"]]')" = "['$n1', '$q', '$d1']" ]
expect_exit 0 "$AB" verify rb
expect_exit 0 "$AB" verify o
# a record counts only as SHA256SUMS lists it: one edited, or one put there, fails verify
cp -a o f1
sed -i 's/artifacts identical/artifacts IDENTICAL/' f1/provenance/rebuild.intoto.json
expect_exit 1 "$AB" verify f1
expect_grep "provenance/rebuild.intoto.json: expected $(grep '  provenance/rebuild.intoto.json$' o/SHA256SUMS | cut -c1-64), actual $(sha_of f1/provenance/rebuild.intoto.json)" out
cp -a rb f2
cp o/provenance/reproducibility.intoto.json f2/provenance/
expect_exit 1 "$AB" verify f2
{ echo "provenance/reproducibility.intoto.json: not listed in SHA256SUMS: not a file this build recorded"; echo "FAIL: OUTDIR f2: a check failed (above); signatures not checked (--key PUB.pem)"; } | expect_file out
rm -rf f1 f2
# without diffoscope: said, not an error
mkdir nodiff
for f in /usr/bin/*; do [ "${f##*/}" = diffoscope ] || ln -s "$f" nodiff/; done
PATH=$PWD/nodiff expect_exit 1 "$AB" rebuild --diffoscope --mirror-dir mirror -o rb2 o
expect_grep "allocbuild: diffoscope is not installed: no report" err
[ ! -e rb2/diffoscope ] || fail "a report without diffoscope"
# without --diffoscope: the first artifact that differs only
PATH=$PWD/bin:$PATH expect_exit 1 "$AB" rebuild --mirror-dir mirror -o rb3 o
[ "$(ls rb3/diffoscope)" = noisy.libnoise.a.txt ] || fail "rebuild's reports without --diffoscope: $(ls rb3/diffoscope)"
rm -rf rb3

# sign covers every statement of the OUTDIR, the records' too
openssl genpkey -algorithm ed25519 -out k.pem 2>/dev/null
openssl pkey -in k.pem -pubout -out k.pub.pem
expect_exit 0 "$AB" sign o --key k.pem
expect_grep "signed 4 statements" out
expect_exit 0 "$AB" verify -v --key k.pub.pem o
expect_grep "provenance/reproducibility.intoto.json" out
expect_grep "provenance/rebuild.intoto.json" out

# the artifacts change: the records that vouched for them go
expect_exit 0 "$AB" build --force --mirror-dir mirror -o o r.json
[ ! -e o/provenance/reproducibility.intoto.json ] || fail "a stale reproducibility record was kept"
[ ! -e o/provenance/rebuild.intoto.json ] || fail "a stale rebuild record was kept"
expect_no_grep "intoto.json" <(grep -v provenance/provenance.intoto.json o/SHA256SUMS)
expect_exit 0 "$AB" verify o

# bad input: exit 2, nothing built
expect_exit 2 "$AB" rebuild -o rb3 nosuch
expect_exit 2 "$AB" rebuild -o rb3 r.json
[ ! -e rb3 ] || fail "a bad input was rebuilt"
expect_exit 2 "$AB" rebuild --mirror-dir mirror -o rb o
expect_grep "exists and is not empty" err
expect_exit 2 "$AB" rebuild
expect_grep "rebuild: missing OUTDIR or bundle" err
