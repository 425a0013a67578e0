#!/usr/bin/env bash
# merge refuses, exit 1 and naming what differs, and writes nothing:
# shards of two different recipes; a shard whose artifact was tampered
# with (it fails verify); the same variant with different artifact
# digests in two OUTDIRs (a reproducibility cross-check: a variant made
# irreproducible on purpose); a variant no shard built. Toolchain
# differences are warnings, recorded per variant, and refusals with
# --require-same-toolchain. A merge killed with -9 leaves no OUTDIR, and
# the next merge succeeds and removes the killed one's temporary.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakecmake_relink_recipe r.json
sed 's/"FLB_FAKE_TAG": "B"/"FLB_FAKE_TAG": "B2"/' r.json >r2.json
for k in 1 2; do
	expect_exit 0 "$AB" build -j 2 --mirror-dir mirror --shard $k/2 -o s$k r.json
done
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror --shard 2/2 -o other r2.json

# no_output: nothing was written, not even a temporary
no_output() {
	[ ! -e "$1" ] || fail "a refused merge wrote $1"
	! ls -a | grep -q '\.merge-' || fail "a refused merge left a temporary: $(ls -a)"
}

# --- two recipes
expect_exit 1 "$AB" merge -o m s1 other
expect_grep "'s1' and 'other' were built from different recipes (sha256 $(sha256sum r.json | cut -c1-64) and $(sha256sum r2.json | cut -c1-64)): not merged" err
no_output m

# --- a tampered artifact: the shard fails verify
cp -a s1 bad
printf 'x' >>bad/variants/a/build/prog
expect_exit 1 "$AB" merge -o m bad s2
expect_grep "variants/a/build/prog: expected " err
expect_grep "'bad' fails verify: not merged" err
no_output m

# --- a variant no shard built
expect_exit 1 "$AB" merge -o m s2
expect_grep "no shard built variant 'a': not merged" err
no_output m

# --- the same variant, different digests: noisy built twice
sha=$(make_noisyproj "$PWD")
cat >n.json <<JSON
{"recipe": 1, "name": "noisy",
 "sources": {"noisy": {"archive": {"urls": ["https://example.invalid/noisyproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [
  {"label": "noisy", "source": "noisy", "build": {"system": "autotools", "targets": ["libnoise.a"]}, "artifacts": ["libnoise.a"]},
  {"label": "quiet", "source": "noisy", "build": {"system": "autotools", "targets": ["libquiet.a"]}, "artifacts": ["libquiet.a"]}
 ]}
JSON
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o n1 n.json
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o n2 n.json
h1=$(sha256sum n1/variants/noisy/build/libnoise.a | cut -c1-64)
h2=$(sha256sum n2/variants/noisy/build/libnoise.a | cut -c1-64)
[ "$h1" != "$h2" ] || fail "the noisy project built the same bytes twice"
expect_exit 1 "$AB" merge -o m n1 n2
expect_grep "reproducibility cross-check failed: variant 'noisy' artifact 'variants/noisy/build/libnoise.a' is $h1 in 'n1' and $h2 in 'n2': not merged" err
expect_no_grep "variant 'quiet'" err
no_output m

# --- another toolchain: a `make` that says another version
mkdir bin
cat >bin/make <<'SH'
#!/bin/sh
[ "$1" = --version ] && { echo "GNU Make 9.9 (a shard's own)"; exit 0; }
exec /usr/bin/make "$@"
SH
chmod +x bin/make
# in the build sandbox the steps find their tools through its own PATH: the caller's make is not the build's
PATH=$PWD/bin:$PATH expect_exit 0 "$AB" build -j 2 --mirror-dir mirror --shard 2/2 -o t2s r.json
[ "$(json t2s/provenance/build-commands.json '[t["path"] for t in d["variants"][0]["toolchain"] if t["name"] == "make"]')" = \
  "['/usr/bin/make']" ] || fail "the sandboxed build recorded the caller's make"
expect_exit 0 "$AB" merge --require-same-toolchain -o ms s1 t2s
# without it, the caller's PATH is the build's
expect_exit 0 "$AB" build --no-sandbox -j 2 --mirror-dir mirror --shard 1/2 -o s1 r.json
PATH=$PWD/bin:$PATH expect_exit 0 "$AB" build --no-sandbox -j 2 --mirror-dir mirror --shard 2/2 -o t2 r.json
expect_exit 1 "$AB" merge --require-same-toolchain -o m s1 t2
expect_grep "variant 'b' was built with another toolchain in 't2' than in 's1' (make): not merged" err
expect_grep "'s1' and 't2' were built with different toolchains (make): not merged" err
no_output m
expect_exit 0 "$AB" merge -o m s1 t2
expect_grep "warning: variant 'b' was built with another toolchain in 't2' than in 's1' (make)" err
expect_exit 0 "$AB" verify m
[ "$(json m/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["internalParameters"]["merge"]["toolchainDiffers"]')" = True ]
[ "$(json m/provenance/provenance.intoto.json '[s["toolchain"]["make"]["version"] for s in d["predicate"]["buildDefinition"]["internalParameters"]["merge"]["shards"]][1]')" = \
  "GNU Make 9.9 (a shard's own)" ] || fail "the shards' toolchains are not recorded"
# each variant keeps the toolchain it was built with: b (built in both) as s1 built it
[ "$(json m/provenance/build-commands.json '[v["label"] for v in d["variants"] if v.get("toolchain")]')" = "['a', 'b', 'a-with-b']" ]

# --- the target exists; usage
expect_exit 2 "$AB" merge -o m s1 s2
expect_grep "'m' exists: merge writes a new OUTDIR" err
expect_exit 2 "$AB" merge s1 s2
expect_grep "missing -o OUTDIR" err
expect_exit 2 "$AB" merge -o m2 s1 s1
expect_grep "'s1' is named twice" err
expect_exit 2 "$AB" merge -o m2 r.json
no_output m2

# --- kill -9 mid-merge: no OUTDIR; a rerun succeeds and removes the temporary
cp -a s1 big1
# an unlisted file in a build directory, copied with it: the merge takes a while
truncate -s 1G big1/variants/a/build/big
"$AB" merge -o k big1 s2 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
	ls -d .k.merge-$pid-*/variants/a/build/big >/dev/null 2>&1 && break
	sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null || true
[ ! -e k ] || fail "a killed merge left its OUTDIR"
ls -d .k.merge-$pid-* >/dev/null 2>&1 || fail "the merge was not killed mid-way"
rm -f big1/variants/a/build/big
expect_exit 0 "$AB" merge -o k big1 s2
expect_exit 0 "$AB" verify k
! ls -a | grep -q '\.k\.merge-' || fail "the killed merge's temporary is still there"

# --- merge --move that fails after its moves: every directory goes back to its shard
cp -a s1 mv1 && cp -a s2 mv2
ls mv1/variants mv2/variants >before.txt
mkfifo mv1/ccwrap/jam
expect_exit 2 "$AB" merge --move -o mm mv1 mv2
expect_grep "'mv1/ccwrap/jam' is not a file, a directory or a link: not copied" err
for d in $(ls mv1/variants); do expect_grep "put '$PWD/mv1/variants/$d' back" err; done
ls mv1/variants mv2/variants | cmp - before.txt || fail "the failed merge --move took variants from the shards"
no_output mm
rm mv1/ccwrap/jam
expect_exit 0 "$AB" verify mv1
expect_exit 0 "$AB" verify mv2

# --- the temporary of a merge --move killed after a move: the next merge puts it back first
true &
dead=$!
wait $dead
v=$(ls mv1/variants | head -n 1)
mkdir -p .mk.merge-$dead-XXXXXX/variants
mv mv1/variants/$v .mk.merge-$dead-XXXXXX/variants/
printf '%s\0%s\0%s\0' "$PWD/mv1/variants/$v" "variants/$v" "$PWD/mv2/variants/cut-short" \
	>.mk.merge-$dead-XXXXXX/.moved
# as a merge makes them (mkdtemp, its journal 0600): what proves them its own (t7350)
chmod 700 .mk.merge-$dead-XXXXXX && chmod 600 .mk.merge-$dead-XXXXXX/.moved
expect_exit 0 "$AB" merge --move -o mk mv1 mv2
expect_grep "put '$PWD/mv1/variants/$v' back from the merge --move that did not finish" err
! ls -a | grep -q '\.mk\.merge-' || fail "the killed merge's temporary is still there"
[ -d mk/variants/$v ] && [ ! -e mk/.moved ] || fail "the merge did not take $v, or kept its journal"
expect_exit 0 "$AB" verify mk
