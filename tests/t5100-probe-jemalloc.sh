# probe on the real jemalloc 5.3.0: two builds of the release tarball,
#   b1: --with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30
#   b2: the same tree without VERSION (bogus version) and a setting that
#       5.3.0 does not know baked in:
#       --with-malloc-conf=disable_large_size_classes:false,lg_extent_max_active_fit:30
# Only lib/libjemalloc_pic.a is built (half of build_lib_static), once per
# toolchain: the suite fixture jemalloc_hand.
. "$TOP/tests/lib.sh"

# the two builds: a suite fixture (tests/fixtures/make-fixture.sh), built
# once per toolchain and copied here
suite_fixture jemalloc_hand toolchain
for b in b1 b2; do
	mkdir -p $b/lib
	cp "$FIXTURE/$b/lib/libjemalloc_pic.a" $b/lib/
	cp "$FIXTURE/$b/configure.log" $b/
done
expect_grep "creating bogus VERSION" b2/configure.log

cat >prog.c <<'X'
#include <stdlib.h>
int main(void) { void *volatile p = malloc(100); free(p); return 0; }
X
cc -o prog1 prog.c b1/lib/libjemalloc_pic.a -lpthread -ldl -lm
cc -o prog2 prog.c b2/lib/libjemalloc_pic.a -lpthread -ldl -lm

# the build-time setting is in effect; detected without --allocator
expect_exit 0 "$AB" probe -- ./prog1
expect_file err </dev/null
head -n 4 out >head
expect_file head <<'X'
allocator      jemalloc
version        5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c
build-time     lg_extent_max_active_fit:30
quantum        8
X
expect_grep "lg_extent_max_active_fit  build      30               30               ok" out
expect_grep "result         ok" out
expect_exit 0 "$AB" probe --json -- ./prog1
[ "$(json out 'd["config"]["malloc_conf"]')" = lg_extent_max_active_fit:30 ] || fail "config.malloc_conf"
[ "$(json out 'd["effective"]["lg_extent_max_active_fit"]')" = 30 ] || fail "opt.lg_extent_max_active_fit"
[ "$(json out '(d["quantum"], d["page"] >= 4096, d["bogus_version"], d["detected"], d["ok"])')" = \
	"(8, True, False, True, True)" ] || fail "record: $(cat out)"
[ "$(json out 'd["run"]["env_set"][-1]')" = MALLOC_CONF=stats_print:true,stats_print_opts:mdablxeh ] ||
	fail "env: $(cat out)"

# a runtime override that takes effect
expect_exit 0 "$AB" probe --allocator jemalloc --env MALLOC_CONF=lg_extent_max_active_fit:12 --json -- ./prog1
expect_file err </dev/null
[ "$(json out 'd["effective"]["lg_extent_max_active_fit"]')" = 12 ] || fail "override: $(cat out)"
[ "$(json out 'd["overrides"]')" = "[{'setting': 'lg_extent_max_active_fit', 'origin': 'runtime', 'requested': '12', 'effective': '12', 'status': 'ok'}]" ] ||
	fail "overrides: $(cat out)"
[ "$(json out 'd["run"]["env_set"][-1]')" = \
	MALLOC_CONF=lg_extent_max_active_fit:12,stats_print:true,stats_print_opts:mdablxeh ] || fail "merged conf"

# bad runtime settings: unknown key, out of range, a trailing comma
expect_exit 1 "$AB" probe --env MALLOC_CONF=bogus_key:1 -- ./prog1
expect_file err <<'X'
allocbuild: probe: invalid setting 'bogus_key:1' in the runtime MALLOC_CONF: Invalid conf pair
X
expect_grep "bogus_key                 runtime    1                -                invalid" out
expect_grep "result         1 problem" out
expect_exit 1 "$AB" probe --json --env MALLOC_CONF=narenas:0,lg_extent_max_active_fit:7, -- ./prog1
expect_file err <<'X'
allocbuild: probe: malformed runtime MALLOC_CONF 'narenas:0,lg_extent_max_active_fit:7,': conf string ends with comma
allocbuild: probe: out-of-range setting 'narenas:0' in the runtime MALLOC_CONF: Out-of-range conf value
X
[ "$(json out '[(p["kind"], p["setting"], p["origin"]) for p in d["problems"]]')" = \
	"[('malformed', 'narenas:0,lg_extent_max_active_fit:7,', 'runtime'), ('out_of_range', 'narenas:0', 'runtime')]" ] ||
	fail "problems: $(cat out)"
# the statistics still came (the probe's switches went first) and the override held
[ "$(json out 'd["effective"]["lg_extent_max_active_fit"]')" = 7 ] || fail "override after a malformed conf"

# the wrong allocator named: nothing to report
expect_exit 1 "$AB" probe --allocator mimalloc -- ./prog1
expect_grep "allocbuild: probe: no mimalloc report in the output of './prog1' (exit status 0): is it linked with mimalloc?" err

# the library artifact itself: allocbuild writes and links the probe program
expect_exit 0 "$AB" probe --archive b1/lib/libjemalloc_pic.a --workdir probe1 --json \
	--env MALLOC_CONF=lg_extent_max_active_fit:12
[ "$(json out '(d["allocator"], d["archive"], d["effective"]["lg_extent_max_active_fit"], d["ok"])')" = \
	"('jemalloc', 'b1/lib/libjemalloc_pic.a', '12', True)" ] || fail "archive probe: $(cat out)"
[ "$(json out 'd["compile"]["argv"]')" = \
	"['cc', '-o', '$PWD/probe1/probe', '$PWD/probe1/probe.c', '$PWD/b1/lib/libjemalloc_pic.a', '-lpthread', '-ldl', '-lm']" ] ||
	fail "compile argv: $(cat out)"
[ "$(json out 'd["run"]["argv"]')" = "['$PWD/probe1/probe']" ] || fail "run argv"
[ -x probe1/probe ] && [ -f probe1/probe.c ] || fail "probe program"

# b2: the bogus version, and the baked-in setting 5.3.0 does not know
expect_exit 1 "$AB" probe -- ./prog2
expect_file err <<'X'
allocbuild: probe: invalid setting 'disable_large_size_classes:false' baked in at build time (config.malloc_conf): Invalid conf pair
X
head -n 3 out >head
expect_file head <<'X'
allocator      jemalloc
version        0.0.0-0-g000000missing_version_try_git_fetch_tags (bogus: configure found no version)
build-time     disable_large_size_classes:false,lg_extent_max_active_fit:30
X
expect_exit 1 "$AB" probe --archive b2/lib/libjemalloc_pic.a --workdir probe2 --json
[ "$(json out '(d["version"], d["bogus_version"], d["effective"]["lg_extent_max_active_fit"], d["ok"])')" = \
	"('0.0.0-0-g000000missing_version_try_git_fetch_tags', True, '30', False)" ] || fail "b2 record: $(cat out)"
[ "$(json out '[(p["kind"], p["setting"], p["origin"]) for p in d["problems"]]')" = \
	"[('invalid', 'disable_large_size_classes:false', 'build')]" ] || fail "b2 problems: $(cat out)"
# the same setting asked for at runtime too: one problem per origin
expect_exit 1 "$AB" probe --env MALLOC_CONF=disable_large_size_classes:false -- ./prog2
expect_file err <<'X'
allocbuild: probe: invalid setting 'disable_large_size_classes:false' baked in at build time (config.malloc_conf): Invalid conf pair
allocbuild: probe: invalid setting 'disable_large_size_classes:false' in the runtime MALLOC_CONF: Invalid conf pair
X
