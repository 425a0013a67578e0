# Sourced by every tests/tNNNN-*.sh. The runner starts each script in its own
# empty scratch directory (the current directory) and exports:
#   TOP            the repository root
#   ALLOCBUILD     the binary under test
#   AB_TEST_MIRROR a mirror directory holding Debian's jemalloc 5.3.0 and
#                  mimalloc 2.0.9 source tarballs (scripts/debian-mirror.sh)
set -eu
: "${TOP:?run through tests/run.sh}"
AB=$ALLOCBUILD
MIRROR=$AB_TEST_MIRROR
JEMALLOC_TARBALL=$MIRROR/jemalloc-5.3.0.tar.bz2
JEMALLOC_SHA=2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa
MIMALLOC_TARBALL=$MIRROR/mimalloc_2.0.9+ds.orig.tar.xz
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

# json FILE EXPR: evaluate a python expression on the parsed JSON document `d`
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# default_build DIR: a copy of the default recipe's real build output
# (recipes/jemalloc-5.3.0-policy.json from the real jemalloc 5.3.0 tarball)
# at DIR. The build runs once per allocbuild binary and is shared by the
# tests that only read its output; allocbuild's up-to-date check makes a
# repeated call cheap. Even a no-op build rewrites the manifests, so the
# copy is made under the same lock: a test running beside it must not copy
# SHA256SUMS of one run and manifests of the next.
default_build() {
	local cache=$TOP/tests/.cache/default-build
	mkdir -p "$cache"
	(
		flock 9
		"$AB" build --cache "$cache/cache" --mirror-dir "$MIRROR" \
			-o "$cache/out" "$TOP/recipes/jemalloc-5.3.0-policy.json" >"$cache/build.log" 2>&1 ||
			{ cat "$cache/build.log" >&2; exit 1; }
		cp -a "$cache/out" "$1"
	) 9>"$cache/lock" || fail "the default recipe did not build"
}
