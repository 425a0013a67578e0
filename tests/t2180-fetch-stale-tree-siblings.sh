#!/usr/bin/env bash
# A variant's tree is made beside it (src.tmp-<pid>-*) and the old one
# moved aside (src.old-<pid>-*); what a killed fetch or build left is
# removed by the next only when lib/stale proves it this user's directory
# (not a link); one named like it that is a link, or a file, is named and
# left alone, and whatever it points to is not touched. A live process's
# is kept.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" fetch --mirror-dir mirror -o bo r.json
[ -d bo/variants/t1/src ] || fail "no tree for t1"
true &
dead=$!
wait $dead
v=bo/variants/t1
mkdir -p $v/src.tmp-$dead-AAAAAA/sub $v/src.old-$dead-BBBBBB
echo x >$v/src.tmp-$dead-AAAAAA/sub/f
mkdir elsewhere && echo keep >elsewhere/keep
ln -s "$PWD/elsewhere" $v/src.old-$dead-CCCCCC
echo file >$v/src.tmp-$dead-DDDDDD
mkdir $v/src.tmp-$$-EEEEEE
# a tree changed by hand is made again: that is when its siblings are looked at
echo changed >$v/src/added-by-hand
expect_exit 0 "$AB" fetch --mirror-dir mirror -o bo r.json
grep -e 'interrupted run' err | LC_ALL=C sort >got
LC_ALL=C sort >want <<X
allocbuild: removing '$v/src.old-$dead-BBBBBB', left by an interrupted run
allocbuild: removing '$v/src.tmp-$dead-AAAAAA', left by an interrupted run
allocbuild: warning: '$v/src.old-$dead-CCCCCC' is named like the temporary of an interrupted run but is not provably one (a symbolic link): left alone
allocbuild: warning: '$v/src.tmp-$dead-DDDDDD' is named like the temporary of an interrupted run but is not provably one (not a directory): left alone
X
diff -u want got || fail "the stale siblings are not handled as expected"
[ ! -e $v/src.tmp-$dead-AAAAAA ] && [ ! -e $v/src.old-$dead-BBBBBB ] || fail "our own stale trees were not removed"
[ -L $v/src.old-$dead-CCCCCC ] && [ -f $v/src.tmp-$dead-DDDDDD ] || fail "what is not provably ours was removed"
[ "$(cat elsewhere/keep)" = keep ] || fail "the link's target was touched"
[ -d $v/src.tmp-$$-EEEEEE ] || fail "a live process's tree was removed"
