#!/usr/bin/env bash
# fetch --check-patches builds a whole source tree in TMPDIR: a check that
# is killed (SIGINT, SIGTERM, even kill -9) leaves nothing behind (a helper
# removes the tree when the check's process is gone, read-only directories
# included), and a tree of an earlier check whose process is dead is
# removed by the next check only when it is provably that user's private
# directory; one named like it that is not (a link, a directory others may
# enter) is named and left alone.
. "$TOP/tests/lib.sh"

git init -q up.git
(
	cd up.git
	mkdir -p sub/deep
	printf 'line 1\nline 2\n' >a.txt
	printf 'x\n' >sub/deep/f.txt
	git add -A
	git commit -qm base
	sed -i 's/line 2/line two/' a.txt
	git diff >../p1.patch
	git checkout -q a.txt
)
mkdir -p recipe/patches tmp
mv p1.patch recipe/patches/
cat >recipe/r.json <<JSON
{"recipe": 1, "name": "p",
 "sources": {"up": {"git": {"url": "$PWD/up.git", "commit": "$(git -C up.git rev-parse HEAD)"}, "patches": ["patches/p1.patch"]}},
 "variants": [{"label": "v", "source": "up", "build": {"system": "autotools"}}]}
JSON
export TMPDIR=$PWD/tmp

# a check completed leaves nothing
expect_exit 0 "$AB" fetch --check-patches recipe/r.json
echo "up: 1 patch applies" | expect_file out
[ -z "$(ls -A tmp)" ] || fail "a finished check left $(ls tmp)"

# interrupt SIG: the check, paused once its tree is built and patched, is
# killed with SIG; its tree (one directory made read-only) is gone soon after
interrupt() {
	local sig=$1 checker tree
	rm -f paused
	# (a background job of a script starts with SIGINT ignored: not this one)
	env --default-signal=INT ALLOCBUILD_TEST_CHECK_PAUSE="$PWD/paused" "$AB" fetch --check-patches recipe/r.json >out 2>err &
	checker=$!
	for _ in $(seq 600); do [ -e paused ] && break; sleep 0.05; done
	[ -e paused ] || fail "the check did not reach its pause"
	tree=$(ls -d tmp/allocbuild-check-$checker-*)
	[ -d "$tree" ] || fail "no tree tmp/allocbuild-check-$checker-*"
	grep -rqx 'line two' "$tree" || fail "the tree in $tree is not the patched source"
	[ "$(stat -c %a "$tree")" = 700 ] || fail "the tree is not private"
	chmod 555 "$(find "$tree" -type d -name deep)"
	kill -s "$sig" $checker
	rc=0
	wait $checker 2>/dev/null || rc=$?
	[ $rc = $((128 + $(kill -l "$sig"))) ] || fail "the check did not end by SIG$sig (exit $rc)"
	for _ in $(seq 200); do [ -z "$(ls -A tmp)" ] && break; sleep 0.05; done
	[ -z "$(ls -A tmp)" ] || { ls -laR tmp >&2; fail "a check killed by SIG$sig left $(ls tmp)"; }
	# the helper is gone too
	! pgrep -f "allocbuild-check-$checker-" >/dev/null || fail "a helper of $checker still runs"
}
interrupt KILL
interrupt INT
interrupt TERM

# trees named like those of a dead check: removed when provably ours, else named and left alone
true &
dead=$!
wait $dead
mkdir -m 700 tmp/allocbuild-check-$dead-AAAAAA tmp/allocbuild-check-$dead-BBBBBB
echo x >tmp/allocbuild-check-$dead-AAAAAA/file
mkdir -p tmp/allocbuild-check-$dead-AAAAAA/ro && chmod 555 tmp/allocbuild-check-$dead-AAAAAA/ro
chmod 755 tmp/allocbuild-check-$dead-BBBBBB
mkdir -m 700 elsewhere
echo keep >elsewhere/keep
ln -s "$PWD/elsewhere" tmp/allocbuild-check-$dead-CCCCCC
# a live process's tree is never touched
mkdir -m 700 tmp/allocbuild-check-$$-DDDDDD
expect_exit 0 "$AB" fetch --check-patches recipe/r.json
echo "up: 1 patch applies" | expect_file out
grep -e ' removed ' -e ' warning: ' err | LC_ALL=C sort >err.sorted
LC_ALL=C sort >want <<X
allocbuild: removed '$PWD/tmp/allocbuild-check-$dead-AAAAAA', left by an interrupted fetch --check-patches (pid $dead)
allocbuild: warning: '$PWD/tmp/allocbuild-check-$dead-BBBBBB' is named like the temporary of an interrupted fetch --check-patches but is not provably one (mode 0755, not 0700): left alone
allocbuild: warning: '$PWD/tmp/allocbuild-check-$dead-CCCCCC' is named like the temporary of an interrupted fetch --check-patches but is not provably one (a symbolic link): left alone
X
diff -u want err.sorted || fail "the stale trees are not reported as expected"
[ ! -e tmp/allocbuild-check-$dead-AAAAAA ] || fail "our own stale tree was not removed"
[ -d tmp/allocbuild-check-$dead-BBBBBB ] && [ -L tmp/allocbuild-check-$dead-CCCCCC ] || fail "a tree not provably ours was removed"
[ "$(cat elsewhere/keep)" = keep ] || fail "the link's target was touched"
[ -d tmp/allocbuild-check-$$-DDDDDD ] || fail "a live process's tree was removed"
