#!/usr/bin/env bash
# A wrong SHA-256 from every channel (corrupted cache, mirror directory,
# http, file://) is reported with both hashes and the origin; that file is
# never used or cached; the candidates are tried in order.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

mkdir -p src/pkg good bad/sha256
echo "the real bytes" >src/pkg/file.txt
tar -C src -czf good/pkg.tar.gz pkg
echo "other bytes" >src/pkg/file.txt
tar -C src -czf bad/pkg.tar.gz pkg
G=$(sha good/pkg.tar.gz)
X=$(sha bad/pkg.tar.gz)
cp bad/pkg.tar.gz "bad/sha256/$G"  # a mirror file whose name lies
start_http "$PWD/bad"
HURL=http://127.0.0.1:$HTTP_PORT/pkg.tar.gz
FURL=file://$PWD/bad/pkg.tar.gz
C=$PWD/cache/allocbuild

nothing_written() { # outdir
	[ ! -e "$1" ] || fail "output written: $1"
	[ ! -e "$C/archives/sha256/$G" ] || fail "a wrong file was cached"
	[ -z "$(ls "$C/archives/sha256" 2>/dev/null)" ] || fail "something was cached"
	[ -z "$(ls "$C/tmp" 2>/dev/null)" ] || fail "temporaries left"
}

# mirror dir (under sha256/<hex> and under the URL's name), http and file://, all wrong
archive_recipe r.json "$G" "$HURL" "$FURL"
expect_exit 1 "$AB" fetch -o dest --mirror-dir bad r.json
expect_grep "allocbuild: warning: source 's': sha256 mismatch from mirror dir file '$PWD/bad/sha256/$G': expected $G, got $X; not used" err
expect_grep "allocbuild: warning: source 's': sha256 mismatch from mirror dir file '$PWD/bad/pkg.tar.gz': expected $G, got $X; not used" err
expect_grep "allocbuild: warning: source 's': sha256 mismatch from url '$HURL': expected $G, got $X; not used" err
expect_grep "allocbuild: warning: source 's': sha256 mismatch from url '$FURL': expected $G, got $X; not used" err
expect_grep "allocbuild: source 's': no candidate has sha256 $G (tried the cache, '$PWD/bad/sha256/$G', '$PWD/bad/pkg.tar.gz', '$HURL', '$FURL')" err
expect_grep '"GET /pkg.tar.gz HTTP/1.1" 200' "$HTTP_LOG"
nothing_written dest

# an unreachable URL and a missing file are reported, then the next candidate is tried
archive_recipe r.json "$G" "http://127.0.0.1:1/pkg.tar.gz" "file://$PWD/nope.tar.gz" "file://$PWD/good/pkg.tar.gz"
expect_exit 0 "$AB" fetch -o dest r.json
expect_grep "allocbuild: cannot download 'http://127.0.0.1:1/pkg.tar.gz'" err
expect_grep "allocbuild: cannot download 'file://$PWD/nope.tar.gz'" err
[ "$(json dest/provenance/sources.json 'd["sources"]["s"]["origin"]')" = "file://$PWD/good/pkg.tar.gz" ] || fail "origin"
[ "$(cat dest/variants/v/src/file.txt)" = "the real bytes" ] || fail "content"
[ "$(sha "$C/archives/sha256/$G")" = "$G" ] || fail "not cached"

# a corrupted cache: reported, removed, repaired from the next candidate
echo garbage >"$C/archives/sha256/$G"
Z=$(sha "$C/archives/sha256/$G")
: >"$HTTP_LOG"
archive_recipe r.json "$G" "$HURL"
expect_exit 0 "$AB" fetch -o dest2 --mirror-dir good r.json
expect_grep "allocbuild: warning: source 's': sha256 mismatch from cache '$C/archives/sha256/$G': expected $G, got $Z; removed" err
[ "$(json dest2/provenance/sources.json 'd["sources"]["s"]["origin"]')" = "$PWD/good/pkg.tar.gz" ] || fail "origin"
[ "$(sha "$C/archives/sha256/$G")" = "$G" ] || fail "cache not repaired"
# the mirror dir came before the URL: the server saw no request
[ ! -s "$HTTP_LOG" ] || { cat "$HTTP_LOG"; fail "the URL was tried before the mirror dir"; }

# a corrupted cache and no other good candidate: nothing is used
echo garbage >"$C/archives/sha256/$G"
rm -rf dest
expect_exit 1 "$AB" fetch -o dest r.json
expect_grep "sha256 mismatch from cache '$C/archives/sha256/$G': expected $G, got $Z; removed" err
expect_grep "sha256 mismatch from url '$HURL': expected $G, got $X; not used" err
nothing_written dest

# a cache file that cannot be read is reported and kept (only a wrong digest removes it),
# then the next candidate repairs it
ln -sfn nowhere "$C/archives/sha256/$G"
rm -rf dest
expect_exit 1 "$AB" fetch -o dest r.json
expect_grep "allocbuild: cannot open '$C/archives/sha256/$G': No such file or directory" err
expect_no_grep "from cache" err
[ -L "$C/archives/sha256/$G" ] || fail "an unreadable cache file was removed"
[ ! -e dest ] || fail "output written: dest"
expect_exit 0 "$AB" fetch -o dest --mirror-dir good r.json
[ ! -L "$C/archives/sha256/$G" ] && [ "$(sha "$C/archives/sha256/$G")" = "$G" ] || fail "cache not repaired"
