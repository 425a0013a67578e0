#!/usr/bin/env bash
# plan --matrix: the default recipe, the flb-like fixture's recipe and the
# Fluent Bit comparison split into 2 and 3 shards. Every variant is in
# some shard, each shard is a dependency closure (a relink with its from
# and replacement variants, a runtime_of with its base, a {variant:...}
# user with what it uses), the cost is the documented estimate, and the
# output is the same on every run. build --shard refuses a bad K/N
# before reading anything.
. "$TOP/tests/lib.sh"

# the flb-like fixture's recipe as t5510 builds it (planned, not built: no fetch)
"$TOP/tests/fixtures/flb-like-recipe.sh" https://git.example.invalid/flb-like.git \
	0123456789abcdef0123456789abcdef01234567 2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa \
	--with-lg-quantum=3 >flb.json

# check_matrix RECIPE N: every variant in a shard; every shard closed under the dependencies; costs as documented
check_matrix() {
	python3 - "$1" "$2" matrix.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2]); m = json.load(open(sys.argv[3]))
assert m["shards"] == n and len(m["matrix"]) == n, m
assert [e["shard"] for e in m["matrix"]] == ["%d/%d" % (k, n) for k in range(1, n + 1)]
assert m["cost"] == {"build": 20, "relink": 2, "runtime_of": 1}, m["cost"]
by = {v["label"]: v for v in r["variants"]}
def deps(v):
    d = []
    if "runtime_of" in v: d.append(v["runtime_of"])
    if "relink" in v:
        d.append(v["relink"]["from"]); d += [x["with"]["variant"] for x in v["relink"]["replace"]]
    s = json.dumps(v.get("build", {}))
    import re
    d += re.findall(r"\{variant:([^:}]+):", s)
    return d
def cost(v):
    return 20 if "source" in v else 2 if "relink" in v else 1
seen = set()
for e in m["matrix"]:
    labels = e["variants"]
    assert len(set(labels)) == len(labels), labels
    for l in labels:
        for d in deps(by[l]):
            assert d in labels, "%s: %s without %s" % (e["shard"], l, d)
            assert labels.index(d) < labels.index(l), "%s: %s before %s" % (e["shard"], l, d)
    assert e["cost"] == sum(cost(by[l]) for l in labels), e
    seen |= set(labels)
assert seen == set(by), "missing: %s" % (set(by) - seen)
PY
}

for recipe in "$TOP/recipes/jemalloc-5.3.0-policy.json" flb.json "$TOP/recipes/fluent-bit-allocator-compare.json"; do
	for n in 2 3; do
		expect_exit 0 "$AB" plan --matrix -n $n "$recipe"
		cp out matrix.json
		check_matrix "$recipe" $n || fail "$recipe as $n shards: $(cat matrix.json)"
		# deterministic: the same bytes again
		expect_exit 0 "$AB" plan --matrix -n $n "$recipe"
		cmp -s out matrix.json || fail "$recipe as $n shards: another partition on a second run"
	done
done

# the default recipe: each runtime_of goes with its base, each program with the archive it links
expect_exit 0 "$AB" plan --matrix -n 2 "$TOP/recipes/jemalloc-5.3.0-policy.json"
[ "$(json out '[(e["shard"], e["cost"], e["variants"]) for e in d["matrix"]]')" = \
  "[('1/2', 43, ['stock53', 'fit-only', 'frag-stock53', 'frag-fit-only', 'frag-aa']), ('2/2', 40, ['special53', 'frag-special53'])]" ] ||
	fail "default as 2: $(cat out)"
# the relink needs both builds: the shard that has it builds both, the other one builds special again
expect_exit 0 "$AB" plan --matrix -n 2 flb.json
[ "$(json out '[(e["shard"], e["variants"]) for e in d["matrix"]]')" = \
  "[('1/2', ['stock', 'special', 'stock-relink-special']), ('2/2', ['special'])]" ] || fail "flb-like as 2: $(cat out)"
# more shards than the dependencies let split: an empty one, which builds nothing
expect_exit 0 "$AB" plan --matrix -n 3 flb.json
[ "$(json out '[e["variants"] for e in d["matrix"]][2]')" = "[]" ] || fail "flb-like as 3: $(cat out)"
expect_exit 0 "$AB" build --shard 3/3 -o empty flb.json
expect_grep "shard 3/3 of recipe 'flb-like' is empty: nothing to build" err
[ ! -e empty ] || fail "an empty shard wrote an OUTDIR"
# -n defaults to 2
expect_exit 0 "$AB" plan --matrix flb.json
[ "$(json out 'd["shards"]')" = 2 ]

# usage errors: exit 2, nothing written
for bad in 0/2 3/2 2 1/0 a/b 1/2x /2 1/1025; do
	expect_exit 2 "$AB" build --shard "$bad" -o bo flb.json
	expect_grep "invalid shard '$bad' (K/N with 1 <= K <= N <= 1024)" err
done
expect_exit 2 "$AB" build --shard 1/2 -o bo flb.json stock
expect_grep "--shard takes no labels" err
[ ! -e bo ] || fail "a refused build wrote an OUTDIR"
expect_exit 2 "$AB" plan --matrix -n 0 flb.json
expect_grep "invalid number of shards '0'" err
expect_exit 2 "$AB" plan -n 2 flb.json
expect_grep "-n is an option of --matrix" err
expect_exit 2 "$AB" plan --matrix flb.json stock
expect_grep "--matrix takes no labels" err
