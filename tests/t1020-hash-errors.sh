#!/usr/bin/env bash
# hash: usage errors and unreadable paths, with their exact messages; like
# sha256sum, the paths that can be hashed are still printed, exit status 2
. "$TOP/tests/lib.sh"

printf 'one\n' >one
printf 'two\n' >two

expect_exit 2 "$AB" hash
[ ! -s out ] || fail "stdout not empty"
expect_file err <<'EOT'
allocbuild: hash: no path given
Try 'allocbuild help hash'.
EOT

for bad in 0 -1 x 3x 100000; do
	expect_exit 2 "$AB" hash -j "$bad" one
	[ ! -s out ] || fail "stdout not empty"
	expect_file err <<EOT
allocbuild: hash: invalid job count '$bad'
Try 'allocbuild help hash'.
EOT
done

expect_exit 2 "$AB" hash one -j
expect_file err <<'EOT'
allocbuild: hash: option '-j' needs a value
Try 'allocbuild help hash'.
EOT
expect_exit 2 "$AB" hash --jobs
expect_file err <<'EOT'
allocbuild: hash: option '--jobs' needs a value
Try 'allocbuild help hash'.
EOT
expect_exit 2 "$AB" hash --frobnicate one
expect_file err <<'EOT'
allocbuild: hash: unknown option '--frobnicate'
Try 'allocbuild help hash'.
EOT
expect_exit 2 "$AB" hash -x one
expect_file err <<'EOT'
allocbuild: hash: unknown option '-x'
Try 'allocbuild help hash'.
EOT
[ ! -s out ] || fail "stdout not empty"

# a missing path is reported, the others are still hashed, exit 2
sha256sum one two >want
expect_exit 2 "$AB" hash one missing two
expect_file out <want
expect_file err <<'EOT'
allocbuild: cannot open 'missing': No such file or directory
EOT
# --json: the array holds the paths that could be hashed
expect_exit 2 "$AB" hash --json missing one
expect_file err <<'EOT'
allocbuild: cannot open 'missing': No such file or directory
EOT
[ "$(json out 'len(d)')" = 1 ] || fail "json array length"

# a dangling symlink argument, as sha256sum says it
ln -s nowhere dangling
expect_exit 2 "$AB" hash dangling
expect_file err <<'EOT'
allocbuild: cannot open 'dangling': No such file or directory
EOT
[ ! -s out ] || fail "stdout not empty"

# a write error on standard output is not success
if [ -w /dev/full ]; then
	"$AB" hash one >/dev/full 2>err && fail "write error ignored"
	expect_grep "allocbuild: cannot write to standard output: No space left on device" err
fi

# unreadable files and directories inside a tree name the file; as root,
# run the binary as nobody so that permissions apply
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
	chmod 755 .
	mkdir -p tree/sub tree/locked
	printf 'ok\n' >tree/sub/ok
	printf 'secret\n' >tree/sub/secret
	printf 'x\n' >tree/locked/x
	chmod 755 tree tree/sub
	chmod 644 tree/sub/ok one
	chmod 000 tree/sub/secret tree/locked
	expect_exit 2 as_user "$AB" hash one tree/ tree/sub/secret two
	sha256sum one two >want
	expect_file out <want
	# the walk stops at the unreadable directory before any file is hashed
	expect_file err <<'EOT'
allocbuild: cannot open directory 'tree/locked': Permission denied
allocbuild: cannot open 'tree/sub/secret': Permission denied
EOT
	chmod 755 tree/locked
	expect_exit 2 as_user "$AB" hash tree
	expect_file err <<'EOT'
allocbuild: cannot open 'tree/sub/secret': Permission denied
EOT
	[ ! -s out ] || fail "stdout not empty"
	# an unreadable top directory
	chmod 000 tree
	expect_exit 2 as_user "$AB" hash tree
	expect_file err <<'EOT'
allocbuild: cannot open directory 'tree': Permission denied
EOT
	chmod 755 tree
	chmod 644 tree/sub/secret
fi
