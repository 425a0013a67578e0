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
check 'the seed recorded per variant' test "$(json bo/provenance/relink-provenance.json \
	'[L[l]["layout"]["seed"] for l in sorted(L) if "layout" in L[l]]')" = "[1, 2, 3, 4, 5]"

# ---- compare: the layout band of the baseline, and a difference inside it
# The layout variants are found by digest: relinks with a layout whose
# normal output is the program frag-stock53's runs ran. A synthetic
# driver figure per label (runs of the real programs, --env-pad varying
# the environment): the layouts spread 97 to 104 around the baseline's
# 100 (medians 104.4 and 97.4: band 7.2%); frag-special53 at 103 is a difference
# inside it, frag-fit-only at 120 one outside.
cat >driver <<'SH'
#!/bin/sh
"$1" >/dev/null 2>&1 || exit 1
case $2 in
frag-stock53) v=100 ;; frag-stock53-layout1) v=97 ;; frag-stock53-layout2) v=99 ;;
frag-stock53-layout3) v=101 ;; frag-stock53-layout4) v=103 ;; frag-stock53-layout5) v=104 ;;
frag-special53) v=103 ;; frag-fit-only) v=120 ;;
esac
echo "ALLOCBUILD_METRIC work=$v.$(printf %s "$ALLOCBUILD_ENV_PAD" | wc -c) s"
SH
chmod +x driver
LABELS=(frag-stock53 frag-stock53-layout1 frag-stock53-layout2 frag-stock53-layout3 frag-stock53-layout4 frag-stock53-layout5 frag-special53 frag-fit-only)
expect_exit 0 "$AB" run bo "${LABELS[@]}" --name lay --repeat 5 --rotate --env-pad 8 --sample-ms 0 -q -- ./driver {bin} {label}
check 'the pad recorded per repetition' test "$(for f in bo/runs/lay/*-frag-stock53.intoto.json; do json $f 'd["predicate"]["env_pad"]["bytes"]'; done | tr '\n' ' ')" = "0 2 4 6 8 "
check 'the pad is no variable set' test "$(json bo/runs/lay/0001-frag-stock53.intoto.json '[k for k in d["predicate"]["env_overrides"] if k.startswith("ALLOCBUILD_")]')" = "['ALLOCBUILD_LABEL', 'ALLOCBUILD_BIN']"
expect_exit 0 "$AB" compare bo --name lay --metric work --format json
check 'the layout variants found' test "$(json out 'd["sets"][0]["layout"]["variants"]')" = \
	"['frag-stock53-layout1', 'frag-stock53-layout2', 'frag-stock53-layout3', 'frag-stock53-layout4', 'frag-stock53-layout5']"
check 'the band' test "$(json out 'round(d["sets"][0]["layout"]["bands"][0]["band"], 4)')" = "$(python3 -c 'print(round(104.4 / 97.4 - 1, 4))')"
check 'frag-special53: a difference within layout noise' test \
	"$(json out '[(c["label"], c["verdict"], c["within_layout_noise"]) for c in d["sets"][0]["comparisons"] if c["label"] in ("frag-special53", "frag-fit-only")]')" = \
	"[('frag-special53', 'worse', True), ('frag-fit-only', 'worse', False)]"
check 'the layouts are the layout control' test \
	"$(json out 'sorted(set(c["layout_control"] for c in d["sets"][0]["comparisons"] if "layout" in c["label"]))')" = "[True]"
expect_exit 0 "$AB" compare bo --name lay --metric work
expect_grep "worse (within layout noise)" out
expect_grep "Layout band of frag-stock53 (5 layout variants: frag-stock53-layout1, frag-stock53-layout2, frag-stock53-layout3, frag-stock53-layout4, frag-stock53-layout5; " out
expect_grep "1 difference of another label is inside it: within layout noise." out
# pr.md's verdict says so
expect_exit 0 "$AB" pr -o pr bo
check "pr.md: frag-special53's work within layout noise" grep -qF '**worse** `work` 1.030× [1.030, 1.030] (**within layout noise**: the band is ±7.2%)' pr/pr.md
check "pr.md: the layouts are the control" grep -qF '`frag-stock53-layout5` (a layout variant of the baseline: the layout control)' pr/pr.md
# (the other metrics are real measurements: how many of their differences fall inside their bands varies)
check "pr.md: the band" grep -qE '^- ⚠ layout band of `frag-stock53` \(5 layout variants, the same objects linked in other orders\): .*`work` ±7\.2%; [0-9]+ differences? above (is|are) inside it' pr/pr.md
