#!/usr/bin/env bash
# build --derive killed in the middle of a derived variant's copy
# (docs/build.md, "Derived build trees"): the copy is made beside the
# variant's trees and renamed into place only when complete, so the kill
# leaves no tree where a build looks for one and no state; the next build
# removes the half copy and builds the variant again, with the bytes of
# a clean build. The test hook ALLOCBUILD_TEST_DERIVE_PAUSE holds the copy
# after the source tree, before the build tree.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_allocproj_recipe r.json
M=(--mirror-dir "$PWD/mirror")

# the clean bytes of m2, to hold the result against
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o clean r.json m2

ALLOCBUILD_TEST_DERIVE_PAUSE=$PWD/paused setsid "$AB" build --derive -j 2 "${M[@]}" -o o r.json m1 m2 >a.out 2>a.err &
pid=$!
trap 'kill -9 -- "-$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
	[ -e paused ] && break
	sleep 0.1
done
[ -e paused ] || { cat a.err; fail "the copy did not start"; }
kill -9 -- "-$pid"
wait "$pid" 2>/dev/null || true
trap - EXIT
rm -f paused

# the half copy is beside the trees, never in their place; nothing says m2 was built
check 'the copied source tree is in the temporary' test -d o/variants/m2/.derive/src
check 'no source tree in place' not test -e o/variants/m2/src
check 'no build tree in place' not test -e o/variants/m2/build
check 'no state' not test -e o/variants/m2/state.json
check 'no manifests' not test -e o/SHA256SUMS

# the next build trusts none of it: m2 built again (derived again), the half copy gone
expect_exit 0 "$AB" build --derive -j 2 "${M[@]}" -o o r.json m1 m2
expect_no_grep "m2: up to date" err
check 'the half copy removed' not test -e o/variants/m2/.derive
[ "$(json o/variants/m2/state.json "d['derived_from']")" = m1 ] || fail "m2 not derived"
grep '  variants/m2/build/' clean/SHA256SUMS >want
grep '  variants/m2/build/' o/SHA256SUMS | expect_file want
check 'the OUTDIR verifies' "$AB" verify o

# a half copy left in a variant that is not built again is removed too (under the lock)
mkdir -m 700 o/variants/m2/.derive
mkdir o/variants/m2/.derive/src
expect_exit 0 "$AB" build --derive -j 2 "${M[@]}" -o o r.json m1 m2
expect_grep "[8/8] manifests: up to date" err
check 'the stale copy removed' not test -e o/variants/m2/.derive

# what is there under that name but is no copy of ours (a link, here into m1's trees) is named and left alone
ln -s ../m1 o/variants/m2/.derive
expect_exit 1 "$AB" build --derive --force -j 2 "${M[@]}" -o o r.json m1 m2
expect_grep "m2: '$PWD/o/variants/m2/.derive' is not a copy of another variant's trees that allocbuild made" err
check 'the link left alone' test -L o/variants/m2/.derive
check "m1's trees untouched" test -x o/variants/m1/build/bin/prog
