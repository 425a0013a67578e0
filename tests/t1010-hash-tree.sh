#!/usr/bin/env bash
# hash: a directory's dirHash equals the in-toto pipeline bit for bit
. "$TOP/tests/lib.sh"

# the literal pipeline (only well defined when names hold no blanks,
# quotes, backslashes or newlines) and its NUL-safe equivalent
pipeline() {
	(cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum) |
		sed "s|  -\$|  $1|"
}
pipeline0() {
	(cd "$1" && find . -type f -print0 | cut -z -c3- | LC_ALL=C sort -z |
		xargs -0 -r sha256sum -- | sha256sum) | sed "s|  -\$|  $1|"
}

# a plain tree: both pipelines agree with allocbuild
mkdir -p plain/a/b/c plain/a-b plain/emptydir/deeper
for i in 1 2 3 4 5 6 7 8 9 10; do
	printf 'file %s\n' "$i" >plain/a/f$i
	printf 'deep %s\n' "$i" >plain/a/b/c/g$i
done
printf 'x' >plain/a-b/x
printf 'y' >plain/a.b
printf 'z' >plain/.hidden
: >plain/empty
head -c 3000000 /dev/urandom >plain/a/big
pipeline plain >want
pipeline0 plain >want0
expect_file want0 <want
expect_exit 0 "$AB" hash plain
expect_file out <want
expect_exit 0 "$AB" hash -j 1 plain
expect_file out <want
expect_exit 0 "$AB" hash -j 7 plain
expect_file out <want

# odd names: spaces, unicode, backslash, newline, carriage return, bytes
# above 0x7f that sort after '/', names that sort differently as paths
t=odd
mkdir -p "$t/d 1/sub" "$t/ü" "$t/a" "$t/A" "$t/empty/dirs/only"
printf 'a' >"$t/d 1/sub/x y"
printf 'b' >"$t/$(printf 'new\nline')"
printf 'c' >"$t/back\\slash"
printf 'd' >"$t/$(printf 'c\rr')"
printf 'e' >"$t/ü/é"
printf 'f' >"$t/a-b"
printf 'g' >"$t/a/b"
printf 'h' >"$t/A/b"
printf 'i' >"$t/$(printf '\377high')"
printf 'j' >"$t/$(printf 'sub\\dir\nx')"
printf 'k' >"$t/'quote\""
printf 'l' >"$t/~tilde"
printf 'm' >"$t/-n"
printf 'n' >"$t/--help"
# excluded: symlinks to files and directories, dangling symlinks, a fifo, a socket
ln -s a-b "$t/link-to-file"
ln -s ü "$t/link-to-dir"
ln -s nowhere "$t/dangling"
mkfifo "$t/fifo"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$t/sock"
pipeline0 "$t" >want
expect_exit 0 "$AB" hash "$t"
expect_file out <want
# the escaped lines are really in the hashed input
(cd "$t" && find . -type f -print0 | cut -z -c3- | LC_ALL=C sort -z | xargs -0 -r sha256sum --) >lines
c_sha=$(printf c | sha256sum | cut -c1-64)
expect_grep "\\$c_sha  back\\\\slash" lines
grep -q '^\\.*  new\\nline$' lines || fail "escaped newline line missing"
grep -q "sock\|fifo\|link-to\|dangling" lines && fail "special file hashed"

# a tree whose only entries are symlinks, a fifo and empty directories hashes
# like the empty tree: xargs -r runs nothing, sha256sum hashes empty input
mkdir -p nofiles/e1/e2
ln -s /etc/passwd nofiles/link
mkfifo nofiles/fifo
mkdir emptytree
empty_sha=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
printf '%s  nofiles\n%s  emptytree\n' $empty_sha $empty_sha >want
expect_exit 0 "$AB" hash nofiles emptytree
expect_file out <want
pipeline nofiles >want
expect_file want <<EOT
$empty_sha  nofiles
EOT

# a symlink to a directory as argument is followed, like `cd DIR`
ln -s plain plainlink
pipeline plain | sed 's/plain$/plainlink/' >want
expect_exit 0 "$AB" hash plainlink
expect_file out <want

# files and trees mixed, in argument order
{ sha256sum plain/a/f1; pipeline plain; sha256sum plain/a-b/x; } >want
expect_exit 0 "$AB" hash plain/a/f1 plain plain/a-b/x
expect_file out <want

# a directory path with a backslash is escaped like a file name
mkdir 'dir\x'
printf 'q' >'dir\x/q'
printf '\\%s  dir\\\\x\n' "$(pipeline0 'dir\x' | cut -c1-64)" >want
expect_exit 0 "$AB" hash 'dir\x'
expect_file out <want
