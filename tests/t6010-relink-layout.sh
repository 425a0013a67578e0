#!/usr/bin/env bash
# layout controls (docs/relink.md, "Layout controls"): a relink with a
# layout seed links the same inputs with the objects and each build-tree
# archive's members in a seeded order. Standalone on a small program of
# five objects and a three-member archive: each seed gives other bytes,
# the same symbols and the same output; the same seed the same bytes; the
# permuted archive is what GNU ar writes for that order; the record names
# the seed and every order. Then the goal on the default recipe's benchmark
# program: five layout relinks of frag-stock53 built beside the default
# build, five distinct binaries with frag-stock53's symbols whose probes
# all find the same allocator and settings.
. "$TOP/tests/lib.sh"

# ---- standalone
mkdir -p b/CMakeFiles/p.dir
(
	cd b
	for i in 1 2 3 4; do printf 'int f%d(int x) { return x * %d + %d; }\n' $i $i $i >f$i.c; done
	for m in alpha beta a_very_long_member_name; do printf 'int %s_fn(int x) { return x + %d; }\n' $m ${#m} >$m.c; done
	cat >main.c <<'C'
#include <stdio.h>
int f1(int), f2(int), f3(int), f4(int), alpha_fn(int), beta_fn(int), a_very_long_member_name_fn(int);
int main(void) { printf("%d\n", f1(1) + f2(2) + f3(3) + f4(4) + alpha_fn(1) + beta_fn(2) + a_very_long_member_name_fn(3)); return 0; }
C
	for f in *.c; do gcc -O2 -c "$f" -o "${f%.c}.o"; done
	ar rcD libm3.a alpha.o beta.o a_very_long_member_name.o
	echo "/usr/bin/cc -O2 main.o f1.o f2.o f3.o f4.o -o prog libm3.a" >CMakeFiles/p.dir/link.txt
	/usr/bin/cc -O2 main.o f1.o f2.o f3.o f4.o -o prog libm3.a
) || fail "the small program"
syms() { nm "$1" | awk '{ print $NF }' | LC_ALL=C sort; }
L=(--link-txt b/CMakeFiles/p.dir/link.txt --build-dir b)
for s in 1 2 3; do
	expect_exit 0 "$AB" relink "${L[@]}" --layout-seed $s --output l$s/prog
	check "seed $s: the program's output" test "$(l$s/prog)" = 78
	check "seed $s: the normal program's symbols" diff <(syms b/prog) <(syms l$s/prog)
	sha256sum <l$s/prog >>digests
done
check 'three seeds, three binaries' test "$(sort -u digests | wc -l)" = 3
check 'none is the normal link' not grep -qx "$(sha256sum <b/prog)" digests
expect_exit 0 "$AB" relink "${L[@]}" --layout-seed 2 --output again/prog
check 'the same seed, the same bytes' cmp l2/prog again/prog
R=l1/relink-provenance.json
check 'the verdict' test "$(json $R 'd["verdict"]')" = \
	"only these inputs differ: libm3.a -> $PWD/l1/prog.archives/1-libm3.a"
check 'the layout recorded' test "$(json $R '(d["layout"]["seed"], sorted(d["layout"]["objects"]), len(d["layout"]["archives"]))')" = \
	"(1, ['f1.o', 'f2.o', 'f3.o', 'f4.o', 'main.o'], 1)"
check 'the objects in the recorded order' test "$(json $R '" ".join(d["argv_after"][2:7])')" = "$(json $R '" ".join(d["layout"]["objects"])')"
check 'why each argument moved' test "$(json $R 'sorted(set(x["why"] for x in d["argv_diff"]))')" = \
	"[\"layout: the archive's members in another order\", \"layout: the objects' order\", 'output']"
members=$(json $R '" ".join(d["layout"]["archives"][0]["members"])')
check "the archive's members in the recorded order" test "$(ar t l1/prog.archives/1-libm3.a | tr '\n' ' ')" = "$members "
(cd b && ar rcD ../gnu.a $members) || fail "ar"
check 'the permuted archive is what GNU ar writes' cmp gnu.a l1/prog.archives/1-libm3.a
check 'the original archive recorded' test "$(json $R 'd["layout"]["archives"][0]["sha256"]')" = "$(sha256sum <b/libm3.a | cut -d' ' -f1)"
# nothing to permute: one object, no archive of a build tree
echo "/usr/bin/cc -O2 main.o -o one -lm" >b/one.txt
expect_exit 2 "$AB" relink --link-txt b/one.txt --build-dir b --layout-seed 1 --output x/one
expect_grep "b/one.txt:1: no layout to permute: the link command has 1 object and no archive of a build tree" err
check 'nothing written' test ! -e x/one
expect_exit 2 "$AB" relink "${L[@]}" --layout-seed -1 --output x/prog
expect_grep "relink: --layout-seed wants a whole number from 0, not '-1'" err

# ---- the default recipe's frag, five layouts of frag-stock53
cp -r "$TOP/recipes/frag" frag
python3 - "$TOP/recipes/jemalloc-5.3.0-policy.json" >r.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in range(1, 6):
    r["variants"].append({"label": "frag-stock53-layout%d" % s, "relink": {
        "from": "frag-stock53", "link_txt": "CMakeFiles/frag.dir/link.txt",
        "output": "frag-layout%d" % s, "layout": {"seed": s}}})
json.dump(r, sys.stdout, indent=1)
PY
default_build bo
expect_exit 0 "$AB" build -j 2 -o bo r.json
for l in stock53 special53; do
	check "$l is up to date" grep -q "$l: make lib/libjemalloc_pic.a: up to date" err
done
check 'frag-stock53 is up to date' grep -q "frag-stock53: cmake --build frag: up to date" err
V=bo/variants/frag-stock53/build
for s in 1 2 3 4 5; do
	check "layout $s: frag's symbols" diff <(syms $V/frag) <(syms $V/frag-layout$s)
	sha256sum <$V/frag-layout$s >>fdigests
done
sha256sum <$V/frag >>fdigests
check 'five layouts, five binaries, none the normal one' test "$(sort -u fdigests | wc -l)" = 6
P=bo/provenance/allocator-probes.json
check 'every layout probed' test "$(json $P '[v["label"] for v in d["variants"] if v["label"].startswith("frag-stock53-layout") and v["probe"]["ok"]]')" = \
	"['frag-stock53-layout1', 'frag-stock53-layout2', 'frag-stock53-layout3', 'frag-stock53-layout4', 'frag-stock53-layout5']"
check 'every layout probed the same allocator and settings as frag-stock53' test \
	"$(json $P 'sorted(set(json.dumps([v["probe"]["version"], v["probe"]["effective"], v["probe"]["quantum"], v["probe"]["ok"]]) for v in d["variants"] if v["label"].startswith("frag-stock53")))' | wc -l)" = 1
# relink-provenance.json's variants: keyed by label (an array of {label} in later formats)
check 'the seed recorded per variant' test "$(json bo/provenance/relink-provenance.json \
	'[v["layout"]["seed"] for l, v in sorted((d["variants"].items() if isinstance(d["variants"], dict) else [(x["label"], x) for x in d["variants"]])) if "layout" in v]')" = "[1, 2, 3, 4, 5]"
