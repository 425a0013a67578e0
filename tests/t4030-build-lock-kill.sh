#!/usr/bin/env bash
# build: a second build into a locked OUTDIR is refused and writes nothing;
# kill -9 in the middle of make, then a rerun completes; manifests are
# never partial.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakeproj "$PWD")
cat >r.json <<JSON
{
	"recipe": 1,
	"name": "slow",
	"sources": {
		"fake": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}
	},
	"variants": [
		{"label": "slow", "source": "fake",
		 "build": {"system": "autotools", "targets": ["all"], "env": {"FAKE_HOLD": "/allocbuild/variants/hold"}},
		 "artifacts": ["lib/libfake.a", "bin/fake"]}
	]
}
JSON
O=$PWD/bo

# a complete build first, so that there are manifests to keep whole
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json

# then a forced rebuild that stops in the middle of make, while the hold file exists (the
# build sandbox shows OUTDIR/variants, read-only, at /allocbuild/variants)
touch bo/variants/hold
setsid "$AB" build --force --mirror-dir mirror -o bo r.json >a.out 2>a.err &
pid=$!
trap 'kill -9 -- "-$pid" 2>/dev/null || true' EXIT
# make has printed the waiting command and runs it
for _ in $(seq 1 600); do
	grep -q FAKE_HOLD bo/variants/slow/logs/03-build.log 2>/dev/null && break
	sleep 0.1
done
grep -q FAKE_HOLD bo/variants/slow/logs/03-build.log || { cat a.err; fail "make did not start"; }
sleep 0.5

# a second build into the same OUTDIR is refused at once and writes nothing
find bo -printf '%p %s %T@\n' | sort >before
expect_exit 2 "$AB" build --mirror-dir mirror -o bo r.json
echo "allocbuild: output directory '$O' is locked by another build (pid $pid)" | expect_file err
[ ! -s out ] || fail "the refused build printed on stdout"
find bo -printf '%p %s %T@\n' | sort >after
diff -u before after || fail "the refused build changed the OUTDIR"

# kill -9 the build and its make in the middle of make
kill -9 -- "-$pid"
wait "$pid" 2>/dev/null || true
[ ! -e bo/variants/slow/state.json ] || fail "an interrupted variant has a state"
for f in bo/provenance/*.json; do
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" || fail "$f is not whole"
done
ls bo/provenance | grep -v '\.json$' && fail "temporary files left in provenance/"

# the rerun (no --force) rebuilds the interrupted variant and completes
rm bo/variants/hold
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "[4/5] slow: make all" err
[ "$(cat bo/variants/slow/build/lib/libfake.a)" = "fake 1.2.3-0-gabcdef0123456789 library" ]
[ -f bo/variants/slow/state.json ] || fail "no state after the rerun"
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo
[ "$(json bo/provenance/binary-provenance.json 'd["variants"][0]["artifacts"][0]["allocator_version"]')" = \
  "1.2.3-0-gabcdef0123456789" ]
