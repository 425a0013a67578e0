#!/usr/bin/env bash
# fetch usage errors: exit 2, the exact message, nothing written.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

archive_recipe r.json "$JEMALLOC_SHA" "https://example.invalid/jemalloc-5.3.0.tar.bz2"

expect_exit 2 "$AB" fetch
expect_grep "allocbuild: fetch: missing RECIPE" err
expect_exit 2 "$AB" fetch --mirror nothing r.json
expect_grep "allocbuild: --mirror: expected FROM=TO, got 'nothing'" err
expect_exit 2 "$AB" fetch --mirror =/x r.json
expect_grep "allocbuild: --mirror: expected FROM=TO, got '=/x'" err
expect_exit 2 "$AB" fetch --mirror-dir no-such-dir r.json
expect_grep "allocbuild: --mirror-dir: 'no-such-dir' is not a directory" err
expect_exit 2 "$AB" fetch -j 0 r.json
expect_grep "allocbuild: fetch: invalid job count '0'" err
expect_exit 2 "$AB" fetch r.json nosuch
expect_grep "allocbuild: fetch: recipe 'r.json' has no source 'nosuch'" err
expect_exit 2 "$AB" fetch --bogus r.json
expect_file err <<'EOF'
allocbuild: fetch: unknown option '--bogus'
Try 'allocbuild help fetch'.
EOF
expect_exit 2 "$AB" fetch -j 2x r.json
expect_file err <<'EOF'
allocbuild: fetch: invalid job count '2x'
Try 'allocbuild help fetch'.
EOF
expect_exit 2 "$AB" fetch -j -3 r.json
expect_grep "allocbuild: fetch: invalid job count '-3'" err
expect_exit 2 "$AB" fetch r.json -j
expect_grep "allocbuild: fetch: option '-j' needs a value" err
expect_exit 2 "$AB" fetch missing.json
[ ! -e allocbuild-out ] && [ ! -e cache ] || fail "something was written"

# help
expect_exit 0 "$AB" fetch --help
expect_grep "usage: allocbuild fetch [--cache DIR] [--mirror FROM=TO]... [--mirror-dir DIR]..." out

# cache location: --cache, then ALLOCBUILD_CACHE, then XDG_CACHE_HOME
expect_exit 0 "$AB" fetch --cache c1 --mirror-dir "$MIRROR" -o o1 r.json
[ -f "c1/archives/sha256/$JEMALLOC_SHA" ] || fail "--cache"
ALLOCBUILD_CACHE=$PWD/c2 expect_exit 0 "$AB" fetch --mirror-dir "$MIRROR" -o o1 r.json
[ -f "c2/archives/sha256/$JEMALLOC_SHA" ] || fail "ALLOCBUILD_CACHE"
expect_exit 0 "$AB" fetch -q --mirror-dir "$MIRROR" -o o1 r.json
[ -f "cache/allocbuild/archives/sha256/$JEMALLOC_SHA" ] || fail "XDG_CACHE_HOME"
[ ! -s err ] || fail "-q is not quiet"
[ -f c1/lock ] && [ -d c1/tmp ] || fail "cache layout"

# an OUTDIR locked by a build is refused as a second build is, before any download; nothing is written
flock o1/.lock sh -c 'echo $$ >o1/.lock; : >held; exec sleep 30' &
holder=$!
trap 'kill "$holder" 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -e held ] && break; sleep 0.05; done
[ -e held ] || fail "the lock holder did not start"
hpid=$(cat o1/.lock)
trap 'kill "$hpid" "$holder" 2>/dev/null || true' EXIT
find o1 -printf '%p %s %T@\n' | sort >before
expect_exit 2 "$AB" fetch --cache c3 --mirror-dir "$MIRROR" -o o1 r.json
echo "allocbuild: output directory 'o1' is locked by another build (pid $hpid)" | expect_file err
[ ! -s out ] || fail "the refused fetch printed on stdout"
find o1 -printf '%p %s %T@\n' | sort >after
diff -u before after || fail "the refused fetch changed the OUTDIR"
[ ! -e c3 ] || fail "the refused fetch used the cache"
kill "$hpid"
wait "$holder" 2>/dev/null || true
trap - EXIT
expect_exit 0 "$AB" fetch --mirror-dir "$MIRROR" -o o1 r.json
