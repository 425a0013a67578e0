#!/usr/bin/env bash
# The first fetch from a repository on this machine links its objects into
# the cache (as git clone --local does) and writes the refs the fetch
# refspecs would make; later fetches are ordinary fetches. A source whose
# objects have alternates is fetched (nothing linked). The trees are
# git's, the cache passes git fsck, and a source that repacks afterwards
# takes nothing from the cache.
. "$TOP/tests/lib.sh"

URL=https://git.example.invalid/up.git
git init -q --bare up.git
git clone -q up.git work 2>/dev/null
(
	cd work
	for i in $(seq 1 40); do echo "file $i" >"f$i.c"; done
	git add -A && git commit -qm one && git tag -a v1 -m "release 1"
	git push -q origin main v1
)
git -C up.git gc -q # the first commit packed
(cd work && echo two >>f1.c && git commit -qam two && git push -q origin main) # loose objects
C2=$(git -C up.git rev-parse main)
recipe() { # commit
	cat >r.json <<JSON
{"recipe": 1, "name": "g",
 "sources": {"up": {"git": {"url": "$URL", "commit": "$1"}}},
 "variants": [{"label": "a", "source": "up", "build": {"system": "autotools"}}]}
JSON
}
tree_is() { # COMMIT DIR: DIR is git's checkout of COMMIT
	rm -rf ref && git clone -q --no-checkout up.git ref && git -C ref checkout -q "$1" && rm -rf ref/.git
	diff -r --no-dereference ref "$2" || fail "$2 differs from git's checkout of $1"
}
pack=$(ls up.git/objects/pack/*.pack)
loose=$(find up.git/objects -path '*/objects/[0-9a-f][0-9a-f]/*' -type f | head -n 1)
check "the upstream's pack has one link before the fetch" test "$(stat -c %h "$pack")" = 1
check "the upstream has a loose object" test -n "$loose"

recipe "$C2"
expect_exit 0 "$AB" fetch --mirror "https://git.example.invalid/=$PWD/" r.json
expect_grep "fetching '$URL' from $PWD/up.git" err
[ "$(stat -c %h "$pack")" = 2 ] || fail "the pack was not linked"
[ "$(stat -c %h "$loose")" = 2 ] || fail "a loose object was not linked"
G=$(ls -d cache/allocbuild/git/*.git)
[ "$(git --git-dir="$G" show-ref)" = "$(git -C up.git show-ref | sed 's, refs/heads/, refs/remotes/origin/,')" ] ||
	fail "the refs are not those a fetch makes"
git --git-dir="$G" fsck --no-progress 2>&1 | grep -v "unborn" | expect_file /dev/null
tree_is "$C2" allocbuild-out/g/variants/a/src
[ "$(json allocbuild-out/g/provenance/sources.json 'd["sources"]["up"]["origin"]')" = "$PWD/up.git" ]

# the source moves on and repacks everything: an ordinary fetch brings the
# new commit; the linked pack keeps its bytes under the cache's name
(cd work && echo three >>f2.c && git commit -qam three && git push -q origin main)
C3=$(git -C up.git rev-parse main)
git -C up.git repack -adq && git -C up.git prune
[ ! -e "$pack" ]
recipe "$C3"
expect_exit 0 "$AB" fetch -o o3 --mirror "https://git.example.invalid/=$PWD/" r.json
tree_is "$C3" o3/variants/a/src
git --git-dir="$G" fsck --no-progress 2>&1 | grep -v "unborn" | expect_file /dev/null
[ "$(git --git-dir="$G" rev-parse refs/remotes/origin/main)" = "$C3" ]

# objects with alternates of their own: fetched, nothing linked
git clone -q --bare --shared up.git alt.git
[ -s alt.git/objects/info/alternates ]
URL2=https://git.example.invalid/alt.git
sed "s,$URL,$URL2," r.json >r2.json
pack=$(ls up.git/objects/pack/*.pack)
expect_exit 0 "$AB" fetch --cache c2 -o o4 --mirror "https://git.example.invalid/=$PWD/" r2.json
[ "$(stat -c %h "$pack")" = 1 ] || fail "objects behind alternates were linked"
tree_is "$C3" o4/variants/a/src
[ -z "$(ls c2/tmp)" ] && [ -z "$(ls cache/allocbuild/tmp)" ] || fail "temporaries left in a cache"
