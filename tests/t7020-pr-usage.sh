#!/usr/bin/env bash
# pr: refused options and values, each named once, exit 2, nothing written.
. "$TOP/tests/lib.sh"

mkdir out0
check() { # EXPECTED-MESSAGE ARGS...
	local want=$1
	shift
	expect_exit 2 "$AB" pr "$@"
	printf 'allocbuild: pr: %s\nTry '\''allocbuild help pr'\''.\n' "$want" | expect_file err
	expect_file out </dev/null
}
check "unknown option '-x'" -x out0
check "unknown option '--bogus'" --bogus out0
check "option '--limit' needs a value" out0 --limit
check "option '--output' needs a value" out0 --output
check "--limit: '1023' is not a whole number from 1024 to 2147483647" --limit 1023 out0
check "--limit: '99999999999' is not a whole number from 1024 to 2147483647" --limit 99999999999 out0
check "--limit: '4k' is not a whole number from 1024 to 2147483647" --limit 4k out0
check "expected one OUTDIR"
check "expected one OUTDIR" out0 out0
expect_exit 2 "$AB" pr missing
echo "allocbuild: pr: 'missing' is not a directory" | expect_file err
[ -z "$(ls -A out0)" ] || fail "pr wrote into out0: $(ls -A out0)"
