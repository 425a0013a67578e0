#!/usr/bin/env bash
# pr.md, pr-details.md and the bundle hold no path of the author's
# machine: a recipe, its mirror, OUTDIR and $HOME under a distinctive
# directory, built with and without the sandbox (cmake variants, a
# relink, a build --check), run by a driver named by its absolute path
# with arguments, --env values, a JUnit report and a --program named by
# theirs, signed, rebuilt by a rebuilder whose record is given by its
# absolute path, and pr --policy --sign --rebuilt: no line of pr.md or
# pr-details.md names that directory, and no file of the bundle that the
# runs and pr put there does (run records, logs, series, the kept
# program, the charts, the policy and its VSA). The sources' origins say
# "on the build machine", the reproduce block names only the bundle, a
# run's command shows OUTDIR for the build's directory and "." for the
# current one, the rebuilder's record is named by its file name. The
# build's own manifests and the in-toto links sign draws from them hide
# the same places (lib/places.h): no file of the bundle names the
# directory.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

D=$PWD/Author-Home-Qz7
mkdir -p $D/work $D/home && cd $D/work
export HOME=$D/home
make_fakecmake_relink_recipe r.json
make_keys
expect_exit 0 "$AB" build --check --mirror-dir mirror -o bo r.json
# a driver by its absolute path, arguments and values naming files here and in $HOME, a JUnit report
cat >drive <<'SH'
#!/bin/sh
printf '<testsuite tests="1" failures="0"></testsuite>\n' >"$REPORT"
exec "$@"
SH
chmod +x drive
echo input >input.txt
echo conf >$HOME/conf
cp bo/variants/a/build/prog prog-copy
expect_exit 0 "$AB" run bo a --name p --junit $D/work/report.xml --env REPORT=$D/work/report.xml --env CONF=$HOME/conf \
	--program $D/work/prog-copy -- $D/work/drive {bin} $D/work/input.txt
R=bo/runs/p/0001-a.intoto.json
check "argv: OUTDIR, . and ~ for the places of this machine" test "$(json $R 'd["predicate"]["argv"]')" = \
	"['./drive', 'OUTDIR/variants/a/build/prog', './input.txt']"
check "the variables set" test "$(json $R 'sorted(d["predicate"]["env_overrides"].items())')" = \
	"[('ALLOCBUILD_BIN', 'OUTDIR/variants/a/build/prog'), ('ALLOCBUILD_LABEL', 'a'), ('CONF', '~/conf'), ('REPORT', './report.xml')]"
check "the JUnit report as given, hidden" test "$(json $R 'd["predicate"]["junit"]["report"]')" = ./report.xml
check "where it ran" test "$(json $R 'd["predicate"]["cwd"]')" = OUTDIR/..
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 0 "$AB" pr -o ev bo
expect_exit 0 "$AB" rebuild --trust-unsigned --sign ec.pem --mirror-dir mirror -o rb ev/provenance-cm.tar.gz
cp rb/rebuild.intoto.jsonl $D/work/r1.jsonl
cat >policy.json <<'X'
{"policy": 1, "name": "cm", "rules": [{"variants": ["a"], "reproducible": {"record": "check", "independent": 1}}]}
X
expect_exit 0 "$AB" pr --policy $D/work/policy.json --sign ed.pem --rebuilt $D/work/r1.jsonl --rebuilt-key ec.pub.pem -o pr bo
expect_exit 0 "$AB" build --no-sandbox --mirror-dir mirror -o bo2 r.json
expect_exit 0 "$AB" pr -o pr2 bo2
for f in pr/pr.md bo/pr-details.md pr2/pr.md bo2/pr-details.md; do
	[ -e $f ] || continue
	grep -n "Qz7" $f && fail "$f names the author's directory"
done
expect_grep "| mirror-dir on the build machine |" pr/pr.md
cat >want <<X
\`\`\`sh
allocbuild verify provenance-cm.tar.gz
allocbuild rebuild --key PUB.pem provenance-cm.tar.gz
\`\`\`
X
grep -B1 -A2 '^allocbuild verify provenance-cm' pr/pr.md | expect_file want
expect_grep 'Command (argv, no shell) of the first run: `./drive OUTDIR/variants/a/build/prog ./input.txt`' pr/pr.md
expect_grep "(r1.jsonl, key \`$(keyid_of ec.pub.pem | cut -c1-12)\`)" pr/pr.md

# the whole bundle: no file names the directory; the VSA inside names the OUTDIR by its name
mkdir un
tar xzf pr/provenance-cm.tar.gz -C un
(cd un && grep -rl Qz7 . | sed 's/\.[0-9a-f]\{8\}\.link$/.KEYID8.link/' | LC_ALL=C sort) >named
check "no file of the bundle names the author's directory" test ! -s named
check "the bundle holds the run, its kept program and the policy's VSA" test -s un/provenance-cm/runs/p/0001-a.intoto.json \
	-a -n "$(ls un/provenance-cm/runs/p/programs/)" -a -s un/provenance-cm/pr-policy/vsa.intoto.jsonl
python3 -c 'import base64, json, sys; print(base64.b64decode(json.loads(open(sys.argv[1]).readline())["payload"]).decode())' \
	un/provenance-cm/pr-policy/vsa.intoto.jsonl >vsa.json
check "the bundle's VSA: the OUTDIR by its name, the policy in the bundle, the record by its file name" \
	test "$(json vsa.json '(d["predicate"]["resourceUri"], d["predicate"]["policy"]["uri"], [a["uri"] for a in d["predicate"]["inputAttestations"] if a["uri"].endswith(".jsonl")][-1])')" = \
	"('bo', 'pr-policy/policy.json', 'r1.jsonl')"
