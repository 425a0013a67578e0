#!/usr/bin/env bash
# Nothing allocbuild starts can type into the caller's terminal (issue 44,
# H2): a step that pushes characters into its controlling terminal with
# TIOCSTI (allowed by this kernel when dev.tty.legacy_tiocsti is 1) had
# them run by the caller's shell once allocbuild exited. Every child now
# leads a session of its own, with no controlling terminal: here
# allocbuild runs on a terminal of its own (script(1)) whose shell reads
# a line after allocbuild ends, and a configure step, a `run` command and
# a `probe` command each try to inject one, as root and as nobody. Each is
# told there is no terminal, and the shell reads nothing.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

command -v script >/dev/null || fail "script(1) (util-linux) is missing"
cat >inject.py <<'PY'
import fcntl, os, sys, termios
# the outcome on stdout, and appended to the file argv[1] names (probe keeps the output to itself)
def say(*what):
    print(*what)
    if len(sys.argv) > 1:
        print(*what, file=open(sys.argv[1], "a"))
try:
    fd = os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    say("inject: no terminal:", e.strerror)
    sys.exit(0)
try:
    for c in "echo INJECTED-BY-A-CHILD\n":
        fcntl.ioctl(fd, termios.TIOCSTI, c.encode())
    say("inject: done")
except OSError as e:
    say("inject: refused:", e.strerror)
PY
sha=$(make_fakeproj "$PWD")
mkdir -p p/tty
cp inject.py p/tty/
cat >p/tty/configure <<'CFG'
#!/bin/sh
python3 "$(dirname "$0")/inject.py"
printf 'all:\n\techo built >built\n' >Makefile
CFG
chmod +x p/tty/configure
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C p -czf tty.tar.gz tty
tsha=$(sha256sum tty.tar.gz | cut -c1-64)
cp tty.tar.gz mirror/sha256/$tsha
cat >r.json <<JSON
{"recipe": 1, "name": "tty",
 "sources": {"tty": {"archive": {"urls": ["https://example.invalid/tty.tar.gz"], "sha256": "$tsha", "strip": 1}}},
 "variants": [{"label": "t", "source": "tty", "build": {"system": "autotools"}, "artifacts": ["built"]}]}
JSON

# on_terminal WHO OUT CMD...: CMD on a terminal of its own (as WHO), whose
# shell then reads one line from it for 1 s (a line typed into it is
# queued by then): OUT gets CMD's output and "read:[LINE]". The terminal's
# input stays open meanwhile (a fifo held by a sleep, ended after)
on_terminal() {
	local who=$1 out=$2 as= holder
	shift 2
	[ "$who" = root ] || as="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=$PWD/nob XDG_CACHE_HOME=$PWD/nob/cache"
	rm -f tty-in && mkfifo tty-in
	sleep 60 >tty-in &
	holder=$!
	script -qec "$as $(printf '%q ' "$@") >$out.cmd 2>&1; echo \"exit:\$?\" >>$out.cmd; IFS= read -r -t 1 line; echo \"read:[\$line]\" >>$out.cmd" /dev/null <tty-in >/dev/null
	kill "$holder" 2>/dev/null || :
	wait "$holder" 2>/dev/null || :
	cat "$out.cmd" >"$out"
}

# nothing_typed WHO OUT LOG: the child was told there is no terminal, and the shell read nothing
nothing_typed() {
	check "$1: the child ran and found no terminal ($3)" grep -q '^inject: no terminal: No such device or address' "$3"
	check "$1: the shell read nothing after allocbuild" grep -qx 'read:\[\]' "$2"
}

for who in root nobody; do
	if [ $who = nobody ]; then
		if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
			echo "skipped: running as nobody needs root to switch to nobody" >&2
			continue
		fi
		mkdir -m 0777 nob
		cp -r r.json mirror inject.py nob/
		chmod -R a+rX . && chmod 0777 nob
		d=$PWD/nob
	else
		d=$PWD
	fi
	# a configure step in the build sandbox
	on_terminal $who b-$who.out "$AB" build --mirror-dir "$d/mirror" -o "$d/o" "$d/r.json"
	check "$who: the build succeeded" grep -qx 'exit:0' b-$who.out
	nothing_typed $who b-$who.out "$d/o/variants/t/logs/02-configure.log"
	# a benchmark command of `run`
	on_terminal $who r-$who.out "$AB" run "$d/o" t --name tty -- python3 "$d/inject.py"
	check "$who: the run succeeded" grep -qx 'exit:0' r-$who.out
	nothing_typed $who r-$who.out "$(ls "$d"/o/runs/tty/*.log)"
	# a program `probe` runs
	on_terminal $who p-$who.out "$AB" probe -- python3 "$d/inject.py" "$d/probe-said"
	nothing_typed $who p-$who.out "$d/probe-said"
done
