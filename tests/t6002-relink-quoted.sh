#!/usr/bin/env bash
# relink: a link.txt with quoted paths containing spaces, a backslash-escaped
# '$' (as CMake writes it), a response file; a link.txt outside CMakeFiles
# with --build-dir. Small C objects, no allocator build.
. "$TOP/tests/lib.sh"

B="$PWD/b d"
D="$B/src/CMakeFiles/x-bin.dir"
mkdir -p "$D" "$B/bin dir" "lib dir\$1" "new lib"
cat >main.c <<'EOF2'
int f(void);
int g(void);
int main(void) { return f() * 10 + g(); }
EOF2
echo 'int g(void) { return 3; }' >g.c
echo 'int f(void) { return 1; }' >f1.c
echo 'int f(void) { return 2; }' >f2.c
cc -c -o "$D/main.c.o" main.c
cc -c -o "$D/extra obj.o" g.c
cc -c -o f1.o f1.c && ar qc "lib dir\$1/libf.a" f1.o
cc -c -o f2.o f2.c && ar qc "new lib/libf.a" f2.o
cp "new lib/libf.a" f2.a.saved
printf '"CMakeFiles/x-bin.dir/extra obj.o"\n' >"$D/objs.rsp"
# as CMake writes it: double quotes, '$' escaped with a backslash
printf '%s\n' "/usr/bin/cc \"CMakeFiles/x-bin.dir/main.c.o\" @CMakeFiles/x-bin.dir/objs.rsp -o \"../bin dir/x\"  \"$PWD/lib dir\\\$1/libf.a\" -lm " >"$D/link.txt"
cp "$D/link.txt" link.txt.orig
# the normal link, run as CMake would
(cd "$B/src" && /usr/bin/cc CMakeFiles/x-bin.dir/main.c.o @CMakeFiles/x-bin.dir/objs.rsp -o "../bin dir/x" "$PWD/../../lib dir\$1/libf.a" -lm)
rc=0; "$B/bin dir/x" || rc=$?
[ $rc = 13 ] || fail "normal binary exit $rc"

expect_exit 0 "$AB" relink --link-txt "$D/link.txt" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" --output "rl/x y"
rc=0; "rl/x y" || rc=$?
[ $rc = 23 ] || fail "relinked binary exit $rc"
cmp -s link.txt.orig "$D/link.txt" || fail "link.txt modified"
P=rl/relink-provenance.json
[ "$(json $P 'd["argv_before"]')" = "['/usr/bin/cc', 'CMakeFiles/x-bin.dir/main.c.o', '@CMakeFiles/x-bin.dir/objs.rsp', '-o', '../bin dir/x', '$PWD/lib dir\$1/libf.a', '-lm']" ] ||
	fail "argv_before: $(json $P 'd["argv_before"]')"
[ "$(json $P 'd["argv_after"][5]')" = "$PWD/new lib/libf.a" ] || fail "argv_after"
[ "$(json $P 'd["cwd"]')" = "$B/src" ] || fail "cwd"
[ "$(json $P 'd["normal_output"]["path"]')" = "$B/bin dir/x" ] || fail "normal output"
# the response file is an input, and so is what it names
[ "$(json $P '[(i["before"]["kind"], i["before"]["via"]) for i in d["inputs"] if i["argv_index"] == 2]')" = \
	"[('response-file', 'argv'), ('object', 'response file CMakeFiles/x-bin.dir/objs.rsp')]" ] ||
	fail "response file inputs: $(json $P 'd["inputs"]')"
[ "$(json $P 'd["verdict"]')" = "only these inputs differ: $PWD/lib dir\$1/libf.a -> $PWD/new lib/libf.a" ] ||
	fail "verdict: $(json $P 'd["verdict"]')"

# --check-normal: a changed input of the normal link is noticed (warning, recorded)
cp "$D/extra obj.o" extra.saved
echo 'int g(void) { return 4; }' >g.c
cc -c -o "$D/extra obj.o" g.c
expect_exit 0 "$AB" relink --link-txt "$D/link.txt" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" --output rl4/x --check-normal
expect_grep "allocbuild: warning: linking the normal command again does not reproduce '$B/bin dir/x': its inputs or the toolchain changed since the normal build" err
[ "$(json rl4/relink-provenance.json 'd["normal_check"]["identical"]')" = False ] || fail "normal check not false"
cp extra.saved "$D/extra obj.o"
expect_exit 0 "$AB" relink --link-txt "$D/link.txt" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" --output rl4/x --check-normal
expect_no_grep "warning" err
[ "$(json rl4/relink-provenance.json 'd["normal_check"]["identical"]')" = True ] || fail "normal check not true"
ls -A rl4 >ls-rl4
printf 'relink-provenance.json\nx\n' | expect_file ls-rl4

# the output must not be one of the inputs
expect_exit 2 "$AB" relink --link-txt "$D/link.txt" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" --output "new lib/libf.a"
echo "allocbuild: output 'new lib/libf.a' is an input of the link ('$PWD/new lib/libf.a'): choose another path" | expect_file err
cmp -s "new lib/libf.a" f2.a.saved || fail "input overwritten"

# an archive named only inside a response file cannot be replaced
printf '"%s"\n' "$PWD/lib dir\\\$1/libf.a" >"$D/libs.rsp"
printf '%s\n' "/usr/bin/cc CMakeFiles/x-bin.dir/main.c.o @CMakeFiles/x-bin.dir/objs.rsp @CMakeFiles/x-bin.dir/libs.rsp -o x" >"$D/link.txt"
expect_exit 2 "$AB" relink --link-txt "$D/link.txt" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" --output rl2/x
echo "allocbuild: $D/link.txt:1: replacement '$PWD/lib dir\$1/libf.a' is named only inside response file 'CMakeFiles/x-bin.dir/libs.rsp': replacing inside response files is not supported" |
	expect_file err
[ ! -e rl2 ] || fail "something written"

# a missing input of the normal link is reported before linking
printf '%s\n' "/usr/bin/cc CMakeFiles/x-bin.dir/gone.o \"$PWD/lib dir\\\$1/libf.a\" -o x" >"$D/link.txt"
expect_exit 2 "$AB" relink --link-txt "$D/link.txt" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" --output rl2/x
echo "allocbuild: link input 'CMakeFiles/x-bin.dir/gone.o' (argv) in '$B/src': No such file or directory" | expect_file err
[ ! -e rl2/x ] && [ ! -e rl2/relink-provenance.json ] || fail "something written"

# --build-dir for a link.txt kept elsewhere
cp link.txt.orig elsewhere.txt
expect_exit 0 "$AB" relink --link-txt elsewhere.txt --build-dir "$B/src" --replace "$PWD/lib dir\$1/libf.a=new lib/libf.a" \
	--output rl3/x --provenance rl3/p.json
rc=0; rl3/x || rc=$?
[ $rc = 23 ] || fail "relinked binary (--build-dir) exit $rc"
[ "$(json rl3/p.json 'd["link_txt"]["path"]')" = elsewhere.txt ] || fail "link_txt path"
