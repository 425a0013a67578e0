#!/usr/bin/env bash
# The files a build reads whole or runs that a recipe names by path: a
# patch is a file beside the recipe (an absolute path is refused), and a
# patch, build.cargo or build.rustc that exists must be a regular file
# (/dev/zero, a fifo, a link to either would hang fetch or build holding
# the cache's lock): validate, plan and fetch refuse them, FILE:LINE:COL,
# every error at once, before anything is read or run.
. "$TOP/tests/lib.sh"

SHA=0000000000000000000000000000000000000000000000000000000000000000
mkfifo fifo.patch rustc-fifo
ln -s /dev/zero zero.patch
echo "--- a" >ok.patch
cat >r.json <<JSON
{"recipe": 1, "name": "p",
 "sources": {"s": {"archive": {"urls": ["https://example.invalid/s.tar.gz"], "sha256": "$SHA"},
                   "patches": ["/etc/hostname", "zero.patch", "fifo.patch", "ok.patch", "missing.patch"]}},
 "variants": [{"label": "c", "source": "s",
               "build": {"system": "cargo", "cargo": "/dev/zero", "rustc": "$PWD/rustc-fifo"}}]}
JSON
cat >want <<X
r.json:3:32: sources.s.patches[0]: '/etc/hostname' is an absolute path: a patch is a file beside the recipe, relative to its directory
r.json:3:49: sources.s.patches[1]: 'zero.patch' is not a regular file
r.json:3:63: sources.s.patches[2]: 'fifo.patch' is not a regular file
r.json:5:54: variants[0].build.cargo: '/dev/zero' is not a regular file
r.json:5:76: variants[0].build.rustc: '$PWD/rustc-fifo' is not a regular file
X
for cmd in validate plan fetch; do
	expect_exit 2 timeout 20 "$AB" $cmd r.json
	grep -v '^allocbuild: [0-9]* errors\?$' err >got || true
	expect_file got <want
done
[ ! -e allocbuild-out ] || fail "something was written for a refused recipe"
