# Sourced by every tests/tNNNN-*.sh. The runner starts each script in its own
# empty scratch directory (the current directory) and exports:
#   TOP            the repository root
#   ALLOCBUILD     the binary under test
#   AB_TEST_MIRROR a mirror directory holding Debian's jemalloc 5.3.0,
#                  mimalloc 2.0.9 and google-perftools 2.10 source tarballs
#                  (scripts/debian-mirror.sh)
set -eu
: "${TOP:?run through tests/run.sh}"
AB=$ALLOCBUILD
MIRROR=$AB_TEST_MIRROR
JEMALLOC_TARBALL=$MIRROR/jemalloc-5.3.0.tar.bz2
JEMALLOC_SHA=2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa
MIMALLOC_TARBALL=$MIRROR/mimalloc_2.0.9+ds.orig.tar.xz
TCMALLOC_TARBALL=$MIRROR/google-perftools_2.10.orig.tar.gz
export LC_ALL=C TZ=UTC
# git must not read the developer's configuration
export GIT_CONFIG_NOSYSTEM=1 HOME=$PWD/home XDG_CACHE_HOME=$PWD/cache
mkdir -p "$HOME"
git config --global user.name "allocbuild tests"
git config --global user.email "tests@allocbuild.invalid"
git config --global init.defaultBranch main
unset MALLOC_CONF LD_PRELOAD

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# check 'WHAT' CMD...: run CMD (a command or a function; negate with
# `check 'WHAT' not CMD...`) and fail naming WHAT and the command unless it
# succeeds: git's test_expect_success, reduced to one line. A bare `[ ... ]`
# under set -e fails without saying what, and the first half of an `&&`
# list is not checked at all.
check() {
	local what=$1 rc=0
	shift
	"$@" || rc=$?
	[ "$rc" = 0 ] || fail "$what (exit $rc: $*)"
}

# not CMD...: succeed when CMD fails (for check)
not() {
	! "$@"
}

# npm_pinned SPEC DIR PINS: files of the npm package SPEC (name@version),
# fetched once from the npm registry (npm pack) into DIR under
# tests/.cache/npm, each checked against its pin: PINS holds lines
# "SHA256  PATH" (PATH inside the package's tarball, without "package/"),
# and DIR gets each file under its base name. DIR appears whole or not at
# all; a lock keeps two tests from fetching at once.
npm_pinned() {
	local spec=$1 dir=$2 pins=$3 npmdir=$TOP/tests/.cache/npm
	mkdir -p "$npmdir"
	(
		flock 9
		[ -d "$dir" ] && exit 0
		command -v npm >/dev/null || fail "no npm (scripts/install-deps.sh)"
		tmp=$(mktemp -d "$npmdir/tmp.XXXXXX")
		(cd "$tmp" && npm pack "$spec" --silent >/dev/null && tar -xzf ./*.tgz) ||
			fail "cannot fetch $spec from the npm registry"
		mkdir "$tmp/files"
		while read -r sha path; do
			[ "$(sha256sum <"$tmp/package/$path" | cut -c1-64)" = "$sha" ] ||
				fail "$path of $spec does not have sha256 $sha"
			cp "$tmp/package/$path" "$tmp/files/"
		done <<<"$pins"
		mv "$tmp/files" "$dir"
		rm -rf "$tmp"
	) 9>"$npmdir.lock"
}

# skip_under_sanitizers 'WHY': end the test, passed, when make asan runs it
# (O=.obj-asan, exported by tests/run.sh), saying why on stderr: for the
# few long tests whose time is the compilers' and whose allocbuild code
# another test already runs under the sanitizers (tests/README.md, "Cost")
skip_under_sanitizers() {
	if [ "${O:-.obj}" = .obj-asan ]; then
		echo "$(basename "$0" .sh): skipped under the sanitizers: $1" >&2
		exit 0
	fi
}

# expect_exit CODE CMD...: run CMD with stdout in ./out and stderr in ./err,
# and fail unless it exits with CODE
expect_exit() {
	local want=$1 rc=0
	shift
	"$@" >out 2>err || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout" >&2; cat out >&2
		echo "--- stderr" >&2; cat err >&2
		fail "expected exit $want, got $rc: $*"
	fi
}

# expect_file FILE: compare FILE with the expectation on stdin (diff -u)
expect_file() {
	diff -u - "$1" || fail "$1 differs from the expectation"
}

# expect_grep PATTERN FILE: FILE has a line matching the fixed string
expect_grep() {
	grep -qF -- "$1" "$2" || { cat "$2" >&2; fail "'$1' not found in $2"; }
}

# expect_no_grep PATTERN FILE: FILE (which must exist) has no line with the fixed string
expect_no_grep() {
	[ -r "$2" ] || fail "no file $2"
	! grep -qF -- "$1" "$2" || { cat "$2" >&2; fail "'$1' unexpectedly found in $2"; }
}

# bundle_has BUNDLE PATTERN: does the gzip'ed BUNDLE hold the fixed string
# PATTERN? Fails the test when BUNDLE does not decompress (a pipe's
# negation would have taken that for "no")
bundle_has() {
	gzip -dc "$1" >"$1.text" 2>/dev/null || fail "'$1' does not decompress"
	grep -qaF -- "$2" "$1.text"
}

# json FILE EXPR: evaluate a python expression on the parsed JSON document `d`;
# `L` is a manifest's variants by label (its "variants" array of {label})
json() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
vs = d.get("variants") if isinstance(d, dict) else None
L = {v["label"]: v for v in vs if isinstance(v, dict) and "label" in v} if isinstance(vs, list) else vs
print(eval(sys.argv[2]))' "$1" "$2"
}

# suite_fixture NAME allocbuild|toolchain: sets FIXTURE to the directory of
# a suite fixture (tests/README.md, "Fixtures"), made once by
# tests/fixtures/make-fixture.sh NAME and kept in tests/.cache/fixtures
# under a key: the toolchain (tests/run.sh), the fixture scripts and the
# recipes, and for a fixture that allocbuild builds ("allocbuild")
# allocbuild's source tree too. A test never changes a fixture: it reads
# it, or copies what it will change into its own directory.
suite_fixture() {
	local name=$1 uses=$2 key dir
	: "${AB_TEST_TOOLCHAIN_KEY:?run through tests/run.sh}"
	key=$({
		echo "$name $uses $AB_TEST_TOOLCHAIN_KEY"
		[ "$uses" = toolchain ] || echo "$AB_TEST_SOURCE_KEY"
		find "$TOP/tests/fixtures" "$TOP/recipes" -type f | LC_ALL=C sort | xargs cat
	} | sha256sum | cut -c1-16)
	dir=$TOP/tests/.cache/fixtures/$name-$key
	mkdir -p "$TOP/tests/.cache/fixtures"
	(
		flock 9
		[ -e "$dir/.done" ] && exit 0
		# the same fixture under an older key goes, its lock and log too
		for old in "$TOP/tests/.cache/fixtures/$name"-????????????????{,.lock,.log}; do
			case $old in "$dir" | "$dir.lock" | "$dir.log" | *'????'*) ;; *) rm -rf "$old" ;; esac
		done
		rm -rf "$dir"
		mkdir "$dir"
		if ! (cd "$dir" && AB=$AB MIRROR=$MIRROR JEMALLOC_TARBALL=$JEMALLOC_TARBALL JEMALLOC_SHA=$JEMALLOC_SHA \
			"$TOP/tests/fixtures/make-fixture.sh" "$name") >"$dir.log" 2>&1; then
			tail -n 40 "$dir.log" >&2
			exit 1
		fi
		touch "$dir/.done"
	) 9>"$dir.lock" || fail "the suite fixture '$name' could not be made ($dir.log)"
	FIXTURE=$dir
}

# default_build DIR: a copy of the default recipe's real build output
# (recipes/jemalloc-5.3.0-policy.json from the real jemalloc 5.3.0 tarball,
# built with -j 2 by the allocbuild of this source tree) at DIR, for the
# tests that only read it; DEFAULT_OUTDIR is the directory it was built in
# (the absolute paths its records hold)
default_build() {
	suite_fixture default allocbuild
	DEFAULT_OUTDIR=$FIXTURE/out
	cp -a "$FIXTURE/out" "$1"
}

# unload [FILE...]: drop from FILEs (default: out and err) what compare and
# pr say of this machine's load while the runs ran (its "Machine load" line,
# the warning and the verdict's note when it was busy), which the tests'
# exact expectations cannot know; t7260 checks those lines
unload() {
	[ $# -gt 0 ] || set -- out err
	sed -i -e '/^Machine load (the 1-minute load average at each run.s start): /d' \
		-e '/: the machine was busy: its load (the 1-minute load average/d' \
		-e '/^> - the machine was busy: its load (the 1-minute load average/d' \
		-e '/^- ⚠ busy machine: load /d' "$@"
}
