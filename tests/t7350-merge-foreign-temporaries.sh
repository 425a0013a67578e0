#!/usr/bin/env bash
# merge acts again only on the temporaries it can prove its own: a
# `.NAME.merge-<dead pid>-*` directory of another user, one readable by
# others, a symbolic link, and ones of this user whose journal names a
# path outside the shards, a path with "..", or a path through a symbolic
# link are each named and left alone, nothing of their journal moved; the
# merge itself goes on. The one a merge really leaves (0700, its journal
# 0600 naming its shards) is put back and removed (t7320).
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror --shard 1/1 -o s1 r.json
true &
dead=$!
wait $dead
mkdir outside

# forge NAME SRC: a temporary .m.merge-<dead>-NAME (0700) holding variants/x/planted,
# its journal (0600) saying variants/x was moved there from SRC
forge() {
	local t=.m.merge-$dead-$1
	mkdir -p $t/variants/x
	echo planted >$t/variants/x/planted
	printf '%s\0%s\0' "$2" variants/x >$t/.moved
	chmod 700 $t && chmod 600 $t/.moved
}
forge outside "$PWD/outside/x"
forge dotdot "$PWD/s1/../outside/y"
ln -s ../outside s1/link
forge symlink "$PWD/s1/link/z"
forge open "$PWD/s1/variants/w" && chmod 755 .m.merge-$dead-open
mkdir real && ln -s real .m.merge-$dead-link
if [ "$(id -u)" = 0 ]; then
	forge nobody "$PWD/s1/variants/v" && chown -R nobody .m.merge-$dead-nobody
fi

expect_exit 0 "$AB" merge -o m s1
T=$PWD/.m.merge-$dead
expect_grep "warning: '$T-outside': its journal names '$PWD/outside/x': outside the directories it may name: left alone" err
expect_grep "warning: '$T-dotdot': its journal names '$PWD/s1/../outside/y': a '..' component: left alone" err
expect_grep "warning: '$T-symlink': its journal names '$PWD/s1/link/z': a symbolic link in its path: left alone" err
expect_grep "warning: '$T-open' is named like the temporary of an interrupted merge but is not provably one (mode 0755, not 0700): left alone" err
expect_grep "warning: '$T-link' is named like the temporary of an interrupted merge but is not provably one (a symbolic link): left alone" err
if [ "$(id -u)" = 0 ]; then
	nobody=$(id -u nobody)
	expect_grep "warning: '$T-nobody' is named like the temporary of an interrupted merge but is not provably one (owned by uid $nobody, not by this user (uid 0)): left alone" err
	[ ! -e s1/variants/v ] && [ -e $T-nobody/variants/x/planted ] || fail "another user's journal was obeyed"
fi
# nothing moved, every temporary still there
[ -z "$(ls outside)" ] && [ ! -e s1/variants/w ] || fail "a journal's move was made: $(ls outside s1/variants)"
for n in outside dotdot symlink open; do
	[ -e $T-$n/variants/x/planted ] || fail "the temporary $n was touched"
done
[ -L $T-link ] && [ -d real ] || fail "the link or what it points to was removed"
expect_exit 0 "$AB" verify m
