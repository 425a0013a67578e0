#!/usr/bin/env bash
# Bash completion as make install installs it (t1900 checks the files):
# sourced in bash, it completes commands, a command's options (read from
# its usage), the labels of an OUTDIR and files.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

# installed as t1900 installs it: the binary under test, nothing rebuilt
unset MAKEFLAGS MFLAGS MAKELEVEL
D=$PWD/dest
make -s -C "$TOP" --no-print-directory -o "$AB" BIN="$AB" O="${O:-.obj}" install PREFIX=/usr DESTDIR="$D" >make.out 2>&1 ||
	{ cat make.out; fail "make install failed"; }

# the completion, as bash loads it, against the binary under test
fake_build comp lib/libfake.a
cat >complete.sh <<'SH'
source "$1"
complete -p allocbuild
c() { COMP_WORDS=("$AB" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _allocbuild; printf '%s\n' "${COMPREPLY[*]}"; }
c ve
c help si
c verify --
c verify --re
c env bo ""
c run bo a
c verify r.j
SH
AB="$AB" bash complete.sh "$D/usr/share/bash-completion/completions/allocbuild" >got
cat >want <<X
complete -F _allocbuild allocbuild
verify
sign
--json --key --policy --rebuilt --rebuilt-key --require-all --sign --signing-key
--rebuilt --rebuilt-key --require-all
a
a
r.json
X
expect_file got <want
