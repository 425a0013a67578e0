#!/usr/bin/env bash
# issue 18, item 15: a pre-filled cache that this process may not write (a
# read-only file system, or no write permission) is used for what it holds:
# fetch and build work from it; a source it lacks fails, and the cache is
# left as it was.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
git init -q up && echo hi >up/a.txt && git -C up add a.txt && git -C up commit -qm one
cat >g.json <<JSON
{"recipe": 1, "name": "g",
 "sources": {"up": {"git": {"url": "$PWD/up", "commit": "$(git -C up rev-parse HEAD)"}}},
 "variants": [{"label": "v", "source": "up", "build": {"system": "autotools"}}]}
JSON
expect_exit 0 "$AB" fetch --cache cache --mirror-dir mirror -o pre r.json
expect_exit 0 "$AB" fetch --cache cache -o pre-g g.json
find cache -type f -exec sha256sum {} + | sort >cache.before

# run CMD... with the cache read-only: a read-only bind mount for root (who
# ignores permissions), no write permission for anyone else
readonly_cache() {
	if [ "$(id -u)" = 0 ]; then
		unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"' \
			_ "$PWD/cache" "$@"
	else
		chmod -R a-w cache
		"$@"
		local rc=$?
		chmod -R u+w cache
		return $rc
	fi
}
expect_exit 0 readonly_cache "$AB" fetch --cache cache -o o1 r.json
expect_grep "the cache '$PWD/cache' is read-only: using what it holds" err
[ -f o1/variants/t1/src/configure ] || fail "no tree from the read-only cache"
expect_exit 0 readonly_cache "$AB" fetch --cache cache -o o2 g.json
[ "$(cat o2/variants/v/src/a.txt)" = hi ] || fail "no git tree from the read-only cache"
expect_exit 0 readonly_cache "$AB" build --cache cache -o b1 r.json
expect_exit 0 "$AB" verify b1

# a source the cache lacks cannot be stored: the fetch fails and says so
mkdir -p other/mirror/sha256 other/pkg && echo other >other/pkg/f
tar -C other -czf other/o.tar.gz pkg
sha=$(sha256sum other/o.tar.gz | cut -d' ' -f1)
cp other/o.tar.gz other/mirror/sha256/$sha
sed "s/\"sha256\": \"[0-9a-f]*\"/\"sha256\": \"$sha\"/" r.json >other.json
rc=0
readonly_cache "$AB" fetch --cache cache --mirror-dir other/mirror -o o3 other.json >out 2>err || rc=$?
[ "$rc" != 0 ] || fail "a source missing from a read-only cache was fetched"
[ ! -e o3/variants/t1/src ] || fail "a tree was written"
find cache -type f -exec sha256sum {} + | sort >cache.after
cmp cache.before cache.after || fail "the read-only cache changed"
