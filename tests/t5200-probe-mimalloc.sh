# probe on Debian's mimalloc 2.0.9 source, two static builds: MI_SECURE=ON
# and OFF. The secure level differs; 2.0.9 has no purge_delay option (it
# silently ignores MIMALLOC_PURGE_DELAY); decommit_delay is known.
. "$TOP/tests/lib.sh"

tar xJf "$MIMALLOC_TARBALL"
src=$PWD/mimalloc-2.0.9+ds
[ -f "$src/include/mimalloc.h" ] || fail "no mimalloc-2.0.9+ds in the tarball"
for s in ON OFF; do
	cmake -S "$src" -B b-$s -DMI_SECURE=$s -DMI_BUILD_SHARED=OFF -DMI_BUILD_OBJECT=OFF \
		-DMI_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >b-$s.log 2>&1 || { tail -n 30 b-$s.log; fail "cmake $s"; }
	cmake --build b-$s -j2 >>b-$s.log 2>&1 || { tail -n 30 b-$s.log; fail "build $s"; }
done
secure=b-ON/libmimalloc-secure.a
plain=b-OFF/libmimalloc.a

# library artifacts: the probe program reports mi_version(), since 2.0.9
# prints no version in verbose mode
expect_exit 0 "$AB" probe --archive $secure --workdir p-on
expect_file err </dev/null
expect_file out <<'X'
allocator      mimalloc
version        2.0.9
secure level   4

result         ok
X
expect_exit 0 "$AB" probe --archive $plain --workdir p-off --json
[ "$(json out '(d["allocator"], d["version"], d["version_from"], d["mi_version"], d["secure"], d["ok"])')" = \
	"('mimalloc', '2.0.9', 'mi_version()', 209, 0, True)" ] || fail "record: $(cat out)"
[ "$(json out 'd["effective"]["decommit_delay"]')" = 25 ] || fail "decommit_delay default"
[ "$(json out 'd["compile"]["argv"]')" = \
	"['cc', '-o', '$PWD/p-off/probe', '$PWD/p-off/probe.c', '$PWD/$plain', '-lpthread']" ] || fail "compile argv"
[ "$(json out 'd["run"]["env_set"]')" = "['LC_ALL=C', 'TZ=UTC', 'MIMALLOC_VERBOSE=1']" ] || fail "env"

# a program of the user's, detected as mimalloc after jemalloc found nothing
cat >prog.c <<'X'
#include <stdlib.h>
int main(void) { void *volatile p = malloc(100); free(p); return 0; }
X
cc -o prog prog.c $plain -lpthread

# a runtime option 2.0.9 does not have, and one it has
expect_exit 1 "$AB" probe --env MIMALLOC_PURGE_DELAY=5 --env MIMALLOC_DECOMMIT_DELAY=7 -- ./prog
expect_file err <<'X'
allocbuild: probe: unknown option MIMALLOC_PURGE_DELAY: mimalloc 2.0.9 has no option 'purge_delay' (it silently ignores it)
X
expect_file out <<'X'
allocator      mimalloc
version        2.0.9
secure level   0

setting                  origin     requested        effective        status
MIMALLOC_PURGE_DELAY     runtime    5                -                unknown
MIMALLOC_DECOMMIT_DELAY  runtime    7                7                ok

result         1 problem
X
expect_exit 1 "$AB" probe --archive $plain --workdir p-off --env MIMALLOC_PURGE_DELAY=5 \
	--env MIMALLOC_DECOMMIT_DELAY=7 --env MIMALLOC_EAGER_COMMIT=sometimes --json
expect_file err <<'X'
allocbuild: probe: unknown option MIMALLOC_PURGE_DELAY: mimalloc 2.0.9 has no option 'purge_delay' (it silently ignores it)
allocbuild: probe: invalid value 'sometimes' for MIMALLOC_EAGER_COMMIT: mimalloc ignores it and keeps 1
X
[ "$(json out '[(o["setting"], o["effective"], o["status"]) for o in d["overrides"]]')" = \
	"[('MIMALLOC_PURGE_DELAY', None, 'unknown'), ('MIMALLOC_DECOMMIT_DELAY', '7', 'ok'), ('MIMALLOC_EAGER_COMMIT', '1', 'invalid')]" ] ||
	fail "overrides: $(cat out)"
[ "$(json out '[(p["kind"], p["setting"], p["origin"]) for p in d["problems"]]')" = \
	"[('unknown_option', 'MIMALLOC_PURGE_DELAY', 'runtime'), ('invalid', 'MIMALLOC_EAGER_COMMIT', 'runtime')]" ] ||
	fail "problems: $(cat out)"

# the deprecated name is read when the new one is not set
expect_exit 0 "$AB" probe --allocator mimalloc --env MIMALLOC_RESET_DELAY=9 --json -- ./prog
[ "$(json out '[(o["setting"], o["option"], o["effective"], o["status"]) for o in d["overrides"]]')" = \
	"[('MIMALLOC_RESET_DELAY', 'decommit_delay', '9', 'ok')]" ] || fail "legacy name: $(cat out)"

# a setting whose value is the default proves nothing: status default, with the value found without it
expect_exit 0 "$AB" probe --allocator mimalloc --env MIMALLOC_DECOMMIT_DELAY=25 --env MIMALLOC_MAX_ERRORS=20 --json -- ./prog
[ "$(json out '[(o["setting"], o["effective"], o["status"], o.get("default")) for o in d["overrides"]]')" = \
	"[('MIMALLOC_DECOMMIT_DELAY', '25', 'default', '25'), ('MIMALLOC_MAX_ERRORS', '20', 'ok', None)]" ] ||
	fail "a default value not marked: $(cat out)"
[ "$(json out 'd["ok"]')" = True ]
