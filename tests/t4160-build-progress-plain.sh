#!/usr/bin/env bash
# Progress without a live line: when stderr is not a terminal, or TERM is
# dumb, or NO_COLOR is set, a build prints a plain line when each step
# starts and when it ends, a heartbeat while a long step runs
# (ALLOCBUILD_TEST_HEARTBEAT shortens its 30 s), and no escape code; on a
# terminal with TERM=xterm the live line redraws itself with them, unless
# -v asks for every line; -q prints none.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakeproj "$PWD")
cat >r.json <<JSON
{"recipe": 1, "name": "slow",
 "sources": {"fake": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "slow", "source": "fake",
   "build": {"system": "autotools", "targets": ["all"], "env": {"FAKE_HOLD": "/allocbuild/variants/hold"}},
   "artifacts": ["lib/libfake.a"]}]}
JSON
esc=$(printf '\033')
# hold make until its heartbeat line is out (at most 60 s), however long the steps
# before it take on a loaded machine: the hold file is in OUTDIR/variants,
# /allocbuild/variants in the sandbox
held_build() { # OUT ERR ARGS...: build --force while the hold file exists, then let it go
	local out=$1 err=$2
	shift 2
	mkdir -p bo/variants && touch bo/variants/hold
	: >"$out" && : >"$err"
	(for _ in $(seq 600); do
		grep -qs "make all: running (" "$out" "$err" && break
		sleep 0.1
	done
	rm -f bo/variants/hold) &
	"$@" >"$out" 2>"$err" || { cat "$err"; fail "the build failed: $*"; }
	wait
}

# not a terminal
ALLOCBUILD_TEST_HEARTBEAT=0.5 held_build out err "$AB" build --force --mirror-dir mirror -o bo r.json
expect_grep "[4/5] slow: make all ..." err
expect_grep "[4/5] slow: make all: running (0:0" err
grep -q '^\[4/5\] slow: make all (0:0[0-9])$' err || { cat err; fail "no end line for make"; }
grep -q "$esc" err && fail "escape codes without a terminal"
# the order: started, running, ended
grep -n '^\[4/5\]' err | cut -d: -f1 >lines
[ "$(sed -n 1p lines)" -lt "$(sed -n 2p lines)" ] && [ "$(sed -n 2p lines)" -lt "$(tail -1 lines)" ] ||
	fail "the start, heartbeat and end lines are out of order"
# the default heartbeat is 30 s: a short build gets none
expect_exit 0 "$AB" build --force --mirror-dir mirror -o bo r.json
expect_no_grep "running (" err

# on a terminal: TERM=dumb and NO_COLOR get plain lines, xterm the live line
for env in "TERM=dumb" "TERM=xterm NO_COLOR=1"; do
	held_build tty.out tty.err script -qec "env $env ALLOCBUILD_TEST_HEARTBEAT=0.5 '$AB' build --force --mirror-dir mirror -o bo r.json" /dev/null
	grep -q "$esc" tty.out && fail "escape codes with $env"
	expect_grep "[4/5] slow: make all: running (0:0" tty.out
done
script -qec "env TERM=xterm NO_COLOR= '$AB' build --force --mirror-dir mirror -o bo r.json" /dev/null >tty.out 2>&1
grep -q "${esc}\[K\[4/5\] slow: make all (0:0" tty.out || fail "no live line on a terminal with TERM=xterm"
expect_no_grep "slow: make all ..." tty.out
# -v: plain lines even there; -q: no progress at all
script -qec "env TERM=xterm NO_COLOR= '$AB' build -v --force --mirror-dir mirror -o bo r.json" /dev/null >tty.out 2>&1
grep -q "$esc" tty.out && fail "escape codes with -v"
expect_grep "[4/5] slow: make all ..." tty.out
expect_exit 0 "$AB" build --force -q --mirror-dir mirror -o bo r.json
expect_no_grep "[4/5]" err
