#!/usr/bin/env bash
# fetch of git sources: pinned commits through a mirror, file modes, tree
# ids, reuse of an unchanged pin, unpinned branches and tags (annotated
# and lightweight), a branch that moves, ALLOCBUILD_MIRRORS, refusals.
. "$TOP/tests/lib.sh"

URL=https://git.example.invalid/up.git
git init -q up.git
(
	cd up.git
	echo one >a.txt
	mkdir -p d/e
	echo deep >d/e/f.c
	printf '#!/bin/sh\necho hi\n' >run.sh
	chmod +x run.sh
	ln -s a.txt link
	ln -s d/e dirlink
	git add -A
	git commit -qm one
	git tag -a v1 -m "release 1"
	echo two >>a.txt
	git rm -q --cached run.sh
	git commit -qam two
	git tag light
	git checkout -qb stable
	echo three >b.txt
	git add b.txt
	git commit -qm three
	git checkout -q main
)
C1=$(git -C up.git rev-parse v1^{commit})
C2=$(git -C up.git rev-parse light)
C3=$(git -C up.git rev-parse stable)
T1=$(git -C up.git rev-parse "$C1^{tree}")

recipe() { # commit
	cat >r.json <<JSON
{"recipe": 1, "name": "g",
 "sources": {"up": {"git": {"url": "$URL", "commit": "$1"}}},
 "variants": [{"label": "a", "source": "up", "build": {"system": "autotools"}},
              {"label": "b", "source": "up", "build": {"system": "autotools"}}]}
JSON
}

# a pinned commit through --mirror (git insteadOf): fetched once, recorded
recipe "$C1"
expect_exit 0 "$AB" fetch --mirror "https://git.example.invalid/=$PWD/" r.json
expect_grep "fetching '$URL' from $PWD/up.git" err
M=allocbuild-out/g/provenance/sources.json
[ "$(json $M 'd["sources"]["up"]["commit"]')" = "$C1" ] || fail "commit"
[ "$(json $M 'd["sources"]["up"]["tree"]')" = "$T1" ] || fail "tree"
[ "$(json $M 'd["sources"]["up"]["url"]')" = "$URL" ] || fail "canonical url"
[ "$(json $M 'd["sources"]["up"]["origin"]')" = "$PWD/up.git" ] || fail "origin"
[ "$(json $M 'd["sources"]["up"]["origin_kind"]')" = fetch ] || fail "origin kind"
# the tree is exactly git's checkout of the commit, modes included
git clone -q --no-checkout up.git ref && git -C ref checkout -q "$C1"
rm -rf ref/.git
for v in a b; do
	diff -r --no-dereference ref "allocbuild-out/g/variants/$v/src" || fail "tree of $v differs from git's"
	[ -x "allocbuild-out/g/variants/$v/src/run.sh" ] || fail "exec bit"
	[ ! -x "allocbuild-out/g/variants/$v/src/a.txt" ] || fail "exec bit on a.txt"
	[ "$(readlink "allocbuild-out/g/variants/$v/src/link")" = a.txt ] || fail "symlink"
	[ "$(readlink "allocbuild-out/g/variants/$v/src/dirlink")" = d/e ] || fail "dir symlink"
done
# every variant has its own tree, and the dirHash is in-toto's
[ "$(stat -c %i allocbuild-out/g/variants/a/src/a.txt)" != "$(stat -c %i allocbuild-out/g/variants/b/src/a.txt)" ] ||
	fail "variants share a file"
want=$(cd ref && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1)
[ "$(json $M 'd["variants"]["a"]["dirHash"]')" = "$want" ] || fail "dirHash"
[ "$(json $M 'd["variants"]["a"]["path"]')" = variants/a/src ] || fail "path"
expect_grep "$want  allocbuild-out/g/variants/a/src" out

# again: no fetch (the commit is cached), trees verified and reused
expect_exit 0 "$AB" fetch --mirror "https://git.example.invalid/=$PWD/" r.json
expect_no_grep "fetching" err
expect_grep "is up to date" err
[ "$(json $M 'd["sources"]["up"]["origin_kind"]')" = cache ] || fail "origin kind on reuse"
[ "$(json $M 'd["sources"]["up"]["cached_from"]')" = "$PWD/up.git" ] || fail "cached_from"
[ "$(json $M 'd["variants"]["a"]["reused"]')" = True ] || fail "reused"
# offline: the remote is not needed at all any more
expect_exit 0 "$AB" fetch r.json

# a modified tree is detected and written again; so is an added file and a mode change
echo tampered >allocbuild-out/g/variants/a/src/a.txt
touch allocbuild-out/g/variants/b/src/new-file
expect_exit 0 "$AB" fetch r.json
expect_grep "'allocbuild-out/g/variants/a/src' changed ('a.txt' was modified): writing it again" err
expect_grep "'allocbuild-out/g/variants/b/src' changed ('new-file' was added): writing it again" err
diff -r --no-dereference ref allocbuild-out/g/variants/a/src || fail "not restored"
[ ! -e allocbuild-out/g/variants/b/src/new-file ] || fail "extra file kept"
chmod +x allocbuild-out/g/variants/a/src/a.txt
expect_exit 0 "$AB" fetch r.json
expect_grep "(the mode of 'a.txt' changed)" err
# same content, new timestamps: re-hashed, kept
touch allocbuild-out/g/variants/a/src/a.txt
expect_exit 0 "$AB" fetch r.json
expect_grep "'allocbuild-out/g/variants/a/src' is up to date" err

# a directory that is not a materialization is never overwritten
mkdir -p other/variants/a/src
echo mine >other/variants/a/src/keep
expect_exit 1 "$AB" fetch -o other r.json
expect_grep "allocbuild: 'other/variants/a/src' exists and was not written by allocbuild fetch (no 'other/variants/a/src.stamp'); remove it" err
[ "$(cat other/variants/a/src/keep)" = mine ] || fail "foreign tree touched"

# a commit the remote does not have
recipe 0123456789abcdef0123456789abcdef01234567
expect_exit 1 "$AB" fetch -o missing --mirror "https://git.example.invalid/=$PWD/" r.json
expect_grep "allocbuild: commit 0123456789abcdef0123456789abcdef01234567 not found in '$URL' (fetched from '$PWD/up.git')" err
[ ! -e missing ] || fail "output written for a missing commit"

# a local repository that is not there is said to be missing
expect_exit 1 "$AB" fetch -o missing --mirror "https://git.example.invalid/=$PWD/nowhere/" r.json
expect_grep "allocbuild: cannot fetch '$URL' (from '$PWD/nowhere/up.git'): no repository there: No such file or directory" err
[ ! -e missing ] || fail "output written for a missing repository"

# unpinned refs are refused without --allow-unpinned
recipe stable
expect_exit 2 "$AB" fetch -o unpinned r.json
expect_grep "r.json:2:84: sources.up.git.commit: 'stable' is not a 40-digit commit id (use --allow-unpinned to resolve it)" err
[ ! -e unpinned ] || fail "output written for an unpinned ref"
# build says it once, before anything is made
expect_exit 2 "$AB" build -o unpinned r.json
echo "r.json:2:84: sources.up.git.commit: 'stable' is not a 40-digit commit id (use --allow-unpinned to resolve it)" |
	expect_file err
[ ! -e unpinned ] || fail "build wrote output for an unpinned ref"

# a branch, resolved through ALLOCBUILD_MIRRORS; then it moves
export ALLOCBUILD_MIRRORS="https://nothing.invalid/=/nonexistent https://git.example.invalid/=$PWD/"
expect_exit 0 "$AB" fetch --allow-unpinned -o br r.json
B=br/provenance/sources.json
[ "$(json $B 'd["sources"]["up"]["commit"]')" = "$C3" ] || fail "branch resolved"
[ "$(json $B 'd["sources"]["up"]["ref"]')" = stable ] || fail "ref recorded"
[ "$(json $B 'd["sources"]["up"]["ref_kind"]')" = branch ] || fail "ref kind"
[ -e br/variants/a/src/b.txt ] || fail "branch tree"
(cd up.git && git checkout -q stable && echo four >c.txt && git add c.txt && git commit -qm four && git checkout -q main)
C4=$(git -C up.git rev-parse stable)
expect_exit 0 "$AB" fetch --allow-unpinned -o br r.json
[ "$(json $B 'd["sources"]["up"]["commit"]')" = "$C4" ] || fail "moved branch not followed"
expect_grep "the pinned inputs changed: writing 'br/variants/a/src' again" err
[ -e br/variants/a/src/c.txt ] || fail "moved branch tree"
# --mirror beats ALLOCBUILD_MIRRORS for the same prefix
expect_exit 1 "$AB" fetch --allow-unpinned -o br2 --mirror "https://git.example.invalid/=/nonexistent/" r.json
expect_grep "cannot fetch '$URL' (from '/nonexistent/up.git')" err
unset ALLOCBUILD_MIRRORS

# tags: annotated (peeled to its commit) and lightweight
for t in v1:"$C1":"annotated tag" light:"$C2":tag; do
	name=${t%%:*} rest=${t#*:}
	recipe "$name"
	expect_exit 0 "$AB" fetch --allow-unpinned -o "tag-$name" --mirror "https://git.example.invalid/=$PWD/" r.json
	[ "$(json "tag-$name/provenance/sources.json" 'd["sources"]["up"]["commit"]')" = "${rest%%:*}" ] || fail "tag $name"
	[ "$(json "tag-$name/provenance/sources.json" 'd["sources"]["up"]["ref_kind"]')" = "${rest#*:}" ] || fail "kind of $name"
done
[ ! -e tag-light/variants/a/src/run.sh ] || fail "run.sh removed in commit two"

# nothing is left in the cache's temporary directory
[ -z "$(ls cache/allocbuild/tmp)" ] || fail "temporaries left in the cache"
