#!/usr/bin/env bash
# A bundle carries the files beside the recipe that its build read: the
# tree of a dir source (its configure script still executable) and a patch
# file from outside the recipe's directory (../patches), as inputs/<levels
# up>/<path>, listed in SHA256SUMS and signed with the statement. With the
# author's recipe, directory and patch moved away, rebuild of the bundle
# (and of the OUTDIR) lays them out and finds every artifact identical; a
# bundle whose inputs were changed does not verify, and nothing is rebuilt.
# The statement records each file's mode ({"annotations": {"mode":
# "0755"}}), so that the signature covers it: an execute bit taken away
# (or given) in the bundle or the OUTDIR fails verify --key, and rebuild
# refuses it before anything runs instead of failing the build and
# blaming the original.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sign-lib.sh"
# a temporary directory of its own: another test's rebuild running beside
# this one has its inputs in /tmp meanwhile, which are not this one's
export TMPDIR=$PWD/tmp
mkdir -p "$TMPDIR"

mkdir -p proj/recipes/app proj/patches
cat >proj/recipes/app/configure <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
printf 'all: app\n\napp: %s/main.c\n\tcc -O1 -o app %s/main.c\n' "$srcdir" "$srcdir" >Makefile
CFG
chmod +x proj/recipes/app/configure
printf '#include <stdio.h>\nint main(void) { puts("app 1"); return 0; }\n' >proj/recipes/app/main.c
cat >proj/patches/app.patch <<'P'
--- a/main.c
+++ b/main.c
@@ -1,2 +1,2 @@
 #include <stdio.h>
-int main(void) { puts("app 1"); return 0; }
+int main(void) { puts("app 2, patched"); return 0; }
P
h=$("$AB" hash proj/recipes/app | cut -d' ' -f1)
cat >proj/recipes/r.json <<JSON
{"recipe": 1, "name": "carried",
 "sources": {"app": {"dir": {"path": "app", "dirHash": "$h"}, "patches": ["../patches/app.patch"]}},
 "variants": [{"label": "a", "source": "app", "build": {"system": "autotools"}, "artifacts": ["app"]}]}
JSON
expect_exit 0 "$AB" build -o bo proj/recipes/r.json
[ "$(bo/variants/a/build/app)" = "app 2, patched" ] || fail "the patch was not applied"
cut -c67- bo/SHA256SUMS | grep '^inputs/' >listed
cat >want <<X
inputs/0/app/configure
inputs/0/app/main.c
inputs/1/patches/app.patch
X
expect_file listed <want
cmp proj/patches/app.patch bo/inputs/1/patches/app.patch || fail "the patch kept is not the patch"
[ -x bo/inputs/0/app/configure ] && [ ! -x bo/inputs/0/app/main.c ] || fail "the modes of the dir source were not kept"
expect_exit 0 "$AB" verify bo
make_keys
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
B=$PWD/pr/provenance-carried.tar.gz
tar -tvzf $B | awk '$6 ~ /inputs\// { print $1, $6 }' >modes
cat >want <<X
drwxr-xr-x provenance-carried/inputs/
drwxr-xr-x provenance-carried/inputs/0/
drwxr-xr-x provenance-carried/inputs/0/app/
-rwxr-xr-x provenance-carried/inputs/0/app/configure
-rw-r--r-- provenance-carried/inputs/0/app/main.c
drwxr-xr-x provenance-carried/inputs/1/
drwxr-xr-x provenance-carried/inputs/1/patches/
-rw-r--r-- provenance-carried/inputs/1/patches/app.patch
X
expect_file modes <want

# the author's files gone: the bundle and the OUTDIR rebuild from what they carry
mv proj away
mkdir elsewhere && cd elsewhere
expect_exit 0 "$AB" rebuild --key ../ed.pub.pem -o rb $B
expect_grep "1/1 artifact identical" out
[ "$(rb/variants/a/build/app)" = "app 2, patched" ] || fail "the rebuild did not apply the bundled patch"
expect_exit 0 "$AB" rebuild -o rb2 ../bo
expect_grep "1/1 artifact identical" out
# --json: one document on stdout, what it printed on stderr
expect_exit 0 "$AB" rebuild --json -o rb3 ../bo
expect_grep "1/1 artifact identical" err
h=$(sha256sum rb3/variants/a/build/app | cut -d' ' -f1)
cat >j.py <<'PY'
import json, sys
d = json.load(sys.stdin)
here, h = sys.argv[1], sys.argv[2]
print(d["from"], d["kind"], d["dir"] == here + "/rb3", d["result"], d["summary"])
print(d["record"] == here + "/rb3/provenance/rebuild.intoto.json", d["signed_record"])
for a in d["artifacts"]:
    print(a["label"], a["path"], a["identical"], a["original_sha256"] == h, a["rebuilt_sha256"] == h)
PY
python3 j.py "$PWD" "$h" <out >got || fail "rebuild --json printed no JSON document"
cat >want <<X
../bo OUTDIR True pass 1/1 artifact identical
True None
a variants/a/build/app True True True
X
expect_file got <want
ls "${TMPDIR:-/tmp}" | grep -q '^allocbuild-rebuild-inputs-' && fail "the rebuild left its inputs behind"
cd ..

# a bundle whose kept patch was changed (its indexes made anew): its statement refuses it
mkdir x && tar -xzf $B -C x
sed -i 's/patched/forged/' x/provenance-carried/inputs/1/patches/app.patch
repack_bundle x provenance-carried forged.tar.gz
expect_exit 1 "$AB" rebuild --key ed.pub.pem -o rb3 forged.tar.gz
expect_grep "inputs/1/patches/app.patch: sha256 mismatch" out
[ ! -e rb3 ] || fail "a forged bundle was rebuilt"

# the modes are the statement's: each file of inputs/ with the mode the bundle gives it
json bo/provenance/provenance.intoto.json '"\n".join(b["name"] + " " + b["annotations"]["mode"]
	for b in d["predicate"]["runDetails"]["byproducts"] if b["name"].startswith("inputs/"))' >modes
cat >want <<X
inputs/0/app/configure 0755
inputs/0/app/main.c 0644
inputs/1/patches/app.patch 0644
X
expect_file modes <want
# configure's execute bit taken away in the bundle (its bytes, and so every digest, unchanged)
rm -rf x && mkdir x && tar -xzf $B -C x
chmod -x x/provenance-carried/inputs/0/app/configure
chmod +x x/provenance-carried/inputs/0/app/main.c
repack_bundle x provenance-carried flipped.tar.gz
expect_exit 1 "$AB" verify flipped.tar.gz
expect_grep "provenance/provenance.intoto.json: inputs/0/app/configure: mode mismatch: recorded 0755, actual 0644" out
expect_exit 1 "$AB" verify --key ed.pub.pem flipped.tar.gz
expect_grep "provenance/provenance.intoto.jsonl:1: inputs/0/app/configure: mode mismatch: signed 0755, actual 0644" out
expect_grep "provenance/provenance.intoto.jsonl:1: inputs/0/app/main.c: mode mismatch: signed 0644, actual 0755" out
expect_exit 1 "$AB" rebuild --key ed.pub.pem -o rb4 flipped.tar.gz
expect_grep "'flipped.tar.gz': its signatures do not verify with the keys given (above): nothing of it is run" err
check 'a bundle with changed modes was not rebuilt' not test -e rb4
# unsigned, the rebuild holds the files to the statement's modes all the same, before anything runs
expect_exit 2 "$AB" rebuild --trust-unsigned -o rb4 flipped.tar.gz
cat >want <<X
allocbuild: 'flipped.tar.gz': inputs/0/app/configure: its mode is 0644, the build statement records 0755: a changed bundle is not rebuilt
allocbuild: 'flipped.tar.gz': inputs/0/app/main.c: its mode is 0755, the build statement records 0644: a changed bundle is not rebuilt
X
sort err >sorted # in the bundle's order
expect_file sorted <want
check 'a bundle with changed modes was not rebuilt' not test -e rb4
# the same in the OUTDIR (signed again: its rebuild record came after pr --sign)
expect_exit 0 "$AB" sign --signing-key ed.pem bo
chmod -x bo/inputs/0/app/configure
expect_exit 1 "$AB" verify --key ed.pub.pem bo
expect_grep "provenance/provenance.intoto.jsonl:1: inputs/0/app/configure: mode mismatch: signed 0755, actual 0644" out
expect_exit 1 "$AB" verify bo
expect_grep "provenance/provenance.intoto.json: inputs/0/app/configure: mode mismatch: recorded 0755, actual 0644" out
expect_exit 1 "$AB" sign --signing-key ed.pem bo
expect_grep "allocbuild: sign: provenance/provenance.intoto.json: inputs/0/app/configure: mode mismatch: recorded 0755, actual 0644" err
expect_exit 2 "$AB" rebuild -o rb5 bo
expect_grep "allocbuild: 'bo': inputs/0/app/configure: its mode is 0644, the build statement records 0755: a changed OUTDIR is not rebuilt" err
check 'an OUTDIR with a changed mode was not rebuilt' not test -e rb5
chmod +x bo/inputs/0/app/configure
expect_exit 0 "$AB" verify --key ed.pub.pem bo
