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
c compare bo --format ""
c compare bo --name ""
c compare bo --baseline ""
c verify -
SH
AB="$AB" bash complete.sh "$D/usr/share/bash-completion/completions/allocbuild" >got
cat >want <<X
complete -F _allocbuild allocbuild
verify
sign
--help --json --key --policy --quiet --rebuilt --rebuilt-key --require-all --sign --signing-key --verbose
--rebuilt --rebuilt-key --require-all
a
a
r.json
table csv json md

a
--help --json --key --policy --quiet --rebuilt --rebuilt-key --require-all --sign --signing-key --verbose -h -o -q -v
X
expect_file got <want

# a received OUTDIR's labels are data, never code (issue 44, H5): compgen -W
# expanded them, so TAB on a hand-edited build-commands.json ran its $(...);
# only what a recipe may call a label is offered, and nothing runs
cp -r bo evil
python3 - evil/provenance/build-commands.json "$PWD/pwned" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["variants"][0]
for l in ["$(touch %s)" % sys.argv[2], "`touch %s`" % sys.argv[2], "a;b", "..", "ok-2.x"]:
    d["variants"].append(dict(v, label=l))
json.dump(d, open(sys.argv[1], "w"))
PY
cat >complete2.sh <<'SH'
source "$1"
c() { COMP_WORDS=("$AB" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _allocbuild; printf '%s\n' "${COMPREPLY[*]}"; }
c env evil ""
c env evil '$'
c run evil o
SH
AB="$AB" bash complete2.sh "$D/usr/share/bash-completion/completions/allocbuild" >got2
check "completion ran nothing it read" not test -e pwned
printf 'a ok-2.x\n\nok-2.x\n' | expect_file got2
