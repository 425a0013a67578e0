#!/usr/bin/env bash
# What a sandboxed build cannot reach (docs/build.md, "Sandbox"): a
# configure step that fetches from a web server of this host
# (python3 -m http.server on 127.0.0.1, started and stopped by pid here,
# reachable from the host: git ls-remote outside the build succeeds) fails
# with git's own error, and the failure report says the build had no
# network; a build step that reads a private key under the caller's HOME
# (a fake ~/.ssh/id_ed25519) cannot see it, nor anything else of HOME;
# the caller's environment does not reach the build. Without the sandbox
# (--no-sandbox) the same fetch succeeds.
. "$TOP/tests/lib.sh"

# a web server of this host, serving a git repository over git's dumb HTTP
mkdir www
git init -q --bare www/repo.git
git -C www/repo.git update-server-info
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory www "$PORT" >http.log 2>&1 &
HTTP_PID=$!
trap 'kill $HTTP_PID 2>/dev/null || true' EXIT
URL=http://127.0.0.1:$PORT/repo.git
for _ in $(seq 100); do
	git ls-remote "$URL" >/dev/null 2>&1 && break
	sleep 0.1
done
git ls-remote "$URL" >/dev/null || fail "the web server does not answer: $(cat http.log)"

# a caller's secret where builds must not look
mkdir -p "$HOME/.ssh"
echo "PRIVATE-KEY-$$-never-in-a-build" >"$HOME/.ssh/id_ed25519"
export ALLOCBUILD_TEST_SECRET="env-secret-$$"

# root's private files in /etc (as root: the case the review found, L1): 0600, and in a 0700 directory
etc_secret=/etc/allocbuild-t4210-$$
if [ "$(id -u)" = 0 ]; then
	trap 'kill $HTTP_PID 2>/dev/null || true; rm -rf "$etc_secret" "$etc_secret.d"' EXIT
	(umask 077 && echo "ETC-SECRET-$$" >"$etc_secret" && mkdir "$etc_secret.d" && echo "ETC-SECRET-$$" >"$etc_secret.d/key")
fi

# two projects: one fetches at configure time, one reads the key when built
mkdir -p p/net p/home mirror/sha256
cat >p/net/configure <<'CFG'
#!/bin/sh
echo "fetching $NET_URL"
git ls-remote "$NET_URL" || { echo "configure: error: cannot fetch $NET_URL" >&2; exit 1; }
printf 'all:\n\ttouch fetched\n' >Makefile
CFG
cat >p/home/configure <<'CFG'
#!/bin/sh
printf 'all:\n\techo "HOME=$$HOME"; ls -A "$$HOME"; echo "secret=$${ALLOCBUILD_TEST_SECRET:-unset}"; echo "etc=[$$(cat $$ETC_SECRET $$ETC_SECRET.d/key 2>&1)]"; echo "net=[$$(ls /sys/class/net 2>&1)]"; echo "cpus=$$(cat /sys/devices/system/cpu/online)"; cat "$$KEY" >stolen\n' >Makefile
CFG
chmod +x p/net/configure p/home/configure
for d in net home; do
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C p -czf $d.tar.gz $d
	cp $d.tar.gz mirror/sha256/$(sha256sum $d.tar.gz | cut -c1-64)
done
cat >r.json <<JSON
{"recipe": 1, "name": "iso",
 "sources": {
  "net": {"archive": {"urls": ["https://example.invalid/net.tar.gz"], "sha256": "$(sha256sum net.tar.gz | cut -c1-64)", "strip": 1}},
  "home": {"archive": {"urls": ["https://example.invalid/home.tar.gz"], "sha256": "$(sha256sum home.tar.gz | cut -c1-64)", "strip": 1}}
 },
 "variants": [
  {"label": "net", "source": "net", "build": {"system": "autotools", "env": {"NET_URL": "$URL"}}, "artifacts": ["fetched"]},
  {"label": "home", "source": "home", "build": {"system": "autotools", "env": {"KEY": "$HOME/.ssh/id_ed25519", "ETC_SECRET": "$etc_secret"}},
   "artifacts": ["stolen"]}
 ]}
JSON

# ---- in the sandbox
expect_exit 1 "$AB" build -k -j 2 --mirror-dir mirror -o o r.json
# git's own error, in the step's log and in the failure report, which says where the step ran
expect_grep "fatal: unable to access '$URL/': Failed to connect to 127.0.0.1 port $PORT" o/variants/net/logs/02-configure.log
expect_grep "allocbuild: net: configure failed: exit status 1" err
expect_grep "  cwd: /allocbuild/build (in the build sandbox: no network, nothing of the host but the system directories and the variant's own trees; docs/build.md, \"Sandbox\")" err
expect_grep "| fatal: unable to access '$URL/': Failed to connect to 127.0.0.1 port $PORT" err
# the key: not there, not in any file of OUTDIR; HOME is the sandbox's, empty; the caller's environment stays out
expect_grep "cat: $HOME/.ssh/id_ed25519: No such file or directory" o/variants/home/logs/03-build.log
expect_grep "HOME=/allocbuild/home" o/variants/home/logs/03-build.log
expect_grep "secret=unset" o/variants/home/logs/03-build.log
! grep -rqF "PRIVATE-KEY-$$" o || fail "the key reached OUTDIR"
# what of /etc others may not read is empty in the sandbox; of /sys, the CPUs but no network interface
if [ "$(id -u)" = 0 ]; then
	check "root's private file of /etc cannot be read" grep -qx "etc=\[cat: $etc_secret: Permission denied" \
		o/variants/home/logs/03-build.log
	check "root's private directory of /etc is empty" grep -qx "cat: $etc_secret.d/key: No such file or directory\]" \
		o/variants/home/logs/03-build.log
	check "no private file of /etc reached OUTDIR" not grep -rqF "ETC-SECRET-$$" o
fi
check "the host's network interfaces are not shown" grep -qx 'net=\[ls: cannot access '"'/sys/class/net'"': No such file or directory\]' \
	o/variants/home/logs/03-build.log
check "the CPUs are" grep -qx "cpus=$(cat /sys/devices/system/cpu/online)" o/variants/home/logs/03-build.log
! grep -rqF "env-secret-$$" o || fail "the caller's environment reached OUTDIR"
[ "$(json o/provenance/build-commands.json '[v["sandbox"]["enabled"] for v in d["variants"]]')" = "[True, True]" ] ||
	fail "not sandboxed: $(cat o/provenance/build-commands.json)"
# the caller's variables are named among those removed, the values nowhere
json o/provenance/build-commands.json '[s for s in d["variants"][1]["steps"] if s["step"] == "build"][0]["env_removed"]' >removed
expect_grep "'ALLOCBUILD_TEST_SECRET'" removed

# ---- without it: the fetch reaches the server
expect_exit 0 "$AB" build --no-sandbox -j 2 --mirror-dir mirror -o n r.json net
expect_grep "fetching $URL" n/variants/net/logs/02-configure.log
[ "$(json n/provenance/build-commands.json '[v["sandbox"]["enabled"] for v in d["variants"]]')" = "[False]" ]
