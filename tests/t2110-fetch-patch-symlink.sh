#!/usr/bin/env bash
# issue 18, item 14: a patch is held to the rules of archive members: the
# symlinks it creates may neither point to an absolute path nor leave the
# tree (new.txt -> /etc/passwd used to apply with exit 0). Nothing is
# written when it is refused.
. "$TOP/tests/lib.sh"

git init -q up.git
(
	cd up.git
	mkdir sub
	printf 'a\n' >a.txt
	printf 'b\n' >sub/b.txt
	git add -A
	git commit -qm base
	ln -s /etc/passwd new.txt
	git add new.txt && git diff --cached >../abs.patch && git reset -q --hard
	ln -s ../../outside sub/up
	git add sub/up && git diff --cached >../up.patch && git reset -q --hard
	ln -s ../a.txt sub/ok
	git add sub/ok && git diff --cached >../inside.patch && git reset -q --hard
	# an existing file turned into a symlink that leaves the tree
	rm a.txt && ln -s ../../../etc/shadow a.txt
	git add -A && git diff --cached >../retype.patch && git reset -q --hard
)
BASE=$(git -C up.git rev-parse HEAD)
mkdir -p recipe/patches
mv abs.patch up.patch inside.patch retype.patch recipe/patches/
grep -q '^new file mode 120000' recipe/patches/abs.patch || fail "abs.patch does not create a symlink"

recipe() { # patch
	cat >recipe/r.json <<JSON
{"recipe": 1, "name": "p",
 "sources": {"up": {"git": {"url": "$PWD/up.git", "commit": "$BASE"}, "patches": ["patches/$1"]}},
 "variants": [{"label": "v", "source": "up", "build": {"system": "autotools"}}]}
JSON
}
refused() { # patch message
	recipe "$1"
	expect_exit 1 "$AB" fetch -o o recipe/r.json
	expect_grep "allocbuild: patch 'patches/$1': $2" err
	[ ! -e o ] || fail "$1: output written for a refused patch"
	expect_exit 1 "$AB" fetch --check-patches recipe/r.json
	expect_grep "allocbuild: patch 'patches/$1': $2" err
}
refused abs.patch "'new.txt': symlink to absolute path '/etc/passwd'"
refused up.patch "'sub/up': symlink points outside the tree ('../../outside')"
refused retype.patch "'a.txt': symlink points outside the tree ('../../../etc/shadow')"

# a symlink that stays inside is fine
recipe inside.patch
expect_exit 0 "$AB" fetch -o o recipe/r.json
[ "$(readlink o/variants/v/src/sub/ok)" = "../a.txt" ] || fail "the inside symlink was not created"
