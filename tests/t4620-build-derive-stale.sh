#!/usr/bin/env bash
# build --derive with a build system whose incremental rebuild is wrong
# (docs/build.md, "Derived build trees", "Not by default"): the
# campaign project's Makefile compiles obj/alloc.o from alloc/aN.c, whose
# time (the tarball's, 1970) is older than the object the lead left, so a
# derived variant keeps the lead's allocator. build --check does not hide
# it: the derived variant's artifacts differ from its clean build, and the
# check names the first differing compile (the lead's, inherited into the
# derived variant's compile log) and exits 1.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_campaignproj_recipe r.json
expect_exit 1 "$AB" build --derive --check -j 2 --mirror-dir "$PWD/mirror" -o o r.json v1 v2
expect_grep "derived    v2 from v1's trees: built clean here, 0/2 artifacts identical" out
grep -A1 '^differs    v2  variants/v2/build/lib/liballoc.a' out | tail -1 >got
echo "           first differing compile (1 of the variant's differ): /allocbuild/src/alloc/a1.c -> obj/alloc.o in /allocbuild/build" >want
expect_file got <want
[ "$(json o/provenance/reproducibility.intoto.json "d['predicate']['how']['derived']")" = \
  "[{'variant': 'v2', 'from': 'v1', 'checked': False}]" ] || fail "reproducibility record"
# the derived v2 runs v1's allocator: the stale object
expect_exit 0 o/variants/v2/build/bin/prog
echo "alloc1 630" | expect_file out
# the inherited line is what names it: v1's compile, in v2's log
[ "$(awk -F'\t' '$3 == "obj/alloc.o" {print $6}' o/variants/v2/logs/compiles.tsv)" = inherited ] || fail "v2's log"
