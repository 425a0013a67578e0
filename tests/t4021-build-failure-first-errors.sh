#!/usr/bin/env bash
# issue 18, item 16: a failed step's report shows the first lines of its
# log that say what went wrong (compiler "error:", "not found", "No such
# file", the first make "***" line) with their context before the tail,
# which for a long or parallel log is only the cascade.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakeproj "$PWD")
cat >r.json <<JSON
{"recipe": 1, "name": "early",
 "sources": {"f": {"archive": {"urls": ["https://example.invalid/fakeproj-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "t1", "source": "f", "build": {"system": "autotools", "configure": ["--fail-early"]},
               "artifacts": ["lib/libfake.a"]}]}
JSON
expect_exit 1 "$AB" build --mirror-dir mirror -o bo r.json
O=$PWD/bo
{
	echo "allocbuild: t1: configure failed: exit status 1"
	echo "  command: /allocbuild/src/configure --fail-early"
	echo "  cwd: /allocbuild/build (in the build sandbox: no network, nothing of the host but the system directories and the variant's own trees; docs/build.md, \"Sandbox\")"
	echo "  log: $O/variants/t1/logs/02-configure.log (last 30 lines below)"
	echo "  first errors in the log:"
	echo "| 13: checking line 10"
	echo "| 14: checking line 11"
	echo "| 15: ./configure: 12: lib/jemalloc-5.3.0/configure: not found"
	echo "  last 30 lines of the log:"
	for i in $(seq 195 224); do echo "| libtool: install: line $i of the banner"; done
} >want
grep -v -e '^\[' -e "^allocbuild: source 'f': " err | expect_file want
# the log's own numbering: its header is three lines
sed -n '15p' bo/variants/t1/logs/02-configure.log | grep -q 'configure: not found' || fail "the line number is not the log's"
