#!/usr/bin/env bash
# A step keeps no capability in the build sandbox, whoever runs allocbuild
# (issue 44, H1): run by root, bwrap used to keep every capability inside
# the user namespace, so a configure script could remount the read-only
# binds writable and rewrite another variant's artifact before the
# manifests hashed it. Here an attacker variant, built after the victim it
# names with {variant:...}, tries exactly that (a remount of
# /allocbuild/variants and of /usr, then the same from a nested user
# namespace of its own), as root and as nobody: each attempt is refused,
# its effective capabilities are none, and the victim's artifact is the
# bytes its own build wrote, as verify says.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakeproj "$PWD")
mkdir -p p/attack
cat >p/attack/configure <<'CFG'
#!/bin/sh
echo "CapEff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
echo "CapPrm=$(sed -n 's/^CapPrm:[[:space:]]*//p' /proc/self/status)"
echo "CapBnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)"
try() { # WHAT CMD...
	what=$1; shift
	if "$@" 2>&1; then echo "$what: done"; else echo "$what: refused"; fi
}
try remount-variants mount -o remount,bind,rw /allocbuild/variants
try remount-usr mount -o remount,bind,rw /usr
try write-victim sh -c 'echo tampered >"$VICTIM"'
# a user namespace of its own has every capability over its own mounts: not over these
try nested unshare --user --map-root-user --mount sh -c \
	'mount -o remount,bind,rw /allocbuild/variants && echo tampered >"$VICTIM"'
try nested-userns unshare --user --map-root-user true
printf 'all:\n\techo done >done\n' >Makefile
CFG
chmod +x p/attack/configure
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C p -czf attack.tar.gz attack
ash=$(sha256sum attack.tar.gz | cut -c1-64)
cp attack.tar.gz mirror/sha256/$ash
cat >r.json <<JSON
{"recipe": 1, "name": "caps",
 "sources": {
  "f": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}},
  "attack": {"archive": {"urls": ["https://example.invalid/attack.tar.gz"], "sha256": "$ash", "strip": 1}}
 },
 "variants": [
  {"label": "victim", "source": "f", "build": {"system": "autotools"}, "artifacts": ["lib/libfake.a"]},
  {"label": "attacker", "source": "attack",
   "build": {"system": "autotools", "env": {"VICTIM": "{variant:victim:lib/libfake.a}"}}, "artifacts": ["done"]}
 ]}
JSON

# held: WHO DIR: the attack was refused in DIR's build, and nothing it did shows
held() {
	local who=$1 o=$2 log=$2/variants/attacker/logs/02-configure.log
	check "$who: the attacker's configure ran" test -s "$log"
	check "$who: no effective capability in the sandbox" grep -qx 'CapEff=0000000000000000' "$log"
	check "$who: no permitted capability in the sandbox" grep -qx 'CapPrm=0000000000000000' "$log"
	check "$who: an empty bounding set" grep -qx 'CapBnd=0000000000000000' "$log"
	for what in remount-variants remount-usr write-victim nested nested-userns; do
		check "$who: $what refused" grep -qx "$what: refused" "$log"
	done
	check "$who: the victim's artifact is its build's" grep -qx 'fake 1.2.3-0-gabcdef0123456789 library' \
		"$o/variants/victim/build/lib/libfake.a"
	expect_exit 0 "$AB" verify "$o"
}

# ---- as the caller this test runs as (root in CI: the case the review found)
expect_exit 0 "$AB" build -j 2 --mirror-dir mirror -o o r.json
held "$(id -un)" o

# ---- as nobody
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 0777 nob
	cp -r r.json mirror nob/
	chmod -R a+rX . && chmod 0777 nob
	expect_exit 0 setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$PWD/nob" \
		XDG_CACHE_HOME="$PWD/nob/cache" "$AB" build -j 2 --mirror-dir "$PWD/nob/mirror" -o "$PWD/nob/o" "$PWD/nob/r.json"
	held nobody nob/o
else
	echo "skipped: building as nobody needs root to switch to nobody" >&2
fi
