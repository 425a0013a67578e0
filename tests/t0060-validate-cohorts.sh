#!/usr/bin/env bash
# The shipped recipe of the relay fleet's cohorts (issue 13, item 6):
# valid, its dir source pinned to recipes/alive as it is in this tree, and
# each program planned after the allocator it links ({variant:...}).
# Building it needs the mimalloc repository (docs: README); the tests build
# the same shape from Debian's mimalloc 2.0.9 (t4040).
. "$TOP/tests/lib.sh"

R=$TOP/recipes/relay-allocator-cohorts.json
expect_exit 0 "$AB" validate "$R"
echo "$R: recipe 'relay-allocator-cohorts': 4 sources, 15 variants (10 builds, 5 runtimes)" | expect_file out
# the pin is the tree's: a recipe that no longer builds its own program would fail here first
[ "$(json "$R" 'd["sources"]["alive"]["dir"]["dirHash"]')" = "$("$AB" hash "$TOP/recipes/alive" | cut -d' ' -f1)" ] ||
	fail "recipes/alive changed: update its dirHash in $R"
expect_exit 0 "$AB" plan -o "$PWD/o" "$R"
for pair in je530:je530-alive:lib/libjemalloc_pic.a mi217:mi217-alive:libmimalloc.a mi217-secure:mi217-secure-alive:libmimalloc-secure.a \
	mi328:mi328-alive:libmimalloc.a mi328-secure:mi328-secure-alive:libmimalloc-secure.a; do
	IFS=: read -r lib prog archive <<<"$pair"
	expect_grep "-DALIVE_ARCHIVE=/allocbuild/variants/$lib/build/$archive" out
	lib_at=$(grep -n "] $lib: build$" out | cut -d: -f1)
	prog_at=$(grep -n "] $prog: configure$" out | cut -d: -f1)
	[ -n "$lib_at" ] && [ -n "$prog_at" ] && [ "$lib_at" -lt "$prog_at" ] || fail "$prog is not planned after $lib"
done
expect_grep "fetch alive: dir alive dirHash $(json "$R" 'd["sources"]["alive"]["dir"]["dirHash"]')" out
