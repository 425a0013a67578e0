# tcmalloc from Debian 12's google-perftools 2.10 source, built as a variant
# by allocbuild (recipes/tcmalloc-glibc-baseline.json, a suite fixture:
# autoreconf, configure --enable-minimal ..., make libtcmalloc_minimal.la):
# its TCMALLOC_* settings read back through MallocExtension, from the
# build's own probes, the archive, a program with the shared library
# preloaded, and probe --pid of it running; upstream-diff of the tree it
# was built from against the tarball. The recipe's glibc variants too.
. "$TOP/tests/lib.sh"

suite_fixture tcmalloc allocbuild
O=$FIXTURE/out
check "the build" test "$(cat "$FIXTURE/build.rc")" = 0
B=$O/variants/tc-minimal/build/.libs
ALIVE=$TOP/recipes/alive/alive.c

# 1. the build's probes: the archive's program, the runtime variant's settings, glibc's
check "build probes" test "$(json "$O/provenance/allocator-probes.json" '[(v["label"], v["probe"]["allocator"], v["probe"]["version"], [(o["setting"], o["effective"], o["status"]) for o in v["probe"]["overrides"]]) for v in d["variants"]]')" = \
	"[('tc-minimal', 'tcmalloc', '2.10', []), ('tc-small-cache', 'tcmalloc', '2.10', [('TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES', '4194304', 'ok'), ('TCMALLOC_AGGRESSIVE_DECOMMIT', '1', 'ok')]), ('glibc', 'glibc', '$(ldd --version | sed -n '1s/.* //p')', []), ('glibc-arena2', 'glibc', '$(ldd --version | sed -n '1s/.* //p')', [('MALLOC_ARENA_MAX', '2', 'ok')])]"

# 2. the archive, its allocator told by its name: a variable 2.10 does not read, one no property shows
expect_exit 1 "$AB" probe --archive "$B/libtcmalloc_minimal.a" --workdir w --json \
	--env TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=1048576 --env TCMALLOC_AGGRESSIVE_DECOMMIT=no \
	--env TCMALLOC_RELEASE_RATE=5 --env TCMALLOC_RELEASE_RATES=5
check "archive: allocator" test "$(json out '(d["allocator"], d["version"], d["version_from"], [(a["kind"], a["version"], a["version_from"]) for a in d["allocators"]])')" = \
	"('tcmalloc', '2.10', 'tc_version()', [('tcmalloc', '2.10', 'TC_VERSION_STRING')])"
check "archive: overrides" test "$(json out '[(o["setting"], o["effective"], o["status"]) for o in d["overrides"]]')" = \
	"[('TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES', '1048576', 'ok'), ('TCMALLOC_AGGRESSIVE_DECOMMIT', '0', 'default'), ('TCMALLOC_RELEASE_RATE', None, 'read'), ('TCMALLOC_RELEASE_RATES', None, 'unknown')]"
expect_grep "unknown variable TCMALLOC_RELEASE_RATES: tcmalloc 2.10 does not read it (it silently ignores it)" err
check "archive: linked with" test "$(json out 'd["compile"]["argv"][-3:]')" = "['-lstdc++', '-lpthread', '-lm']"

# 3. a program of ours with the shared library preloaded: the report helper preloaded after it;
# a thread cache below tcmalloc's minimum (it takes 512 KiB instead)
cc -O2 -o alive "$ALIVE" -lpthread
expect_exit 1 "$AB" probe --json --env LD_PRELOAD="$B/libtcmalloc_minimal.so" \
	--env TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=1000 --env TCMALLOC_HEAP_LIMIT_MB=64 -- ./alive
check "preloaded: detected" test "$(json out '(d["allocator"], d["detected"], d["version"], d["run"]["exit_code"])')" = \
	"('tcmalloc', True, '2.10', 0)"
check "preloaded: overrides" test "$(json out '[(o["setting"], o["effective"], o["status"]) for o in d["overrides"]]')" = \
	"[('TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES', '524288', 'mismatch'), ('TCMALLOC_HEAP_LIMIT_MB', '64', 'ok')]"
expect_grep "runtime setting TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=1000 did not take effect: tcmalloc.max_total_thread_cache_bytes is 524288" err
# asked for tcmalloc, a program without it: said so, never claimed
expect_exit 1 "$AB" probe --allocator tcmalloc --json -- ./alive
check "not tcmalloc" test "$(json out '(d["allocator"], d["asked_for"], [p["kind"] for p in d["problems"]])')" = \
	"(None, 'tcmalloc', ['no_statistics'])"

# 4. the running process
rm -f ready
env LD_PRELOAD="$B/libtcmalloc_minimal.so" TCMALLOC_RELEASE_RATE=3 TCMALLOC_NOPE=1 ./alive --wait >ready 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -s ready ] && break; sleep 0.05; done
[ -s ready ] || fail "alive did not start"
expect_exit 1 "$AB" probe --pid $pid --json
check "pid: allocator" test "$(json out '[(a["kind"], a["version"], a["linked"]) for a in d["allocators"]]')" = \
	"[('tcmalloc', '2.10', 'shared')]"
check "pid: settings" test "$(json out '[(s["variable"], s["status"]) for s in d["settings"]]')" = \
	"[('LD_PRELOAD', 'recorded'), ('TCMALLOC_RELEASE_RATE', 'read'), ('TCMALLOC_NOPE', 'ignored')]"
check "pid: problem" test "$(json out '[p["message"] for p in d["problems"]]')" = \
	"['tcmalloc 2.10 has no variable TCMALLOC_NOPE: it ignores it silently']"
kill $pid

# 5. the tree it was built from against the tarball: every source, header and test file identical;
# what differs is what autoreconf -fi wrote (configure, Makefile.in, libtool's files, its INSTALL)
expect_exit 1 "$AB" upstream-diff --json "$O/variants/tc-minimal/src" "$TCMALLOC_TARBALL"
check "upstream-diff: sources as released" test "$(json out '[f["path"] for f in d["files"] if f["class"] in ("source", "header", "test") and f["status"] != "identical"]')" = "[]"
check "upstream-diff: what differs" test "$(json out '[f["path"] for f in d["files"] if f["status"] == "differs"] + [f["path"] for f in d["files"] if f["class"] == "generated"]')" = \
	"['INSTALL', 'configure']"
check "upstream-diff: nothing missing" test "$(json out 'len([f for f in d["files"] if f["status"] == "only-in-upstream"])')" = 0

# 6. policies know both: allocator rules on glibc and tcmalloc, not_set and runtime on their settings
cp -a "$O" o
cat >p.json <<'X'
{"policy": 1, "name": "baseline", "rules": [
 {"variants": ["glibc*"], "allocator": {"kind": "glibc", "version": {"min": "2.36"}}},
 {"variants": ["tc-*"], "allocator": {"kind": "tcmalloc", "version": "2.10"}},
 {"variants": ["glibc", "tc-minimal"], "not_set": ["*"]},
 {"variants": ["glibc-arena2"], "not_set": ["MALLOC_ARENA_MAX"]},
 {"variants": ["glibc-arena2"], "runtime": {"read": ["MALLOC_ARENA_MAX:2"]}},
 {"variants": ["tc-small-cache"], "runtime": {"read": ["TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES:4194304"]}}
]}
X
expect_exit 1 "$AB" verify --policy p.json o
check "policy: the one failure" test "$(grep -c '^pass: rules' out) $(grep '^FAIL: rules' out)" = \
	"12 FAIL: rules[3] not_set glibc-arena2: expected MALLOC_ARENA_MAX not set at run time, got MALLOC_ARENA_MAX set at run time to 2 (provenance/allocator-probes.json: variants[3].probe.overrides[0])"
