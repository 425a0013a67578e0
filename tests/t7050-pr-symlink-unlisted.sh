#!/usr/bin/env bash
# issue 18, item 2: pr packs only the files the build recorded, never
# through a symlink and nothing from outside OUTDIR; issue 34: nor a file
# with another hard link.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
cp -a bo pristine
echo "TOPSECRET-0451" >secret

# an unlisted symlink among the logs, to a file outside OUTDIR: left out
ln -s "$PWD/secret" bo/variants/t1/logs/zz-extra.log
echo "unlisted" >bo/variants/t1/logs/zz-plain.log
expect_exit 0 "$AB" verify bo
expect_exit 0 "$AB" pr -o p1 bo
tar -tzf p1/provenance-fk.tar.gz >members.txt
expect_no_grep "zz-extra.log" members.txt
expect_no_grep "zz-plain.log" members.txt
check "the secret is not in the bundle" not bundle_has p1/provenance-fk.tar.gz TOPSECRET-0451
expect_exit 0 "$AB" verify p1/provenance-fk.tar.gz

# a recorded log replaced by a symlink to a copy of itself inside OUTDIR:
# verify follows it (it stays inside), pr refuses to pack through it
rm -rf bo && cp -a pristine bo
mv bo/variants/t1/logs/03-build.log bo/variants/t1/build.log.copy
ln -s ../build.log.copy bo/variants/t1/logs/03-build.log
expect_exit 0 "$AB" verify bo
expect_exit 2 "$AB" pr -o p2 bo
expect_grep "refusing member 'bo/variants/t1/logs/03-build.log': goes through symlink 'variants/t1/logs/03-build.log'" err
[ ! -e p2/pr.md ] || fail "pr wrote pr.md after refusing a member"

# ... and to a file outside: verify refuses to follow it out of OUTDIR
rm -rf bo && cp -a pristine bo
cp bo/variants/t1/logs/03-build.log outside.log
ln -sf "$PWD/outside.log" bo/variants/t1/logs/03-build.log
expect_exit 1 "$AB" verify bo
expect_grep "variants/t1/logs/03-build.log: expected" out
expect_grep "actual leaves the directory through symlink 'variants/t1/logs/03-build.log'" out
expect_exit 1 "$AB" pr -o p3 bo
[ ! -e p3 ] || fail "pr wrote p3 for an OUTDIR that does not verify"

# a recorded log that is a hard link of a file outside OUTDIR (its bytes
# the same, so verify passes): pr refuses to pack it, nothing written
rm -rf bo && cp -a pristine bo
cp bo/variants/t1/logs/03-build.log outside-hard.log
ln -f outside-hard.log bo/variants/t1/logs/03-build.log
expect_exit 0 "$AB" verify bo
expect_exit 2 "$AB" pr -o p4 bo
expect_grep "refusing member 'bo/variants/t1/logs/03-build.log': it has 2 hard links: its bytes are also another file's, perhaps outside the OUTDIR (copy it to break the link)" err
[ ! -e p4/pr.md ] && [ ! -e p4/provenance-fk.tar.gz ] || fail "pr wrote into p4 after refusing a hard link"
# a copy instead: packed
cp --remove-destination outside-hard.log bo/variants/t1/logs/03-build.log
expect_exit 0 "$AB" pr -o p4 bo
