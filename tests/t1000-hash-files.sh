#!/usr/bin/env bash
# hash: lines for files are byte-identical to GNU sha256sum's, including
# its escaping of names holding a backslash, newline or carriage return
. "$TOP/tests/lib.sh"

printf 'hello\n' >plain
: >empty
printf 'spaces\n' >'with space'
printf 'back\n' >'back\slash'
printf 'nl\n' >"$(printf 'new\nline')"
printf 'cr\n' >"$(printf 'carriage\rreturn')"
printf 'uni\n' >'ünïcødé'
printf 'tab\n' >"$(printf 'ta\tb')"
head -c 1000000 /dev/urandom >random
ln -s plain link
mkdir d
printf 'nested\n' >d/nested

set -- plain empty 'with space' 'back\slash' "$(printf 'new\nline')" \
	"$(printf 'carriage\rreturn')" 'ünïcødé' "$(printf 'ta\tb')" random link \
	d/nested ./plain "$PWD/plain"
sha256sum -- "$@" >want
expect_exit 0 "$AB" hash -- "$@"
expect_file out <want
[ ! -s err ] || fail "unexpected stderr"

# the same with one job; options may follow paths, as for sha256sum
expect_exit 0 "$AB" hash "$@" -j 1
expect_file out <want

# standard input is '-', as for sha256sum
printf 'from stdin\n' | sha256sum >want
printf 'from stdin\n' | "$AB" hash - >out
expect_file out <want

# special files are read like sha256sum reads them
sha256sum /dev/null >want
expect_exit 0 "$AB" hash /dev/null
expect_file out <want
