#!/usr/bin/env bash
# A dir source stays inside the recipe's directory: its path is opened one
# component at a time from there (lib/dirwalk's containment check), so a
# path that is a symlink to a directory elsewhere, or that goes through
# one, is refused, exit 2, before anything of it is hashed or copied; a
# symlink that stays inside is followed.
. "$TOP/tests/lib.sh"

mkdir -p r/real/sub elsewhere/sub
for d in r/real/sub elsewhere/sub; do
	printf 'int main(void) { return 0; }\n' >$d/main.c
done
dh=$("$AB" hash elsewhere/sub | cut -d' ' -f1)
[ "$dh" = "$("$AB" hash r/real/sub | cut -d' ' -f1)" ] || fail "the two trees differ"
ln -s ../elsewhere/sub r/outside
ln -s "$PWD/elsewhere" r/abs
ln -s real r/inside
# recipe PATH: one dir source "d" at PATH, pinned to the tree's dirHash
recipe() {
	cat >r/r.json <<JSON
{"recipe": 1, "name": "d",
 "sources": {"d": {"dir": {"path": "$1", "dirHash": "$dh"}}},
 "variants": [{"label": "v", "source": "d", "build": {"system": "cmake"}}]}
JSON
}

recipe outside
expect_exit 2 "$AB" fetch -o bo r/r.json
echo "allocbuild: source 'd': directory 'outside' leaves the directory through symlink 'outside': a dir source stays inside the recipe's directory '$PWD/r'" |
	expect_file err
recipe abs/sub
expect_exit 2 "$AB" fetch -o bo r/r.json
expect_grep "allocbuild: source 'd': directory 'abs/sub' leaves the directory through symlink 'abs': a dir source stays inside the recipe's directory '$PWD/r'" err
# build refuses the same way, before anything is built
expect_exit 2 "$AB" build -o bo r/r.json
expect_grep "directory 'abs/sub' leaves the directory through symlink 'abs'" err
[ ! -e bo/variants/v/src ] || fail "a tree was written from a directory outside the recipe's"

# inside: followed, fetched
recipe inside/sub
expect_exit 0 "$AB" fetch -o bo r/r.json
expect_grep "source 'd': dirHash $dh of 'inside/sub' (1 files)" err
