#!/usr/bin/env bash
# issue 18, item 5: credentials in a mirror URL (userinfo, or a token in the
# query string) are used for the request and recorded nowhere: not on
# stderr, not in sources.json, state.json, src.stamp, the cache's origin
# file, the statement, pr.md or the bundle.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
start_http "$PWD"
check_clean() { # what
	local hits
	hits=$( { grep -rl -a -e S3CRETPASS -e TOKEN42 bo cache p 2>/dev/null; grep -l -a -e S3CRETPASS -e TOKEN42 out err; } || true)
	[ -z "$hits" ] || { grep -r -a -n -e S3CRETPASS -e TOKEN42 $hits >&2; fail "$1: a credential was recorded in: $hits"; }
	# a failed fetch makes no bundle; where there is one, it holds neither
	[ -e p/provenance-fk.tar.gz ] || return 0
	check "$1: no password in the bundle" not bundle_has p/provenance-fk.tar.gz S3CRETPASS
	check "$1: no token in the bundle" not bundle_has p/provenance-fk.tar.gz TOKEN42
}

# userinfo: the download authenticates as alice (the server does not care) and nothing keeps the password
expect_exit 0 "$AB" build --cache cache -o bo \
	--mirror "https://example.invalid/=http://alice:S3CRETPASS@127.0.0.1:$HTTP_PORT/" r.json
expect_grep "downloading 'http://***@127.0.0.1:$HTTP_PORT/fakeproj-1.0.tar.gz'" err
grep -q '"GET /fakeproj-1.0.tar.gz HTTP' http.log || fail "the mirror was not used"
[ "$(json bo/provenance/sources.json 'd["sources"]["f"]["origin"]')" = "http://***@127.0.0.1:$HTTP_PORT/fakeproj-1.0.tar.gz" ]
[ "$(json bo/provenance/sources.json 'd["sources"]["f"]["cached_from"]')" = "http://***@127.0.0.1:$HTTP_PORT/fakeproj-1.0.tar.gz" ]
expect_grep "http://***@127.0.0.1:$HTTP_PORT/" cache/archives/origin/*
expect_exit 0 "$AB" pr -o p bo >>out 2>>err
check_clean "userinfo"

# a failed download names the URL without its password
rm -rf cache bo p
sed 's/"sha256": "[0-9a-f]*"/"sha256": "0000000000000000000000000000000000000000000000000000000000000000"/' r.json >wrong.json
expect_exit 1 "$AB" fetch --cache cache -o bo \
	--mirror "https://example.invalid/=http://alice:S3CRETPASS@127.0.0.1:$HTTP_PORT/nothing/" wrong.json
expect_grep "cannot download 'http://***@127.0.0.1:$HTTP_PORT/nothing/fakeproj-1.0.tar.gz'" err
check_clean "a failed download"

# a token in the query string
rm -rf cache bo p
expect_exit 0 "$AB" build --cache cache -o bo \
	--mirror "https://example.invalid/fakeproj-1.0.tar.gz=http://127.0.0.1:$HTTP_PORT/fakeproj-1.0.tar.gz?token=TOKEN42&v=1" r.json
expect_grep "downloading 'http://127.0.0.1:$HTTP_PORT/fakeproj-1.0.tar.gz?token=***&v=1'" err
expect_exit 0 "$AB" pr -o p bo >>out 2>>err
check_clean "a query token"
stop_http
