#!/usr/bin/env bash
# Overlays (a subdirectory replaced by another source's tree, itself
# patched) and prepare steps (argv, run in the tree with a scrubbed
# environment, logged), both recorded; a failing step leaves nothing.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

dirhash() { (cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1); }

# the main tree vendors an old library under lib/vendored-1.0
git init -q app.git
(
	cd app.git
	mkdir -p lib/vendored-1.0 src
	echo "old vendored" >lib/vendored-1.0/v.c
	echo "only in old" >lib/vendored-1.0/gone.c
	echo "int main(void) { return 0; }" >src/main.c
	git add -A
	git commit -qm app
)
APP=$(git -C app.git rev-parse HEAD)
# the replacement, a release tarball, with a patch of its own
mkdir -p rel/vendored-1.1
echo "new vendored" >rel/vendored-1.1/v.c
echo "added in 1.1" >rel/vendored-1.1/new.c
tar -C rel -czf vendored-1.1.tar.gz vendored-1.1
mkdir patches
cat >patches/v.patch <<'EOF2'
diff --git a/v.c b/v.c
--- a/v.c
+++ b/v.c
@@ -1 +1 @@
-new vendored
+new vendored, patched
EOF2

recipe() { # extra prepare step (JSON argv)
	cat >r.json <<JSON
{"recipe": 1, "name": "ov",
 "sources": {
  "app": {"git": {"url": "$PWD/app.git", "commit": "$APP"},
          "overlay": {"lib/vendored-1.0": "vendored"},
          "prepare": [["sh", "-c", "env | LC_ALL=C sort >prepare-env.txt; echo generated >gen.h"]$1]},
  "vendored": {"archive": {"urls": ["file://$PWD/vendored-1.1.tar.gz"], "sha256": "$(sha vendored-1.1.tar.gz)", "strip": 1},
               "patches": ["patches/v.patch"]}
 },
 "variants": [{"label": "v", "source": "app", "build": {"system": "autotools"}}]}
JSON
}

recipe ""
MALLOC_CONF=junk:true MIMALLOC_VERBOSE=1 expect_exit 0 "$AB" fetch -o o r.json
T=o/variants/v/src
S=o/provenance/sources.json
[ "$(cat $T/lib/vendored-1.0/v.c)" = "new vendored, patched" ] || fail "overlay not patched"
[ -e $T/lib/vendored-1.0/new.c ] && [ ! -e $T/lib/vendored-1.0/gone.c ] || fail "overlay did not replace the directory"
[ "$(cat $T/gen.h)" = generated ] || fail "prepare output"
# the scrubbed environment
expect_grep "LC_ALL=C" $T/prepare-env.txt
expect_grep "TZ=UTC" $T/prepare-env.txt
expect_no_grep "MALLOC_CONF" $T/prepare-env.txt
expect_no_grep "MIMALLOC_VERBOSE" $T/prepare-env.txt
# recorded: overlay map with the overlay's own base and patches, prepare argv, cwd, env, exit, log
[ "$(json $S 'd["variants"]["v"]["overlays"][0]["path"]')" = lib/vendored-1.0 ] || fail "overlay path"
[ "$(json $S 'd["variants"]["v"]["overlays"][0]["source"]')" = vendored ] || fail "overlay source"
[ "$(json $S 'd["variants"]["v"]["overlays"][0]["base"]["sha256"]')" = "$(sha vendored-1.1.tar.gz)" ] || fail "overlay sha256"
[ "$(json $S 'd["variants"]["v"]["overlays"][0]["patches"][0]["sha256"]')" = "$(sha patches/v.patch)" ] || fail "overlay patch"
[ "$(json $S 'd["variants"]["v"]["overlays"][0]["dirHash"]')" = "$(dirhash $T/lib/vendored-1.0)" ] || fail "overlay dirHash"
[ "$(json $S 'sorted(d["sources"])')" = "['app', 'vendored']" ] || fail "overlay source not recorded"
[ "$(json $S 'd["variants"]["v"]["prepare"][0]["argv"][0]')" = sh ] || fail "prepare argv"
[ "$(json $S 'd["variants"]["v"]["prepare"][0]["cwd"]')" = "$T" ] || fail "prepare cwd"
[ "$(json $S 'd["variants"]["v"]["prepare"][0]["exit_code"]')" = 0 ] || fail "prepare exit"
[ "$(json $S '"LC_ALL=C" in d["variants"]["v"]["prepare"][0]["env_set"]')" = True ] || fail "env_set"
# (the runner's toolchain variables, MAKEFLAGS under make, are removed too: docs/build.md)
[ "$(json $S 'sorted(x for x in d["variants"]["v"]["prepare"][0]["env_removed"] if "MALLOC" in x)')" = "['MALLOC_CONF', 'MIMALLOC_VERBOSE']" ] ||
	fail "env_removed"
[ -e "$(json $S 'd["variants"]["v"]["prepare"][0]["log"]')" ] || fail "prepare log"
[ "$(json $S 'd["variants"]["v"]["dirHash"]')" = "$(dirhash $T)" ] || fail "final dirHash"
# rerun: verified and reused, prepare not run again
before=$(stat -c %Y.%i $T/gen.h)
expect_exit 0 "$AB" fetch -o o r.json
expect_no_grep "prepare:" err
[ "$(stat -c %Y.%i $T/gen.h)" = "$before" ] || fail "rewritten"

# a failing prepare step: reported with its log, nothing at the destination
recipe ', ["sh", "-c", "echo failing step >&2; exit 3"]'
expect_exit 1 "$AB" fetch -o f r.json
# said as a failed configure is (issue 48, item 9): the command, where it ran (the sandbox), the log and its tail
cat >want <<'EOT'
allocbuild: source 'app': prepare step 2 failed: exit status 3
  command: sh -c 'echo failing step >&2; exit 3'
  cwd: /allocbuild/src (in the build sandbox: no network, nothing of the host but the system directories and the source's own tree; docs/build.md, "Sandbox")
  log: f/variants/v/logs/prepare-app-2.log (last 30 lines below)
| failing step
EOT
sed -n '/prepare step 2 failed/,$p' err >said
expect_file said <want
expect_grep "failing step" f/variants/v/logs/prepare-app-2.log
[ ! -e f/variants/v/src ] && [ -z "$(ls -d f/variants/v/src.* 2>/dev/null)" ] || fail "output left by a failing prepare"
[ ! -e f/provenance ] || fail "sources.json written after a failure"
# a program that does not exist
recipe ', ["no-such-program-allocbuild"]'
expect_exit 1 "$AB" fetch -o g r.json
expect_grep "allocbuild: cannot run 'no-such-program-allocbuild'" err
[ ! -e g/variants/v/src ] || fail "output left"
