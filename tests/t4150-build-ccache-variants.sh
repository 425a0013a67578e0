#!/usr/bin/env bash
# Variants of one program through ccache (docs/build.md, "Variants of one
# program"): three variants of a small program that differ only in the
# allocator archive they compile and link. With --ccache and a cold cache
# the first variant's build runs before the others' (the plan says so),
# the second and third take every object they share with it from the
# cache (exact counts: 22 of their 23 compiles, all from the first
# variant), their artifacts equal a build without ccache and each variant
# built alone, and the compile logs say what ccache did per compile. A
# change to a header only the third variant's allocator includes makes
# that compile alone miss in the next build.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_campaignproj_recipe r.json
M=(--mirror-dir "$PWD/mirror")
arts() { grep -E '  variants/[^/]+/build/' "$1/SHA256SUMS"; }
counts() {
	json "$1/provenance/build-commands.json" \
		'[(v["label"], v["ccache"]["cacheable"], v["ccache"]["local_hits"], v["ccache"]["from_earlier_variants"], v["ccache"]["misses"]) for v in d["variants"]]'
}

# ---- the plan: with ccache, v2's and v3's builds come after v1's
expect_exit 0 "$AB" plan --ccache -j 2 -o o r.json
[ "$(grep -c "      after: v1's build (the objects they share compiled once, then taken from ccache)" out)" = 2 ] ||
	fail "plan: $(grep -n 'after:' out)"
expect_exit 0 "$AB" plan -j 2 -o o r.json
expect_no_grep "after:" out

# ---- cold cache: v1 compiles everything, v2 and v3 only their allocator
expect_exit 0 "$AB" build --ccache-dir "$PWD/cc" -j 2 "${M[@]}" -o o r.json
[ "$(counts o)" = "[('v1', 23, 0, 0, 23), ('v2', 23, 22, 22, 1), ('v3', 23, 22, 22, 1)]" ] || fail "counts: $(counts o)"
cat >want <<EOT
ccache v1: 23 compiles: 0 local hits (0 from earlier variants of this build), 0 remote hits, 23 misses (0% hits)
ccache v2: 23 compiles: 22 local hits (22 from earlier variants of this build), 0 remote hits, 1 miss (95% hits)
ccache v3: 23 compiles: 22 local hits (22 from earlier variants of this build), 0 remote hits, 1 miss (95% hits)
EOT
grep '^ccache ' out | expect_file want
# v2 and v3 compiled after v1's make had ended: their make starts (a line ending in
# "...") come after v1's make ended (a line ending in its time)
v1_end=$(grep -n -E '^\[4/11\] v1: make .*\([0-9]+:[0-9]+\)$' err | cut -d: -f1)
v2_start=$(grep -n -E '^\[7/11\] v2: make .*\.\.\.$' err | cut -d: -f1)
v3_start=$(grep -n -E '^\[10/11\] v3: make .*\.\.\.$' err | cut -d: -f1)
[ -n "$v1_end" ] && [ -n "$v2_start" ] && [ -n "$v3_start" ] && [ "$v1_end" -lt "$v2_start" ] &&
	[ "$v1_end" -lt "$v3_start" ] || fail "order: $(grep make err)"
# the compile log: what ccache did for each compile; the allocator the one compile v2 missed
[ "$(cut -f3,6 o/variants/v2/logs/compiles.tsv | sort | uniq -c | awk '$3 == "miss" || $3 == "hit" {print $2, $3}' | grep miss)" = "obj/alloc.o miss" ] ||
	fail "compile log: $(cat o/variants/v2/logs/compiles.tsv)"
[ "$(cut -f6 o/variants/v1/logs/compiles.tsv | sort | uniq -c | tr -s ' ')" = " 23 miss" ] || fail "v1's log"
# the records: state.json and the statement say the same
[ "$(json o/variants/v3/state.json 'd["ccache"]["from_earlier_variants"]')" = 22 ]
[ "$(json o/provenance/provenance.intoto.json '[p["annotations"]["from_earlier_variants"] for p in d["predicate"]["runDetails"]["byproducts"] if p["name"].endswith("ccache-stats.log")]')" = "[0, 22, 22]" ]
for l in v1 v2 v3; do
	expect_exit 0 o/variants/$l/build/bin/prog
	echo "alloc${l#v} 630" | expect_file out
done

# ---- the same bytes without ccache, and with each variant built alone
expect_exit 0 "$AB" build -j 2 "${M[@]}" -o plain r.json
arts o >a-cc
arts plain >a-plain
[ "$(wc -l <a-cc)" = 6 ] || fail "artifacts: $(cat a-cc)"
diff -u a-plain a-cc || fail "ccache changed the bytes"
for l in v1 v2 v3; do
	expect_exit 0 "$AB" build -j 2 "${M[@]}" -o alone-$l r.json $l
	arts alone-$l | diff -u - <(grep "variants/$l/" a-cc) || fail "$l built alone differs"
done

# ---- a header only v3's allocator includes changes: that compile alone misses
mv r.json r1.json
make_campaignproj_recipe r.json alloc3b
expect_exit 0 "$AB" build --ccache-dir "$PWD/cc" -j 2 "${M[@]}" -o o2 r.json
[ "$(counts o2)" = "[('v1', 23, 23, 0, 0), ('v2', 23, 23, 0, 0), ('v3', 23, 22, 0, 1)]" ] || fail "counts after the change: $(counts o2)"
[ "$(awk -F'\t' '$6 == "miss" {print $3}' o2/variants/v3/logs/compiles.tsv)" = obj/alloc.o ] || fail "v3's miss"
expect_exit 0 o2/variants/v3/build/bin/prog
echo "alloc3b 630" | expect_file out
