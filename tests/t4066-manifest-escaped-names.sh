#!/usr/bin/env bash
# Names with a newline, a backslash or a carriage return (an artifact the
# recipe names, files of a dir source kept under inputs/) are listed in
# SHA256SUMS and BUNDLE-SHA256SUMS as GNU sha256sum lists them: the line
# starts with a backslash and the name is escaped (\n, \\, \r), so each
# stays one line. allocbuild's verify, pr and rebuild read them back, and
# sha256sum -c checks both files.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sign-lib.sh"

mkdir -p proj/app
cat >proj/app/configure <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
printf 'all:\n\tsh %s/mk.sh\n' "$srcdir" >Makefile
CFG
chmod +x proj/app/configure
cat >proj/app/mk.sh <<'SH'
mkdir -p lib
printf 'newline\n' >"lib/n
l.a"
printf 'backslash\n' >'lib/a\b.a'
SH
printf 'kept\n' >"proj/app/we\\ird
name.txt"
printf 'cr\n' >"$(printf 'proj/app/c\rr.txt')"
h=$("$AB" hash proj/app | cut -d' ' -f1)
cat >proj/r.json <<JSON
{"recipe": 1, "name": "esc",
 "sources": {"app": {"dir": {"path": "app", "dirHash": "$h"}}},
 "variants": [{"label": "a", "source": "app", "build": {"system": "autotools"},
               "artifacts": ["lib/n\\nl.a", "lib/a\\\\b.a"]}]}
JSON
expect_exit 0 "$AB" validate proj/r.json
expect_exit 0 "$AB" build -o bo proj/r.json
grep '^\\' bo/SHA256SUMS | cut -c67- | LC_ALL=C sort >escaped
cat >want <<'X'
 inputs/0/app/c\rr.txt
 inputs/0/app/we\\ird\nname.txt
 variants/a/build/lib/a\\b.a
 variants/a/build/lib/n\nl.a
X
expect_file escaped <want
[ "$(grep -c '' bo/SHA256SUMS)" = "$(grep -c '^[\\0-9a-f]' bo/SHA256SUMS)" ] || fail "a name broke a line"
expect_exit 0 "$AB" verify bo
expect_grep "pass: OUTDIR bo" out
(cd bo && sha256sum -c --quiet SHA256SUMS) >sums.out 2>&1 || { cat sums.out; fail "sha256sum -c refuses SHA256SUMS"; }
# a changed artifact with such a name is found, and named
cp -a bo bad
printf 'changed\n' >"bad/variants/a/build/lib/n
l.a"
expect_exit 1 "$AB" verify bad
expect_grep 'variants/a/build/lib/n\nl.a: expected ' out

# the bundle's index, the same way; verify and rebuild read it back
make_keys
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
B=$PWD/pr/provenance-esc.tar.gz
expect_exit 0 "$AB" verify --key ed.pub.pem $B
mkdir x && tar -xzf $B -C x
(cd x/provenance-esc && sha256sum -c --quiet BUNDLE-SHA256SUMS) >bsums.out 2>&1 ||
	{ cat bsums.out; fail "sha256sum -c refuses BUNDLE-SHA256SUMS"; }
grep -c '^\\' x/provenance-esc/BUNDLE-SHA256SUMS >n
echo 2 | expect_file n
mv proj away
expect_exit 0 "$AB" rebuild --key ed.pub.pem -o rb $B
expect_grep "2/2 artifacts identical" out
