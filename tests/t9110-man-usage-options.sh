#!/usr/bin/env bash
# The man page cannot drift from the commands: every command's options in
# its usage (allocbuild help CMD) are the options of its synopses in
# docs/allocbuild.1, both ways (tests/man-usage.py). And the common
# options hold for every command: each whose usage takes -o also takes
# --output, and each takes -h/--help.
. "$TOP/tests/lib.sh"

python3 "$TOP/tests/man-usage.py" "$AB" "$TOP/docs/allocbuild.1" >drift.txt 2>&1 ||
	{ cat drift.txt; fail "the man page and the usages differ"; }
"$AB" help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' >commands
[ "$(wc -l <commands)" -ge 18 ] || fail "help lists $(wc -l <commands) commands"
while read -r c; do
	"$AB" help "$c" >usage 2>&1 || fail "help $c failed"
	"$AB" "$c" --help >usage2 2>&1 || fail "$c --help failed"
	cmp -s usage usage2 || fail "$c --help is not help $c"
	# --output is -o: the same answer, whatever it is (here: what is missing besides it)
	if sed '/^$/q' usage | grep -q -- '\[-o '; then
		r1=0 r2=0
		"$AB" "$c" -o "$PWD/no/such" >/dev/null 2>err1 || r1=$?
		"$AB" "$c" --output "$PWD/no/such" >/dev/null 2>err2 || r2=$?
		check "$c: --output exits as -o does ($r1)" test "$r1" = "$r2"
		check "$c: --output is said of as -o is" cmp -s err1 err2
		expect_no_grep "unknown option" err2
	fi
done <commands
