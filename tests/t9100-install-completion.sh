#!/usr/bin/env bash
# make install DESTDIR=...: the binary, the man page, docs/ (which the man
# page cites) with dsse-verify.py executable, the shipped recipes with the
# projects beside them, and bash completion, exactly these files; make
# uninstall removes every one. The installed completion, sourced in bash,
# completes commands, a command's options (read from its usage), the
# labels of an OUTDIR and files.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

D=$PWD/dest
make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr >make.out 2>&1 || { cat make.out; fail "make install failed"; }
(cd "$D" && find . -type f -printf '%m %p\n' | LC_ALL=C sort) >installed
{
	echo "755 ./usr/bin/allocbuild"
	(cd "$TOP/recipes" && find . -type f ! -name '.*' | LC_ALL=C sort | sed 's,^\./,644 ./usr/share/allocbuild/recipes/,')
	echo "644 ./usr/share/bash-completion/completions/allocbuild"
	for f in "$TOP"/docs/*.md; do echo "644 ./usr/share/doc/allocbuild/${f##*/}"; done
	echo "755 ./usr/share/doc/allocbuild/dsse-verify.py"
	echo "644 ./usr/share/man/man1/allocbuild.1"
} | LC_ALL=C sort -k2 >want
sort -k2 installed | expect_file want
cmp "$TOP/allocbuild" "$D/usr/bin/allocbuild" || fail "the installed binary is not the built one"
make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr >make.out 2>&1 || { cat make.out; fail "make uninstall failed"; }
[ -z "$(find "$D" -type f)" ] || { find "$D" -type f; fail "make uninstall left files"; }

# the completion, as bash loads it, against the binary under test
make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr >make.out 2>&1
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
--key --require-all
--require-all
a
a
r.json
X
expect_file got <want
