#!/usr/bin/env bash
# issue 18, item 7: nothing is read without bound. A recipe, a link.txt and
# a response file are read only when they are regular files of at most
# 16 MiB; verify never opens a fifo that replaced an artifact. Each case
# runs under a memory limit and a timeout, so that an unbounded read fails
# the test instead of the machine.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

bounded() { # exit-code CMD...: expect_exit with 1 GiB of address space (not under ASan, which
	# reserves terabytes of it) and 20 seconds
	local want=$1
	shift
	expect_exit "$want" timeout 20 bash -c '[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 1048576; exec "$@"' _ "$@"
}

# recipes
bounded 2 "$AB" validate /dev/zero
expect_file err <<'X'
allocbuild: '/dev/zero' is not a regular file
X
mkfifo fifo.json
bounded 2 "$AB" validate fifo.json
expect_grep "'fifo.json' is not a regular file" err
python3 -c 'import sys; sys.stdout.write("{\"recipe\": 1, \"name\": \"" + "x" * (16 << 20) + "\"}")' >big.json
bounded 2 "$AB" validate big.json
expect_grep "'big.json' is larger than 16777216 bytes" err
python3 -c 'import sys; sys.stdout.write("{\"recipe\": 1, \"name\": \"" + "x" * ((16 << 20) - 40) + "\"}")' >fits.json
bounded 2 "$AB" validate fits.json
expect_no_grep "larger than" err

# link.txt and response files
D=build/CMakeFiles/x.dir
mkdir -p $D && : >build/liba.a && : >other.a
echo '/usr/bin/cc -o x liba.a @/dev/zero' >$D/link.txt
bounded 2 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
expect_grep "'/dev/zero' is not a regular file" err
mkfifo build/objs.rsp
echo '/usr/bin/cc -o x liba.a @objs.rsp' >$D/link.txt
bounded 2 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
expect_grep "objs.rsp' is not a regular file" err
rm build/objs.rsp
head -c $(((16 << 20) + 1)) /dev/zero | tr '\0' 'a' >build/objs.rsp
bounded 2 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
expect_grep "objs.rsp' is larger than 16777216 bytes" err
rm $D/link.txt && mkfifo $D/link.txt
bounded 2 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
expect_grep "link.txt' is not a regular file" err
[ ! -e rl ] || fail "a refused relink wrote something"

# verify: an artifact replaced by a fifo is reported, not waited for
make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
rm bo/variants/t1/build/bin/fake && mkfifo bo/variants/t1/build/bin/fake
bounded 1 "$AB" verify bo
grep -qE '^variants/t1/build/bin/fake: expected [0-9a-f]{64}, actual not a regular file$' out || { cat out; fail "the fifo was not named"; }
