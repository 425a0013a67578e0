#!/usr/bin/env bash
# run's digest cache (lib/digestcache.h): the first run of a settled program
# hashes it and remembers the digest by device, inode, size, mtime and
# ctime; the next runs take it from there (artifact.checked_by "digest
# cache", hashed_on the first run's time). A change that keeps size and
# mtime (dd conv=notrunc, then touch -r) moves ctime: hashed again and
# refused. --rehash always hashes; a cache that is garbage, or cannot be
# written, only means hashing, with nothing said.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
bin=$PWD/bo/variants/t1/build/bin/fake
P='d["predicate"]["artifact"]'
by() { json "bo/runs/$1.intoto.json" "$P['checked_by']"; }
on() { json "bo/runs/$1.intoto.json" "$P['hashed_on']"; }

# just built: too fresh to be remembered (a change in the same tick could hide)
expect_exit 0 "$AB" run bo t1 --name p -- {bin}
[ "$(by p/0001-t1)" = hash ]
[ ! -e cache/allocbuild/digests ] || fail "a program changed less than a second ago was cached"
sleep 1.1
expect_exit 0 "$AB" run bo t1 --name p -- {bin}
[ "$(by p/0002-t1)" = hash ]
[ "$(wc -l <cache/allocbuild/digests)" = 1 ]
[ "$(cut -d' ' -f8- cache/allocbuild/digests)" = "$bin" ]
[ "$(cut -c1-64 cache/allocbuild/digests)" = "$(sha256sum <"$bin" | cut -c1-64)" ]
expect_exit 0 "$AB" run bo t1 --name p --repeat 2 -- {bin}
[ "$(by p/0003-t1)" = "digest cache" ]
[ "$(by p/0004-t1)" = "digest cache" ]
[ "$(on p/0003-t1)" = "$(on p/0002-t1)" ]
expect_exit 0 "$AB" run bo t1 --name p --rehash -- {bin}
[ "$(by p/0005-t1)" = hash ]
expect_exit 0 "$AB" verify bo

# the same bytes elsewhere (--cache): hashed there, this cache untouched
cp cache/allocbuild/digests digests.before
expect_exit 0 "$AB" run bo t1 --name q --cache "$PWD/other" -- {bin}
[ "$(by q/0001-t1)" = hash ]
[ "$(wc -l <other/digests)" = 1 ]
cmp cache/allocbuild/digests digests.before

# one byte changed, size and mtime kept: ctime moved, so hashed and refused
cp -p "$bin" fake.orig
printf 'Z' | dd of="$bin" bs=1 seek=10 conv=notrunc status=none
touch -r fake.orig "$bin"
[ "$(stat -c %s.%Y "$bin")" = "$(stat -c %s.%Y fake.orig)" ]
expect_exit 1 "$AB" run bo t1 --name r -- {bin}
expect_grep "changed since the build: sha256 $(sha256sum <"$bin" | cut -c1-64), the build recorded $(sha256sum <fake.orig | cut -c1-64); refusing to run it" err
[ ! -e bo/runs/r ] || fail "a refused run left a record"
# put back (a new inode and ctime): hashed once more, then cached again
cp -p fake.orig "$bin.new" && mv "$bin.new" "$bin"
sleep 1.1
expect_exit 0 "$AB" run bo t1 --name r -- {bin}
[ "$(by r/0001-t1)" = hash ]
expect_exit 0 "$AB" run bo t1 --name r -- {bin}
[ "$(by r/0002-t1)" = "digest cache" ]
[ "$(wc -l <cache/allocbuild/digests)" = 1 ]

# garbage in the cache: ignored and replaced
printf 'not a digest line\n%064d 1 2 3 4 5 6 %s\n' 0 "$bin" >cache/allocbuild/digests
expect_exit 0 "$AB" run bo t1 --name s -- {bin}
[ "$(by s/0001-t1)" = hash ]
expect_no_grep "allocbuild:" err
grep -qx "not a digest line" cache/allocbuild/digests || fail "a line of another kind was dropped"
[ "$(grep -cF " $bin" cache/allocbuild/digests)" = 1 ]
# a cache that cannot be written: hashed, nothing said, the run recorded
if [ "$(id -u)" != 0 ]; then
	chmod a-w cache/allocbuild
	rm -f other/digests
	chmod a-w other
	expect_exit 0 "$AB" run bo t1 --name s --cache "$PWD/other" -- {bin}
	[ "$(by s/0002-t1)" = hash ]
	expect_no_grep "allocbuild:" err
	chmod u+w cache/allocbuild other
fi
for c in /proc/self "$PWD/r.json/sub"; do
	expect_exit 0 "$AB" run bo t1 --name s --cache "$c" -- {bin}
	expect_no_grep "allocbuild:" err
done
last=$(ls bo/runs/s/*-t1.intoto.json | tail -n 1)
[ "$(json "$last" "$P['checked_by']")" = hash ]
expect_exit 0 "$AB" verify bo
