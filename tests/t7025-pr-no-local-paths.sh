#!/usr/bin/env bash
# pr.md and pr-details.md hold no path of the author's machine: a recipe,
# its mirror and OUTDIR under a distinctive directory, built with and
# without the sandbox (cmake variants, a relink, a run, a build --check),
# and no line of either names that directory. The sources' origins say
# "on the build machine", the reproduce block names only the bundle, and
# a run's command shows OUTDIR for the build's directory.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

D=$PWD/Author-Home-Qz7
mkdir -p $D/work && cd $D/work
make_fakecmake_relink_recipe r.json
expect_exit 0 "$AB" build --check --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" run bo a --name p -- {bin}
expect_exit 0 "$AB" pr -o pr bo
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
allocbuild rebuild provenance-cm.tar.gz
\`\`\`
X
grep -B1 -A2 '^allocbuild verify provenance-cm' pr/pr.md | expect_file want
expect_grep 'Command (argv, no shell) of the first run: `OUTDIR/variants/a/build/prog`' pr/pr.md
