#!/usr/bin/env bash
# issue 18, item 18: the first thing a new user sees. scripts/install-deps.sh
# prints one line naming the packages it installs and the log that gets
# apt's and dpkg's output; the log's last lines only when the install fails;
# nothing at all when nothing is missing. apt-get, dpkg-query and sudo are
# stand-ins on PATH here: nothing is installed.
. "$TOP/tests/lib.sh"

mkdir bin
cat >bin/dpkg-query <<'SH'
#!/bin/sh
# every package is installed but those named in $FAKE_MISSING
for p in "$@"; do :; done
case " $FAKE_MISSING " in *" $p "*) echo "not-installed"; exit 1 ;; esac
echo installed
SH
cat >bin/apt-get <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_CALLS"
case "$1" in
update) echo "Hit:1 http://deb.debian.org/debian bookworm InRelease" ;;
install)
	i=1
	while [ $i -le 300 ]; do
		echo "Selecting previously unselected package pkg$i."
		echo "(Reading database ... $i files and directories currently installed.)"
		echo "Unpacking pkg$i (1.0) ..."
		i=$((i + 1))
	done
	[ -z "${FAKE_FAIL:-}" ] || { echo "E: Unable to locate package $FAKE_FAIL" >&2; exit 100; } ;;
esac
SH
cat >bin/sudo <<'SH'
#!/bin/sh
exec "$@"
SH
chmod +x bin/*
export PATH="$PWD/bin:$PATH" FAKE_CALLS="$PWD/calls" TMPDIR="$PWD"

# nothing missing: silent, nothing run
FAKE_MISSING= expect_exit 0 "$TOP/scripts/install-deps.sh"
[ ! -s out ] && [ ! -s err ] || fail "output although nothing is missing"
[ ! -e calls ] || fail "apt-get ran although nothing is missing"

# two missing: one line, everything else in the log
FAKE_MISSING="cmark-gfm ccache" expect_exit 0 "$TOP/scripts/install-deps.sh"
[ ! -s out ] || fail "stdout is not empty"
[ "$(wc -l <err)" = 1 ] || { cat err; fail "more than one line"; }
log=$(sed -n 's/^install-deps: installing cmark-gfm ccache (apt and dpkg output in \(.*\))$/\1/p' err)
[ -n "$log" ] || { cat err; fail "the line does not name the packages and the log"; }
[ -f "$log" ] && grep -q '^Unpacking pkg300' "$log" || fail "apt's output is not in the log"
grep -qx "apt-get install -y -qq --no-install-recommends cmark-gfm ccache" calls || { cat calls; fail "wrong install"; }

# a failed install: the line, then the log's last lines, exit 1
FAKE_MISSING="ccache" FAKE_FAIL=ccache expect_exit 1 "$TOP/scripts/install-deps.sh"
expect_grep "install-deps: installing ccache (apt and dpkg output in " err
expect_grep "install-deps: the install failed; the last lines of " err
expect_grep "  | E: Unable to locate package ccache" err
[ "$(wc -l <err)" -le 30 ] || fail "the whole log was shown"
