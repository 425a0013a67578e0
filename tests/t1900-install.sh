#!/usr/bin/env bash
# make install PREFIX=... DESTDIR=...: the binary, the man page, docs/,
# the recipes and bash completion land in the right places with the right
# modes, make uninstall removes them, the installed binary runs, the man
# page renders without warnings
. "$TOP/tests/lib.sh"

# install the binary under test without rebuilding anything (-o: its rules
# are ignored), whatever build (plain or asan) it comes from
unset MAKEFLAGS MFLAGS MAKELEVEL
inst() {
	make -s -C "$TOP" --no-print-directory -o "$AB" BIN="$AB" O="${O:-.obj}" install "$@"
}

inst PREFIX=/usr DESTDIR="$PWD/stage" >log 2>&1 || { cat log >&2; fail "make install failed"; }
# exactly these files: the binary, the man page, docs/ (which the man page
# cites, dsse-verify.py and intoto-layout.py executable), the shipped recipes with the projects
# beside them, bash completion
(cd stage && find . -type f -printf '%m %p\n' | LC_ALL=C sort -k2) >installed
{
	echo "755 ./usr/bin/allocbuild"
	(cd "$TOP/recipes" && find . -type f ! -name '.*' | LC_ALL=C sort | sed 's,^\./,644 ./usr/share/allocbuild/recipes/,')
	echo "644 ./usr/share/bash-completion/completions/allocbuild"
	for f in "$TOP"/docs/*.md; do echo "644 ./usr/share/doc/allocbuild/${f##*/}"; done
	echo "755 ./usr/share/doc/allocbuild/dsse-verify.py"
	echo "755 ./usr/share/doc/allocbuild/intoto-layout.py"
	echo "644 ./usr/share/man/man1/allocbuild.1"
} | LC_ALL=C sort -k2 >want
expect_file installed <want
[ "$(stat -c %a stage/usr/bin/allocbuild)" = 755 ] || fail "binary mode"
[ "$(stat -c %a stage/usr/share/man/man1/allocbuild.1)" = 644 ] || fail "man page mode"
cmp stage/usr/bin/allocbuild "$AB" || fail "installed binary differs"
cmp stage/usr/share/man/man1/allocbuild.1 "$TOP/docs/allocbuild.1" || fail "installed man page differs"

stage/usr/bin/allocbuild --version >out
grep -qx 'allocbuild [0-9][0-9.]*' out || { cat out >&2; fail "--version"; }
expect_exit 0 stage/usr/bin/allocbuild hash /dev/null
expect_file out <<'EOT'
e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  /dev/null
EOT

# make uninstall removes every file it installed
inst PREFIX=/usr DESTDIR="$PWD/stage4" >log 2>&1 || { cat log >&2; fail "make install failed"; }
make -s -C "$TOP" --no-print-directory PREFIX=/usr DESTDIR="$PWD/stage4" uninstall >log 2>&1 ||
	{ cat log >&2; fail "make uninstall failed"; }
[ -z "$(find stage4 -type f)" ] || { find stage4 -type f >&2; fail "make uninstall left files"; }

# a PREFIX with a space, and directories that would name everything (issue 44, L3): make uninstall
# with PREFIX='/o p' deleted a file named by its first word; with DATADIR= empty, the whole DESTDIR
mkdir -p stage5/o && echo "keep me" >stage5/o/keep && echo "keep me" >"$PWD/o"
inst PREFIX="/o p" DESTDIR="$PWD/stage5" >log 2>&1 || { cat log >&2; fail "make install with a space failed"; }
check "installed under the PREFIX with a space" test -x "stage5/o p/bin/allocbuild"
make -s -C "$TOP" --no-print-directory PREFIX="/o p" DESTDIR="$PWD/stage5" uninstall >log 2>&1 ||
	{ cat log >&2; fail "make uninstall with a space failed"; }
check "uninstall removed what it installed" test -z "$(find "stage5/o p" -type f)"
check "and nothing named by a word of the PREFIX" test -f stage5/o/keep
check "nor the file ./o" test -f o
for v in DATADIR DOCDIR BINDIR; do
	rc=0
	make -s -C "$TOP" --no-print-directory PREFIX=/usr DESTDIR="$PWD/stage5" $v= uninstall >log 2>&1 || rc=$?
	check "uninstall with $v empty is refused" test $rc != 0
	check "it says why" grep -qF "$v is '': install and uninstall need a directory of their own" log
	check "and DESTDIR is still there" test -f stage5/o/keep
done

# the default PREFIX is /usr/local; BINDIR and MANDIR can be set apart
inst DESTDIR="$PWD/stage2" >log 2>&1 || { cat log >&2; fail "make install failed"; }
[ -x stage2/usr/local/bin/allocbuild ] || fail "no /usr/local/bin/allocbuild"
[ -f stage2/usr/local/share/man/man1/allocbuild.1 ] || fail "no /usr/local man page"
inst PREFIX=/opt/ab MANDIR=/opt/ab/man DESTDIR="$PWD/stage3" >log 2>&1 || { cat log >&2; fail "make install failed"; }
[ -x stage3/opt/ab/bin/allocbuild ] || fail "no /opt/ab/bin/allocbuild"
[ -f stage3/opt/ab/man/man1/allocbuild.1 ] || fail "no /opt/ab/man/man1/allocbuild.1"

# the man page renders: every command of the table has a section
if command -v groff >/dev/null; then
	groff -man -ww -z -Tutf8 stage/usr/share/man/man1/allocbuild.1 2>warnings
	[ ! -s warnings ] || { cat warnings >&2; fail "groff warnings"; }
	groff -man -Tutf8 -P-cbou stage/usr/share/man/man1/allocbuild.1 >rendered 2>/dev/null
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS 'EXIT STATUS' ENVIRONMENT FILES EXAMPLES 'SEE ALSO'; do
		grep -qx "$s" rendered || fail "section $s missing"
	done
	"$AB" help | sed -n 's/^  \([a-z-]*\) .*/\1/p' >commands
	[ -s commands ] || fail "no commands in 'allocbuild help'"
	while read -r c; do
		grep -qE "^       $c( |\$)" rendered || fail "command '$c' not in the man page"
	done <commands
	for e in ALLOCBUILD_CACHE ALLOCBUILD_MIRRORS XDG_CACHE_HOME; do
		grep -q "^       $e" rendered || fail "environment $e missing"
	done
fi
