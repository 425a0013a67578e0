#!/usr/bin/env bash
# The sandbox needs unprivileged user namespaces, nothing more: a build run
# as an unprivileged user (nobody, through setpriv, when this test runs as
# root) is sandboxed like root's. Where the kernel refuses user namespaces
# (user.max_user_namespaces=0: set for the whole machine when it may be,
# and restored; else inside a user namespace of the test's, where the
# setting is its own), the build stops before anything runs, with one
# message that names the cause and the two ways out, and writes nothing:
# never a build without its sandbox, unless asked.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json

# ---- as nobody
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 0777 nob
	cp r.json nob/
	cp -r mirror nob/
	chmod -R a+rX . && chmod 0777 nob
	expect_exit 0 setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$PWD/nob" \
		XDG_CACHE_HOME="$PWD/nob/cache" "$AB" build -j 2 --mirror-dir "$PWD/nob/mirror" -o "$PWD/nob/o" "$PWD/nob/r.json"
	[ "$(stat -c %U nob/o/variants/t1/build/lib/libfake.a)" = nobody ] || fail "not built as nobody"
	[ "$(json nob/o/provenance/build-commands.json '[v["sandbox"]["enabled"] for v in d["variants"]]')" = "[True]" ] ||
		fail "nobody's build was not sandboxed"
else
	echo "skipped: building as nobody needs root to switch to nobody" >&2
fi

# ---- user namespaces refused
want_refusal() { # stderr file
	expect_grep "allocbuild: the build sandbox cannot start: user namespaces are disabled (user.max_user_namespaces=0) (bwrap said: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)); allow unprivileged user namespaces (docs/build.md, \"Sandbox\") or build without the sandbox (--no-sandbox, or \"sandbox\": false in a variant; recorded as such)" "$1"
	[ "$(wc -l <"$1")" = 1 ] || { cat "$1"; fail "more than the one message"; }
}
old=$(cat /proc/sys/user/max_user_namespaces)
if [ "$(id -u)" = 0 ] && (echo "$old" >/proc/sys/user/max_user_namespaces) 2>/dev/null; then
	trap 'echo "$old" >/proc/sys/user/max_user_namespaces' EXIT
	echo 0 >/proc/sys/user/max_user_namespaces
	expect_exit 2 "$AB" build -j 2 --mirror-dir mirror -o refused r.json
	echo "$old" >/proc/sys/user/max_user_namespaces
else
	# this machine's setting is not ours to change: the test's own user namespace has its own
	expect_exit 2 unshare --user --map-root-user sh -c \
		'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' _ "$AB" build -j 2 --mirror-dir mirror -o refused r.json
fi
want_refusal err
[ ! -e refused ] || fail "a refused build wrote $(find refused)"
[ ! -s out ] || fail "stdout: $(cat out)"
# the same, said by plan? plan runs nothing: it only shows what would run
expect_exit 0 "$AB" plan -o refused r.json
expect_grep "sandbox: its own user, mount, network (loopback only), PID, IPC and UTS namespaces" out
# and --no-sandbox builds, saying so in every record
if [ "$(id -u)" = 0 ] && (echo "$old" >/proc/sys/user/max_user_namespaces) 2>/dev/null; then
	echo 0 >/proc/sys/user/max_user_namespaces
	expect_exit 0 "$AB" build --no-sandbox -j 2 --mirror-dir mirror -o plain r.json
	echo "$old" >/proc/sys/user/max_user_namespaces
else
	expect_exit 0 unshare --user --map-root-user sh -c \
		'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' _ "$AB" build --no-sandbox -j 2 --mirror-dir mirror -o plain r.json
fi
[ "$(json plain/provenance/build-commands.json '[(v["sandbox"]["enabled"], v["sandbox"]["reason"]) for v in d["variants"]]')" = \
	"[(False, 'built with --no-sandbox')]" ]
[ "$(json plain/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["externalParameters"]["options"]["sandbox"]')" = False ]
