#!/usr/bin/env bash
# issue 18, item 12: a build killed (-9) while it writes a manifest leaves
# its temporary ("<path>.tmp.<pid>.<n>"); the next run, under the lock,
# removes those of dead writers and keeps those of a live one.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json

# a write(2) that waits for ever on a file whose path holds $HOLD_PATH, once $HOLD_MARK says so
cat >hold.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
ssize_t
write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *m = getenv("HOLD_PATH"), *mark = getenv("HOLD_MARK");
	char link[64], path[4096];
	ssize_t k;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (m && mark && fd > 2) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		k = readlink(link, path, sizeof(path) - 1);
		if (k > 0 && (path[k] = '\0', strstr(path, m))) {
			close(open(mark, O_WRONLY | O_CREAT, 0644));
			for (;;)
				pause();
		}
	}
	return real(fd, buf, n);
}
C
cc -shared -fPIC -o hold.so hold.c -ldl || fail "cannot build the hold shim"

# kill -9 while each of these is written: its temporary stays behind, and
# the next run removes it (a writer that still runs keeps its own)
echo live >bo/provenance/sources.json.tmp.$$.0
for m in SHA256SUMS provenance/binary-provenance.json provenance/provenance.intoto.json variants/t1/state.json; do
	rm -f held
	base=${m##*/}
	env LD_PRELOAD="$PWD/hold.so" HOLD_PATH="/$base.tmp." HOLD_MARK="$PWD/held" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$AB" build --force --mirror-dir mirror -o bo r.json >killed.out 2>killed.err &
	pid=$!
	for _ in $(seq 200); do [ -e held ] && break; sleep 0.05; done
	[ -e held ] || { cat killed.err >&2; fail "the build never wrote $m"; }
	kill -9 $pid
	wait $pid 2>/dev/null || true
	ls bo/$m.tmp.$pid.* >/dev/null 2>&1 || fail "no temporary of $m was left by pid $pid"
	expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
	! ls bo/$m.tmp.* >/dev/null 2>&1 || fail "the temporary of $m is still there"
	expect_grep "removed '$PWD/bo/$m.tmp.$pid." err
	[ -e bo/provenance/sources.json.tmp.$$.0 ] || fail "the live writer's temporary was removed"
done
rm bo/provenance/sources.json.tmp.$$.0
expect_exit 0 "$AB" verify bo

# a temporary of a dead pid that is not provably a writer's (lib/stale.h):
# a link, or (as root) another user's file, is named and left alone
true &
dead=$!
wait $dead
ln -s ../r.json bo/provenance/sources.json.tmp.$dead.0
if [ "$(id -u)" = 0 ]; then
	echo theirs >bo/provenance/sources.json.tmp.$dead.1
	chown nobody bo/provenance/sources.json.tmp.$dead.1
fi
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "warning: '$PWD/bo/provenance/sources.json.tmp.$dead.0' is named like an interrupted writer's temporary but is not provably one (a symbolic link): left alone" err
[ -L bo/provenance/sources.json.tmp.$dead.0 ] || fail "a link named like a temporary was removed"
if [ "$(id -u)" = 0 ]; then
	expect_grep "warning: '$PWD/bo/provenance/sources.json.tmp.$dead.1' is named like an interrupted writer's temporary but is not provably one (owned by uid $(id -u nobody), not by this user (uid 0)): left alone" err
	[ -e bo/provenance/sources.json.tmp.$dead.1 ] || fail "another user's file was removed"
fi
