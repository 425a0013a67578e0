# probe of glibc's malloc (the C library's own, every program's default):
# alive built with no allocator of its own, its settings given as glibc
# tunables and as the old MALLOC_* variables, read back from its loader
# (ld.so --list-tunables with the same environment); the version of the
# libc it resolves; probe --pid of it running; env's warnings.
. "$TOP/tests/lib.sh"

ALIVE=$TOP/recipes/alive/alive.c
glibc=$(ldd --version | sed -n '1s/.* //p')
cc -O2 -o alive-glibc "$ALIVE" -lpthread

# 1. detected: no other allocator, named glibc with the libc it resolves
expect_exit 0 "$AB" probe --json -- ./alive-glibc
check "detected glibc" test "$(json out '(d["allocator"], d["detected"], d["version"], d["libc"])')" = \
	"('glibc', True, '$glibc', '$(ldd ./alive-glibc | sed -n 's/.*libc.so.6 => \([^ ]*\) .*/\1/p')')"
check "defaults read from the loader" test "$(json out '(d["effective"]["glibc.malloc.arena_max"], d["effective"]["glibc.malloc.perturb"])')" = \
	"('0', '0')"

# 2. settings both ways: a tunable, an old variable, a value out of range, a tunable glibc does not have
expect_exit 1 "$AB" probe --allocator glibc --json --env GLIBC_TUNABLES=glibc.malloc.tcache_count=5:glibc.malloc.bogus=1 \
	--env MALLOC_ARENA_MAX=2 --env MALLOC_PERTURB_=300 -- ./alive-glibc
check "overrides" test "$(json out '[(o["setting"], o.get("option"), o["requested"], o["effective"], o["status"]) for o in d["overrides"]]')" = \
	"[('glibc.malloc.tcache_count', 'glibc.malloc.tcache_count', '5', '5', 'ok'), ('glibc.malloc.bogus', 'glibc.malloc.bogus', '1', None, 'unknown'), ('MALLOC_ARENA_MAX', 'glibc.malloc.arena_max', '2', '2', 'ok'), ('MALLOC_PERTURB_', 'glibc.malloc.perturb', '300', '0', 'mismatch')]"
check "problems" test "$(json out '[p["kind"] for p in d["problems"]]')" = "['unknown_option', 'override_mismatch']"
expect_grep "unknown tunable glibc.malloc.bogus: glibc 2.36 has no glibc.malloc.bogus (it silently ignores it)" err
expect_grep "runtime setting MALLOC_PERTURB_=300 did not take effect: glibc.malloc.perturb is 0" err
# a setting equal to glibc's default proves nothing: "default"
expect_exit 0 "$AB" probe --json --env MALLOC_MMAP_MAX_=0 --env MALLOC_TOP_PAD_=131072 -- ./alive-glibc
check "default and ok" test "$(json out '[(o["setting"], o["status"]) for o in d["overrides"]]')" = \
	"[('MALLOC_MMAP_MAX_', 'default'), ('MALLOC_TOP_PAD_', 'ok')]"
# another allocator's variable has no effect on it
expect_exit 1 "$AB" probe --env MIMALLOC_PURGE_DELAY=0 -- ./alive-glibc
expect_grep "MIMALLOC_PURGE_DELAY has no effect: the program allocates with glibc's malloc" err

# 3. the running process: its tunables checked against glibc 2.36's
start() {
	rm -f ready
	env "$@" >ready 2>/dev/null &
	pid=$!
	for _ in $(seq 200); do [ -s ready ] && return 0; sleep 0.05; done
	fail "$* did not start"
}
trap '[ -z "${pid:-}" ] || kill $pid 2>/dev/null || true' EXIT
# (glibc 2.36 rewrites GLIBC_TUNABLES in the process's memory as it parses it, so that
# /proc/PID/environ may show less than was set: one tunable here, which it keeps)
start GLIBC_TUNABLES=glibc.malloc.arena_max=2 MALLOC_TOP_PAD_=65536 MALLOC_ARENA_MAXX=2 ./alive-glibc --wait
expect_exit 1 "$AB" probe --pid $pid --json
check "pid: allocator" test "$(json out '[(a["kind"], a["version"]) for a in d["allocators"]]')" = "[('glibc', '$glibc')]"
check "pid: settings" test "$(json out '[(s["variable"], s["setting"], s["value"], s["status"]) for s in d["settings"]]')" = \
	"[('GLIBC_TUNABLES', 'glibc.malloc.arena_max', '2', 'read'), ('MALLOC_TOP_PAD_', 'glibc.malloc.top_pad', '65536', 'read'), ('MALLOC_ARENA_MAXX', None, '2', 'ignored')]"
check "pid: problem" test "$(json out '[p["message"] for p in d["problems"]]')" = \
	"['MALLOC_ARENA_MAXX is set but no allocator in the process reads it']"
kill $pid
wait $pid 2>/dev/null || true
pid=
