#!/usr/bin/env bash
# Patches applied in order with git apply semantics (modify, add, rename,
# mode change), each recorded with its sha256 and the dirHash before and
# after; --check-patches only checks; a patch that does not apply is
# reported with the patch, the file and the hunk, and nothing is written.
# Traditional unified diffs (diff -ruN, quilt) are taken as patch -p1 does.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

dirhash() { (cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1); }

git init -q up.git
(
	cd up.git
	printf 'line 1\nline 2\nline 3\n' >a.txt
	printf 'old name\n' >old.txt
	printf 'echo tool\n' >tool.sh
	git add -A
	git commit -qm base
	git checkout -qb patched
	sed -i 's/line 2/line two/' a.txt
	git commit -qam p1
	git diff HEAD~1 HEAD >../p1.patch
	printf 'line 4\n' >>a.txt
	mkdir -p new/dir
	printf 'new file\n' >new/dir/n.c
	chmod +x tool.sh
	git add -A
	git commit -qm p2
	git diff HEAD~1 HEAD >../p2.patch
	git mv old.txt renamed.txt
	git commit -qm p3
	git diff -M HEAD~1 HEAD >../p3.patch
	git checkout -q main
)
BASE=$(git -C up.git rev-parse main)
mkdir -p recipe/patches
mv p1.patch p2.patch p3.patch recipe/patches/
grep -q '^rename from old.txt' recipe/patches/p3.patch || fail "p3 is not a rename"
grep -q '^new mode 100755' recipe/patches/p2.patch || fail "p2 has no mode change"

recipe() { # patches...
	local list= p
	for p in "$@"; do list="$list${list:+, }\"patches/$p\""; done
	cat >recipe/r.json <<JSON
{"recipe": 1, "name": "p",
 "sources": {"up": {"git": {"url": "$PWD/up.git", "commit": "$BASE"}, "patches": [$list]}},
 "variants": [{"label": "v", "source": "up", "build": {"system": "autotools"}}]}
JSON
}

# the three patches, in order: the result is the 'patched' branch's tree
recipe p1.patch p2.patch p3.patch
expect_exit 0 "$AB" fetch --check-patches recipe/r.json
expect_file out <<'EOF2'
up: 3 patches apply
EOF2
[ ! -e allocbuild-out ] || fail "--check-patches wrote output"
expect_exit 0 "$AB" fetch -o o recipe/r.json
git clone -q up.git ref && git -C ref checkout -q patched && rm -rf ref/.git
diff -r ref o/variants/v/src || fail "patched tree differs from the patched branch"
[ -x o/variants/v/src/tool.sh ] || fail "mode change not applied"
S=o/provenance/sources.json
git clone -q up.git base && rm -rf base/.git
[ "$(json $S 'd["variants"]["v"]["base_dirHash"]')" = "$(dirhash base)" ] || fail "base dirHash"
[ "$(json $S 'd["variants"]["v"]["dirHash"]')" = "$(dirhash ref)" ] || fail "final dirHash"
[ "$(json $S 'd["variants"]["v"]["patches"][0]["dirHash_before"]')" = "$(dirhash base)" ] || fail "before p1"
[ "$(json $S 'd["variants"]["v"]["patches"][2]["dirHash_after"]')" = "$(dirhash ref)" ] || fail "after p3"
[ "$(json $S 'd["variants"]["v"]["patches"][0]["dirHash_after"]')" = "$(json $S 'd["variants"]["v"]["patches"][1]["dirHash_before"]')" ] ||
	fail "chained dirHashes"
for i in 1 2 3; do
	[ "$(json $S "d['variants']['v']['patches'][$((i - 1))]['sha256']")" = "$(sha recipe/patches/p$i.patch)" ] ||
		fail "sha256 of p$i"
	[ "$(json $S "d['variants']['v']['patches'][$((i - 1))]['path']")" = "patches/p$i.patch" ] || fail "path of p$i"
done
# a changed patch file changes the inputs: the tree is written again
printf 'diff --git a/extra b/extra\nnew file mode 100644\n--- /dev/null\n+++ b/extra\n@@ -0,0 +1 @@\n+x\n' >>recipe/patches/p3.patch
expect_exit 0 "$AB" fetch -o o recipe/r.json
expect_grep "the pinned inputs changed: writing 'o/variants/v/src' again" err

# out of order: p2 does not apply before p1 (context), reported with the hunk; nothing written
recipe p2.patch p1.patch
expect_exit 1 "$AB" fetch -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/p2.patch' does not apply to 'a.txt': hunk #1 @@ -1,3 +1,4 @@: hunk at line 1 did not apply" err
expect_grep "allocbuild: source 'up': patch 1 of 2 failed" err
[ ! -e bad ] || fail "output written for a failing patch"
expect_exit 1 "$AB" fetch --check-patches -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/p2.patch' does not apply to 'a.txt': hunk #1 @@ -1,3 +1,4 @@: hunk at line 1 did not apply" err
[ ! -s out ] && [ ! -e bad ] || fail "--check-patches wrote something"

# the second patch fails: the first is not left applied anywhere
recipe p1.patch p1.patch
expect_exit 1 "$AB" fetch -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/p1.patch' does not apply to 'a.txt': hunk #1 @@ -1,3 +1,3 @@" err
expect_grep "allocbuild: source 'up': patch 2 of 2 failed" err
[ ! -e bad ] || fail "output written for a failing patch"

# a patch for a file the tree does not have
cat >recipe/patches/missing.patch <<'EOF2'
diff --git a/nope.c b/nope.c
--- a/nope.c
+++ b/nope.c
@@ -1 +1 @@
-a
+b
EOF2
recipe missing.patch
expect_exit 1 "$AB" fetch -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/missing.patch' does not apply to 'nope.c'" err
[ ! -e bad ] || fail "output written for a failing patch"

# a patch that is not one, and one that climbs out of the tree
echo "just text" >recipe/patches/text.patch
recipe text.patch
expect_exit 1 "$AB" fetch -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/text.patch' is not a valid patch: no patch found" err
cat >recipe/patches/escape.patch <<'EOF2'
diff --git a/../../escape.txt b/../../escape.txt
new file mode 100644
--- /dev/null
+++ b/../../escape.txt
@@ -0,0 +1 @@
+x
EOF2
recipe escape.patch
expect_exit 1 "$AB" fetch -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/escape.patch': refusing path '../../escape.txt'" err
[ ! -e bad ] && [ ! -e ../escape.txt ] && [ ! -e escape.txt ] || fail "escape"

# traditional unified diffs (diff -u, quilt: no "diff --git" lines), taken as patch -p1
# takes them: a change with a removed line that starts with "-- ", a new file,
# a deleted file, a last line without a newline, an Index: line and timestamps
mkdir -p trad/orig trad/new
git -C up.git archive main | tar -x -C trad/orig
cp -a trad/orig/. trad/new/
printf 'line 1\n-- dashes\nline 3\n' >trad/orig/a.txt
printf 'line 1\nline 3\nlast' >trad/new/a.txt
printf 'brand new\n' >trad/new/fresh.c
rm trad/new/old.txt
(cd trad && diff -ruN orig new >../recipe/patches/trad.patch) && fail "diff found no difference"
grep -q '^--- dashes$' recipe/patches/trad.patch || fail "the patch has no removed line '-- dashes'"
grep -q '^\\ No newline at end of file$' recipe/patches/trad.patch || fail "the patch has no last line without newline"
# the base a.txt must hold the dashes line for the patch to apply: a first patch puts it there
printf -- '--- orig/a.txt\n+++ orig/a.txt\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+-- dashes\n line 3\n' >recipe/patches/dash.patch
sed -i '1i Index: quilt-style/a.txt\n===================================================================' recipe/patches/trad.patch
recipe dash.patch trad.patch
expect_exit 0 "$AB" fetch --check-patches recipe/r.json
echo "up: 2 patches apply" | expect_file out
recipe dash.patch
expect_exit 0 "$AB" fetch --check-patches recipe/r.json
echo "up: 1 patch applies" | expect_file out
recipe dash.patch trad.patch
expect_exit 0 "$AB" fetch -o trad-out recipe/r.json
diff -r trad/new trad-out/variants/v/src || fail "the traditional diffs did not give the new tree"
# a name with no directory to take off is refused, naming the line
printf -- '--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-line 1\n+line one\n' >recipe/patches/p0.patch
recipe p0.patch
expect_exit 1 "$AB" fetch -o bad recipe/r.json
expect_grep "allocbuild: patch 'patches/p0.patch': line 1: 'a.txt' has no directory to take off (patch -p1)" err
[ ! -e bad ] || fail "output written for a patch without directories"
