#!/usr/bin/env bash
# relink: link.txt lines that cannot be split exactly as both a shell and
# CMake would are refused with FILE:LINE:COL, exit 2, and nothing is written.
. "$TOP/tests/lib.sh"

D=build/src/CMakeFiles/x-bin.dir
mkdir -p $D build/lib
: >build/lib/libjemalloc_pic.a
: >other.a
n=0
# bad TEXT MESSAGE: TEXT as link.txt (printf format) must be refused with MESSAGE
bad() {
	n=$((n + 1))
	printf "$1" >$D/link.txt
	expect_exit 2 "$AB" relink --link-txt $D/link.txt --replace ../lib/libjemalloc_pic.a=other.a --output rl/x
	echo "$D/link.txt:$2" | expect_file err
	[ ! -s out ] || fail "case $n: stdout not empty"
	[ ! -e rl ] || fail "case $n: something was written"
	
}
L='/usr/bin/cc "CMakeFiles/x-bin.dir/main.c.o" -o ../bin/x ../lib/libjemalloc_pic.a'
bad "$L 'unbalanced\n" "1:82: unbalanced single quote"
bad "$L\n\n$L \"unbalanced\n" "3:82: unbalanced double quote"
bad "$L && strip ../bin/x\n" "1:82: shell operator '&&' is not supported"
bad "$L; strip ../bin/x\n" "1:81: shell operator ';' is not supported"
bad "$L | tee log\n" "1:82: shell operator '|' is not supported"
bad "$L >log\n" "1:82: redirection '>' is not supported"
bad "$L 2>log\n" "1:82: redirection '2>' is not supported"
bad "$L <in\n" "1:82: redirection '<' is not supported"
bad "$L \$(pkg-config --libs z)\n" "1:82: command substitution '\$(' is not supported"
bad "$L \`pkg-config --libs z\`\n" "1:82: command substitution '\`' is not supported"
bad "$L \$LDFLAGS\n" "1:82: variable expansion '\$LDFLAGS' is not supported"
bad "$L \"\${LIBS}\"\n" "1:83: variable expansion '\${' is not supported"
bad "$L *.o\n" "1:82: unquoted glob character '*' is not supported"
bad "$L ~/lib.a\n" "1:82: tilde expansion '~' is not supported"
bad "$L \\\\\n" "1:82: backslash at the end of a line is not supported"
bad "$L \"a\\\\b\"\n" "1:84: backslash before 'b' inside double quotes is not supported"
bad "$L\r\n" "1:81: carriage return is not supported"
bad "MALLOC_CONF=x $L\n" "1:1: variable assignment 'MALLOC_CONF=' in command position is not supported"
[ $n -ge 10 ] || fail "only $n cases"

# a well-formed file that is not a link command
printf '/usr/bin/ar qc libx.a a.o\n/usr/bin/ranlib libx.a\n' >$D/link.txt
expect_exit 2 "$AB" relink --link-txt $D/link.txt --replace a.o=other.a --output rl/x
echo "allocbuild: $D/link.txt: 2 commands; a relink needs exactly one link command" | expect_file err
printf '/usr/bin/cc a.o ../lib/libjemalloc_pic.a\n' >$D/link.txt
expect_exit 2 "$AB" relink --link-txt $D/link.txt --replace ../lib/libjemalloc_pic.a=other.a --output rl/x
echo "allocbuild: $D/link.txt:1: the link command has no '-o'" | expect_file err
printf '' >$D/link.txt
expect_exit 2 "$AB" relink --link-txt $D/link.txt --replace ../lib/libjemalloc_pic.a=other.a --output rl/x
echo "allocbuild: $D/link.txt: 0 commands; a relink needs exactly one link command" | expect_file err
# a link.txt outside CMakeFiles/<target>.dir needs --build-dir
printf '%s\n' "$L" >link.txt
expect_exit 2 "$AB" relink --link-txt link.txt --replace ../lib/libjemalloc_pic.a=other.a --output rl/x
echo "allocbuild: cannot tell the build directory of 'link.txt': expected .../CMakeFiles/<target>.dir/link.txt (give --build-dir)" |
	expect_file err
expect_exit 2 "$AB" relink --link-txt missing.txt --replace a=b --output rl/x
echo "allocbuild: cannot open 'missing.txt': No such file or directory" | expect_file err
# usage errors
expect_exit 2 "$AB" relink --link-txt link.txt --output rl/x
expect_grep "allocbuild: relink: at least one --replace OLD=NEW (or --layout-seed N) is required" err
expect_exit 2 "$AB" relink --link-txt link.txt --replace nothing --output rl/x
expect_grep "allocbuild: relink: --replace 'nothing': expected OLD=NEW" err
expect_exit 2 "$AB" relink --link-txt link.txt --replace a=b
expect_grep "allocbuild: relink: --output is required" err
[ ! -e rl ] || fail "something was written"
