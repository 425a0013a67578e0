#!/usr/bin/env bash
# Writing a tree checks every blob against its object id (allocbuild reads
# the blobs from the object database's backends and computes their git
# ids itself): a cached object whose bytes are another blob's is refused
# (exit 1), naming the file and the object, and nothing is built from it.
# The same cache, repaired, writes git's tree.
. "$TOP/tests/lib.sh"

URL=https://git.example.invalid/up.git
git init -q --bare up.git
git clone -q up.git work 2>/dev/null
(
	cd work
	for i in $(seq 1 30); do echo "file $i" >"f$i.c"; done
	echo "the good bytes" >victim.c
	git add -A && git commit -qm one && git push -q origin main
)
C=$(git -C up.git rev-parse main)
cat >r.json <<JSON
{"recipe": 1, "name": "g",
 "sources": {"up": {"git": {"url": "$URL", "commit": "$C"}}},
 "variants": [{"label": "a", "source": "up", "build": {"system": "autotools"}}]}
JSON
src=(--cache "$PWD/cache" --mirror "https://git.example.invalid/=$PWD/")
expect_exit 0 "$AB" fetch "${src[@]}" -o o1 r.json
diff -r --no-dereference work/victim.c o1/variants/a/src/victim.c

# the cache's loose object of victim.c now holds another blob (the link to up.git broken first)
oid=$(git -C up.git rev-parse "$C:victim.c")
obj=$(find cache -path "*/objects/${oid:0:2}/${oid:2}" -type f)
[ -n "$obj" ] || fail "no loose object $oid in the cache"
cp "$obj" good.obj
rm -f "$obj"
python3 -c 'import sys, zlib; d = b"the evil bytes\n"; open(sys.argv[1], "wb").write(zlib.compress(b"blob %d\0" % len(d) + d))' "$obj"
expect_exit 1 "$AB" fetch "${src[@]}" -o o2 r.json
expect_grep "allocbuild: the blob of 'victim.c' is corrupt: its bytes are not object $oid" err
[ ! -e o2/variants/a/src/victim.c ] || ! grep -q evil o2/variants/a/src/victim.c || fail "the evil bytes were written"

# repaired: git's tree again
rm -f "$obj"
cp good.obj "$obj"
expect_exit 0 "$AB" fetch "${src[@]}" -o o3 r.json
rm -rf ref && git clone -q up.git ref && rm -rf ref/.git
diff -r --no-dereference ref o3/variants/a/src || fail "not git's tree"
