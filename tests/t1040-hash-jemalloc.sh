#!/usr/bin/env bash
# hash: the dirHash of a real source tree (the jemalloc 5.3.0 release) and
# the hash of its tarball equal coreutils' results
. "$TOP/tests/lib.sh"

[ -f "$JEMALLOC_TARBALL" ] || fail "no $JEMALLOC_TARBALL"
expect_exit 0 "$AB" hash "$JEMALLOC_TARBALL"
expect_file out <<EOT
$JEMALLOC_SHA  $JEMALLOC_TARBALL
EOT

tar xjf "$JEMALLOC_TARBALL"
want=$(cd jemalloc-5.3.0 && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -c1-64)
n=$(find jemalloc-5.3.0 -type f | wc -l)
[ "$n" -gt 400 ] || fail "only $n files extracted"
expect_exit 0 "$AB" hash jemalloc-5.3.0 "$JEMALLOC_TARBALL" --json
python3 - "$want" "$n" "$JEMALLOC_SHA" <<'EOT'
import json, sys
d = json.load(open("out"))
assert d[0] == {"path": "jemalloc-5.3.0", "type": "tree", "sha256": sys.argv[1], "files": int(sys.argv[2])}, d[0]
assert d[1]["sha256"] == sys.argv[3] and d[1]["type"] == "file", d[1]
EOT

# a hard link is one more regular file; a symlink to a file is not
ln jemalloc-5.3.0/README jemalloc-5.3.0/README.hardlink
ln -s README jemalloc-5.3.0/README.symlink
want=$(cd jemalloc-5.3.0 && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -c1-64)
expect_exit 0 "$AB" hash -j 1 jemalloc-5.3.0
expect_file out <<EOT
$want  jemalloc-5.3.0
EOT
