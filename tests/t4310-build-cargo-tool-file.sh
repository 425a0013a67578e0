#!/usr/bin/env bash
# A recipe's build.cargo is shown in the build sandbox as that file alone,
# and never run outside a sandbox (issue 44, M1): its whole directory was
# bound, so a secret beside it became an artifact, and allocbuild ran the
# named cargo outside the sandbox for --version. Here a fake cargo (a
# script) copies into its artifact what it can read beside itself, and
# says where it answers --version: the secret stays out, the program
# beside it too, and the version is asked inside.
. "$TOP/tests/lib.sh"

mkdir -p tools src
cat >tools/cargo <<'SH'
#!/bin/sh
here=$(dirname "$0")
where=outside
[ "$(cat /proc/sys/kernel/hostname)" = allocbuild ] && where="in the sandbox"
if [ "$1" = --version ]; then
	echo "cargo 9.9.9 ($where)"
	[ "$where" = outside ] && touch "$here/ran-outside"
	exit 0
fi
t=${CARGO_TARGET_DIR:-target}
mkdir -p "$t/release"
{ echo "built $where"; cat "$here/secret" 2>&1; ls "$here" 2>&1; } >"$t/release/prog"
SH
chmod +x tools/cargo
echo "TOPSECRET-4310" >tools/secret
printf '[package]\nname = "prog"\nversion = "0.1.0"\n' >src/Cargo.toml
printf 'version = 3\n\n[[package]]\nname = "prog"\nversion = "0.1.0"\n' >src/Cargo.lock
dh=$("$AB" hash src | cut -d' ' -f1)
cat >r.json <<JSON
{"recipe": 1, "name": "m1", "sources": {"s": {"dir": {"path": "src", "dirHash": "$dh"}}},
 "variants": [{"label": "c", "source": "s", "build": {"system": "cargo", "cargo": "$PWD/tools/cargo"},
               "artifacts": ["target/release/prog"]}]}
JSON
expect_exit 0 "$AB" build -o o r.json
prog=o/variants/c/build/target/release/prog
check "the build ran in the sandbox" grep -qx 'built in the sandbox' $prog
check "the secret beside cargo stayed out" not grep -rqF TOPSECRET-4310 o
check "nothing beside cargo was shown" grep -qx "cat: $PWD/tools/secret: No such file or directory" $prog
check "cargo's version was asked in a sandbox" test "$(json o/provenance/build-commands.json \
	'[t["version"] for t in d["variants"][0]["toolchain"] if t["name"] == "cargo"][0]')" = "cargo 9.9.9 (in the sandbox)"
check "cargo never ran outside a sandbox" not test -e tools/ran-outside
check "the sandbox shows the file, read-only" test "$(json o/provenance/build-commands.json \
	'[(p["real"], p["writable"]) for p in d["variants"][0]["sandbox"]["paths"] if p["inside"] == "./tools/cargo"]')" = \
	"[('./tools/cargo', False)]"
