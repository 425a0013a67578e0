#!/usr/bin/env bash
# The real jemalloc 5.3.0 release tarball of the default recipe, through a
# mirror directory and through a loopback HTTP server (--mirror rewriting
# the GitHub URL); both give the same tree, equal to tar's extraction.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

R=$TOP/recipes/jemalloc-5.3.0-policy.json
GH=https://github.com/jemalloc/jemalloc/releases/download/5.3.0/

# through the mirror directory filled by scripts/debian-mirror.sh
expect_exit 0 "$AB" fetch -o m --mirror-dir "$MIRROR" "$R"
S=m/provenance/sources.json
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["sha256"]')" = "$JEMALLOC_SHA" ] || fail "sha256"
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["origin_kind"]')" = mirror-dir ] || fail "origin kind"
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["origin"]')" = "$MIRROR/sha256/$JEMALLOC_SHA" ] || fail "origin"
[ "$(json $S 'sorted(d["variants"])')" = "['frag-special53', 'frag-stock53', 'special53', 'stock53']" ] || fail "build variants only"
mkdir ref
tar -C ref --strip-components=1 -xjf "$JEMALLOC_TARBALL"
want=$(cd ref && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1)
for v in stock53 special53; do
	[ "$(json $S "d['variants']['$v']['dirHash']")" = "$want" ] || fail "dirHash of $v"
	diff -r ref "m/variants/$v/src" || fail "tree of $v"
done
[ -x m/variants/stock53/src/configure ] || fail "configure is not executable"

# through HTTP, with a fresh cache
mkdir www
cp "$JEMALLOC_TARBALL" www/
start_http "$PWD/www"
expect_exit 0 "$AB" fetch -o h --cache "$PWD/cache2" --mirror "$GH=http://127.0.0.1:$HTTP_PORT/" "$R"
stop_http
S=h/provenance/sources.json
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["origin"]')" = "http://127.0.0.1:$HTTP_PORT/jemalloc-5.3.0.tar.bz2" ] ||
	fail "origin"
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["urls"][0]')" = "${GH}jemalloc-5.3.0.tar.bz2" ] || fail "canonical url"
[ "$(json $S 'd["variants"]["stock53"]["dirHash"]')" = "$want" ] || fail "dirHash over http"
expect_grep '"GET /jemalloc-5.3.0.tar.bz2 HTTP/1.1" 200' "$HTTP_LOG"
[ "$(sha "cache2/archives/sha256/$JEMALLOC_SHA")" = "$JEMALLOC_SHA" ] || fail "cached"

# the server is gone: the cache serves a rerun, which reuses the verified trees
expect_exit 0 "$AB" fetch -o h --cache "$PWD/cache2" --mirror "$GH=http://127.0.0.1:$HTTP_PORT/" "$R"
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["origin_kind"]')" = cache ] || fail "from the cache"
[ "$(json $S 'd["sources"]["jemalloc-5.3.0"]["cached_from"]')" = "http://127.0.0.1:$HTTP_PORT/jemalloc-5.3.0.tar.bz2" ] ||
	fail "cached_from"
[ "$(json $S 'd["variants"]["special53"]["reused"]')" = True ] || fail "reused"
