#!/usr/bin/env bash
# issue 18, item 9: exit codes as documented. A failed check is 1 (a
# deleted or truncated statement, an artifact replaced by a directory);
# bad input is 2 (an empty bundle; an unpinned branch for fetch as for
# validate); an environment failure (disk full) is 2 wherever it is met,
# with the reason in the message (item 10: no bare "Write failed").
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
cp -a bo pristine
again() { rm -rf bo && cp -a pristine bo; }

# failed checks: 1
rm bo/provenance/provenance.intoto.json
expect_exit 1 "$AB" verify bo
expect_grep "provenance/provenance.intoto.json: not a readable in-toto statement" out
again
truncate -s 40 bo/provenance/provenance.intoto.json
expect_exit 1 "$AB" verify bo
again
rm bo/variants/t1/build/lib/libfake.a && mkdir bo/variants/t1/build/lib/libfake.a
expect_exit 1 "$AB" verify bo
expect_grep "variants/t1/build/lib/libfake.a: expected" out
expect_grep "actual not a regular file (a directory)" out

# bad input: 2
: >empty.tar.gz
expect_exit 2 "$AB" verify empty.tar.gz
expect_grep "bundle 'empty.tar.gz' is empty: not an evidence bundle" err
echo hello >plain.tar.gz
expect_exit 2 "$AB" verify plain.tar.gz
expect_grep "'plain.tar.gz' is not gzip-compressed: not an evidence bundle" err
git init -q up && git -C up commit -q --allow-empty -m one
cat >u.json <<JSON
{"recipe": 1, "name": "u",
 "sources": {"up": {"git": {"url": "$PWD/up", "commit": "main"}}},
 "variants": [{"label": "v", "source": "up", "build": {"system": "autotools"}}]}
JSON
expect_exit 2 "$AB" validate u.json
grep -F "is not a 40-digit commit id" err >validate.err || fail "validate did not name the pin"
expect_exit 2 "$AB" fetch -o uo u.json
grep -F "is not a 40-digit commit id" err >fetch.err
cmp validate.err fetch.err || fail "fetch and validate say different things"
[ ! -e uo ] || fail "fetch wrote output for an unpinned recipe"

# the environment failed (disk full): 2, with the errno, and nothing half-written
cat >enospc.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* write(2) fails with ENOSPC on every file whose path holds $ENOSPC_PATH */
ssize_t
write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *m = getenv("ENOSPC_PATH");
	char link[64], path[4096];
	ssize_t k;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (m && fd > 2) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		k = readlink(link, path, sizeof(path) - 1);
		if (k > 0) {
			path[k] = '\0';
			if (strstr(path, m)) {
				errno = ENOSPC;
				return -1;
			}
		}
	}
	return real(fd, buf, n);
}
C
cc -shared -fPIC -o enospc.so enospc.c -ldl || fail "cannot build the ENOSPC shim"
full() { # path-part exit-code CMD...
	local part=$1 want=$2
	shift 2
	expect_exit "$want" env LD_PRELOAD="$PWD/enospc.so" ENOSPC_PATH="$part" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
# ... while writing a manifest: the build's own steps succeeded, still 2
again
cp bo/provenance/binary-provenance.json before.json
full binary-provenance.json.tmp 2 "$AB" build --force --mirror-dir mirror -o bo r.json
expect_grep "binary-provenance.json.tmp." err
expect_grep ": No space left on device" err
cmp before.json bo/provenance/binary-provenance.json || fail "a manifest was half-written"
# ... while extracting an archive, for fetch and for build
full /src.tmp- 2 "$AB" fetch --mirror-dir mirror -o fo r.json
expect_grep "allocbuild: archive 'fakeproj-1.0.tar.gz': member 'fakeproj-1.0/" err
expect_grep ": No space left on device" err
expect_grep ": cannot write: No space left on device" err
[ ! -e fo/variants/t1/src ] || fail "fetch left a tree behind"
full /src.tmp- 2 "$AB" build --mirror-dir mirror -o bo2 r.json
expect_grep ": No space left on device" err
# ... while fetch writes sources.json
full sources.json.tmp 2 "$AB" fetch --mirror-dir mirror -o fo r.json
expect_grep ": No space left on device" err
