#!/usr/bin/env bash
# build --shard K/N and merge: a small CMake recipe (two builds, a relink
# of one with the other's archive, a runtime_of, a third build) planned as
# 2 and 3 shards, each shard built into its own OUTDIR with its own source
# cache, the shards merged. The merged OUTDIR passes verify, pr, rebuild
# and sign; its SHA256SUMS lists the files of a single build of the whole
# recipe, line for line in the same order, with the same artifact and
# recipe digests (the logs and manifests name their own OUTDIR, run ids
# and times, as any two builds' do). The statement records what was
# merged, and the manifests name the merged OUTDIR as "OUTDIR" (as
# every manifest names its own). --move takes the variants' directories out of the shards.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

make_fakecmake_shard_recipe r.json

expect_exit 0 "$AB" build -j 2 --mirror-dir mirror --cache cache-full -o full r.json

# same_sums A B: the same files in the same order; the artifacts' and recipe.json's lines identical
same_sums() {
	cut -c67- "$1/SHA256SUMS" >paths.a
	cut -c67- "$2/SHA256SUMS" >paths.b
	diff -u paths.a paths.b || fail "$2/SHA256SUMS lists other files than $1/SHA256SUMS"
	grep -E '  (variants/[^/]+/build/|recipe\.json$)' "$1/SHA256SUMS" >arts.a
	grep -E '  (variants/[^/]+/build/|recipe\.json$)' "$2/SHA256SUMS" >arts.b
	diff -u arts.a arts.b || fail "$2 has other artifact digests than $1"
	[ "$(wc -l <arts.a)" = 6 ] || fail "expected 5 artifacts and recipe.json: $(cat arts.a)"
}

for n in 2 3; do
	expect_exit 0 "$AB" plan --matrix -n $n r.json
	cp out matrix$n.json
	shards=
	for k in $(seq 1 $n); do
		expect_exit 0 "$AB" build -j 2 --mirror-dir mirror --cache cache$n-$k --shard $k/$n -o s$n-$k r.json
		# exactly the shard's variants, with verifiable provenance
		[ "$(json s$n-$k/provenance/build-commands.json '[v["label"] for v in d["variants"]]')" = \
		  "$(json matrix$n.json "d['matrix'][$k - 1]['variants']")" ] || fail "shard $k/$n built another set"
		expect_exit 0 "$AB" verify s$n-$k
		shards="$shards s$n-$k"
	done
	expect_exit 0 "$AB" merge -o m$n $shards
	expect_grep "merged $n shards into 'm$n': 5 variants" err
	expect_exit 0 "$AB" verify m$n
	same_sums full m$n
	[ "$(json m$n/provenance/build-commands.json '[v["label"] for v in d["variants"]]')" = \
	  "$(json full/provenance/build-commands.json '[v["label"] for v in d["variants"]]')" ] || fail "m$n: another variant order"
	[ "$(json m$n/provenance/provenance.intoto.json '[s["outdir"] for s in d["predicate"]["buildDefinition"]["internalParameters"]["merge"]["shards"]]')" = \
	  "$(python3 -c 'import sys; print(sys.argv[1:])' $shards)" ] || fail "m$n: the merge is not recorded"
	ls -a | grep -q '\.merge-' && fail "a temporary was left: $(ls -a)"
	# the binaries are where the merged OUTDIR has them
	check "m$n: a's binary is not named in the merged OUTDIR" \
		[ "$(json m$n/provenance/binary-provenance.json '[v["binary"] for v in d["variants"] if v["label"] == "a"][0]')" = "OUTDIR/variants/a/build/prog" ]
	check "m$n: the relinked binary does not run" \
		[ "$(m$n/variants/a/build/prog-relinked)" = "fake 2.0.0-0-g0123456789abcdef B" ]
done
# 3 shards: b was built in two of them, and both agreed
[ "$(json m3/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["internalParameters"]["merge"]["variantShards"]["b"]')" = \
  "['s3-1', 's3-2']" ] || fail "b: $(json m3/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["internalParameters"]["merge"]["variantShards"]')"

# pr, rebuild and sign take the merged OUTDIR as a build
expect_exit 0 "$AB" pr m2
[ -s m2/pr.md ] && [ -s m2/provenance-cm.tar.gz ] || fail "pr wrote nothing into the merged OUTDIR"
expect_grep 'var_a -- relink --> var_a_with_b' m2/pr.md
expect_exit 0 "$AB" rebuild -j 2 --mirror-dir mirror -o rb m2
expect_exit 0 "$AB" verify m2
make_keys
expect_exit 0 "$AB" sign --signing-key ed.pem m2
expect_exit 0 "$AB" verify --key ed.pub.pem m2

# --move: the shards give up their variants' directories
cp -a s2-1 mv1
cp -a s2-2 mv2
expect_exit 0 "$AB" merge --move -o mm mv1 mv2
expect_exit 0 "$AB" verify mm
same_sums full mm
[ ! -e mv1/variants/a ] && [ ! -e mv2/variants/b ] || fail "--move left the variants in the shards"

# the merged manifests name no path of a shard (each shard's OUTDIR is
# "OUTDIR" in them, as its own manifests say; the merge's record names the
# shards as they were given), and a build into the merged OUTDIR
# finds every variant up to date (each record held to its manifests with
# the places of the build that made it: state.json's "places")
check "mm's manifests name a shard's path: $(grep -rlE "/(s2-[12]|mv[12])" mm/provenance)" \
	not grep -rqE "/(s2-[12]|mv[12])" mm/provenance
check "the records forgot where they were made" \
	[ "$(json mm/variants/a/state.json 'd["places"]["outdir"]')" = "$PWD/s2-1" ]
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror --cache cache-full -o mm r.json
check "a build into the merged OUTDIR built again: $(cat err)" \
	[ "$(grep -c '^\[' err)" = 12 ] && [ "$(grep -c '^\[.*: up to date$' err)" = 12 ]
