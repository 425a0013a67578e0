# The CLI's basic contract: help, --help on every command, --version, exit codes.
. "$TOP/tests/lib.sh"

expect_exit 0 "$AB" --version
grep -qE '^allocbuild [0-9]+\.[0-9]+\.[0-9]+$' out || fail "bad --version: $(cat out)"

expect_exit 0 "$AB" help
mv out help.txt
expect_grep "Commands:" help.txt
for c in validate plan hash fetch build probe upstream-diff identify relink verify env run compare pr; do
	expect_grep "  $c " help.txt
	expect_exit 0 "$AB" "$c" --help
	head -n 1 out | grep -q "^usage: allocbuild $c" || fail "$c --help: $(head -n 1 out)"
	expect_exit 0 "$AB" help "$c"
done

expect_exit 2 "$AB"
expect_grep "usage: allocbuild <command>" err
expect_exit 2 "$AB" frobnicate
expect_file err <<'X'
allocbuild: unknown command 'frobnicate'
Try 'allocbuild help'.
X
expect_exit 2 "$AB" help frobnicate
expect_file err <<'X'
allocbuild: help: unknown command 'frobnicate'
X

# a write error on stdout is not success
if [ -w /dev/full ]; then
	rc=0
	"$AB" help >/dev/full 2>err || rc=$?
	[ "$rc" = 2 ] || fail "help >/dev/full exited $rc"
	expect_grep "cannot write to standard output" err
fi
