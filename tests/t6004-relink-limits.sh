#!/usr/bin/env bash
# issue 18, item 15: a link command the kernel would refuse (E2BIG) is
# refused before any -l is resolved against its -L directories (100k of
# them took 48 s); a self-including response file is reported once.
. "$TOP/tests/lib.sh"

D=build/CMakeFiles/x.dir
mkdir -p $D && : >build/liba.a && : >other.a
python3 - $D/link.txt <<'PY'
import sys
args = " ".join("-L/nonexistent/dir%06d" % i for i in range(100000))
open(sys.argv[1], "w").write("/usr/bin/cc -o x liba.a %s -lfoo\n" % args)
PY
start=$(date +%s)
expect_exit 2 timeout 20 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
[ $(($(date +%s) - start)) -lt 10 ] || fail "the refusal took $(($(date +%s) - start)) s"
grep -qE "^allocbuild: $D/link.txt:1: 100005 arguments \([0-9]+ bytes with the environment\) are more than the system's limit of [0-9]+ bytes$" err ||
	{ cat err; fail "the argument count was not named"; }
[ ! -e rl ] || fail "something was written"

# one argument longer than the kernel takes
python3 - $D/link.txt <<'PY'
import sys
open(sys.argv[1], "w").write("/usr/bin/cc -o x liba.a -Wl,--defsym=%s=0\n" % ("a" * 200000))
PY
expect_exit 2 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
expect_grep "is longer than the system's limit of" err

# a response file that includes itself: said once
echo '@self.rsp' >build/self.rsp
echo '/usr/bin/cc -o x liba.a @self.rsp' >$D/link.txt
expect_exit 2 "$AB" relink --link-txt $D/link.txt --replace liba.a=other.a --output rl/x
expect_file err <<'X'
allocbuild: response file 'self.rsp' nests too deeply
X
