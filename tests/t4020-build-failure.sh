#!/usr/bin/env bash
# build: a failing configure is reported with its command, directory, log
# and the log's last 30 lines, exit 1; --keep-going builds the others.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakeproj "$PWD")
cat >r.json <<JSON
{
	"recipe": 1,
	"name": "fail",
	"sources": {
		"fake": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}
	},
	"variants": [
		{"label": "broken", "source": "fake",
		 "build": {"system": "autotools", "configure": ["--fail"], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a"]},
		{"label": "good", "source": "fake",
		 "build": {"system": "autotools", "configure": ["--prefix=/nowhere"], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a", "bin/fake"]},
		{"label": "tuned", "runtime_of": "broken", "runtime": {"env": {"MALLOC_CONF": "narenas:1"}}}
	]
}
JSON

# -j1: one variant at a time, in recipe order; nothing starts after the failure
expect_exit 1 "$AB" build -j1 --mirror-dir mirror -o bo r.json
O=$PWD/bo
{
	echo "allocbuild: broken: configure failed: exit status 1"
	echo "  command: /allocbuild/src/configure --fail"
	echo "  cwd: /allocbuild/build (in the build sandbox: no network, nothing of the host but the system directories and the variant's own trees; docs/build.md, \"Sandbox\")"
	echo "  log: $O/variants/broken/logs/02-configure.log (last 30 lines below)"
	for i in $(seq 12 40); do echo "| checking line $i"; done
	echo "| configure: error: asked to fail"
	echo "allocbuild: tuned: skipped: a variant it depends on failed"
	echo "allocbuild: good: not built: stopped after a failure (use --keep-going)"
} >want
grep -v -e '^\[' -e "^allocbuild: source 'fake': " err | expect_file want
# the full log is there, starting with the command
head -3 bo/variants/broken/logs/02-configure.log >loghead
expect_file loghead <<EOF2
# allocbuild: configure
# cwd: /allocbuild/build
\$ /allocbuild/src/configure --fail
EOF2
[ ! -e bo/variants/good ] || fail "good was started after the failure"
[ ! -e bo/variants/broken/state.json ] || fail "a failed variant has a state"
# the failed step is in build-commands.json, and no manifest claims an artifact
[ "$(json bo/provenance/build-commands.json 'd["variants"][0]["steps"][1]["exit_status"]')" = 1 ]
[ "$(json bo/provenance/build-commands.json 'd["variants"][0]["ok"]')" = False ]
[ "$(json bo/provenance/provenance.intoto.json 'len(d["subject"])')" = 0 ]

# --keep-going: good is built, broken fails again, tuned is skipped
expect_exit 1 "$AB" build --keep-going -j1 --mirror-dir mirror -o bo r.json
expect_grep "allocbuild: broken: configure failed: exit status 1" err
expect_grep "allocbuild: tuned: skipped: a variant it depends on failed" err
expect_no_grep "not built" err
[ -f bo/variants/good/build/lib/libfake.a ] || fail "good was not built"
[ "$(json bo/provenance/build-commands.json '[v["ok"] for v in d["variants"]]')" = "[False, True, False]" ]
[ "$(json bo/provenance/provenance.intoto.json '[s["name"] for s in d["subject"]]')" = \
  "['variants/good/build/lib/libfake.a', 'variants/good/build/bin/fake']" ]
(cd bo && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
expect_exit 0 "$AB" verify bo
