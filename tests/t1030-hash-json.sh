#!/usr/bin/env bash
# hash --json: an array of {path, type, sha256, size | files}
. "$TOP/tests/lib.sh"

printf 'hello\n' >file
: >empty
mkdir -p tree/a
printf '12345' >tree/a/x
printf 'abc' >tree/y
ln -s y tree/link
printf 'q' >'odd\name'

expect_exit 0 "$AB" hash --json file tree empty 'odd\name'
tree_sha=$( (cd tree && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum) | cut -c1-64)
python3 - "$tree_sha" <<'EOT'
import hashlib, json, sys
d = json.load(open("out"))
def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()
want = [
    {"path": "file", "type": "file", "sha256": sha("file"), "size": 6},
    {"path": "tree", "type": "tree", "sha256": sys.argv[1], "files": 2},
    {"path": "empty", "type": "file", "sha256": sha("empty"), "size": 0},
    {"path": "odd\\name", "type": "file", "sha256": sha("odd\\name"), "size": 1},
]
if d != want:
    print("got ", d, "\nwant", want)
    sys.exit(1)
EOT
[ ! -s err ] || fail "unexpected stderr"

# -j and --json together, options in any order before the paths
expect_exit 0 "$AB" hash -j 1 --json tree
[ "$(json out 'd[0]["sha256"]')" = "$tree_sha" ] || fail "tree hash with -j 1"
expect_exit 0 "$AB" hash --jobs=2 --json tree
[ "$(json out 'd[0]["sha256"]')" = "$tree_sha" ] || fail "tree hash with --jobs=2"
