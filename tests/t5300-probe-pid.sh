# probe --pid: real processes, started and stopped by this test by pid,
# inspected from /proc. jemalloc 5.3.0 linked statically (the default
# recipe's stock53 archive, matched with --against), Debian's libjemalloc
# and libmimalloc preloaded into sleep, two allocators at once, glibc,
# a jemalloc with the symbol prefix je_ (built by allocbuild from the real
# tarball), and the pids that cannot be read: gone, a kernel thread, another
# user's, one that ends while read.
. "$TOP/tests/lib.sh"

L=/usr/lib/x86_64-linux-gnu
ALIVE=$TOP/recipes/alive/alive.c
pids=
stop() { [ -z "$pids" ] || kill $pids 2>/dev/null || true; }
trap stop EXIT
# start ENV... -- PROG ARGS: in the background; ready when a --wait program
# says so, or when the process is the program itself (the forked shell has
# exec'd env, env has exec'd PROG: the pid stays) and sleeps, its loading
# done (the dynamic loader never sleeps; before, a probe could read the
# shell or env)
start() {
	local envs=() prog state
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	prog=$(readlink -f "$(command -v "$1")")
	rm -f ready
	env "${envs[@]}" "$@" >ready 2>/dev/null &
	pid=$!
	pids="$pids $pid"
	for _ in $(seq 200); do
		if [ "${2:-}" = --wait ]; then
			[ -s ready ] && return 0
		elif [ "$(readlink /proc/$pid/exe)" = "$prog" ]; then
			state=$(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f1)
			[ "$state" = S ] && return 0
		fi
		sleep 0.05
	done
	fail "$* did not start"
}

# 1. the stock53 archive of the default recipe, linked into a program of ours. The recipe links
# the same archive into its benchmark program too (frag-stock53, with frag-fit-only and frag-aa
# running it), so that by its allocator the process is any of five variants, and by its
# environment any of those that set nothing, or of the two that set lg_extent_max_active_fit:30
default_build bo
cc -O2 -o alive-stock "$ALIVE" bo/variants/stock53/build/lib/libjemalloc_pic.a -lpthread -ldl -lm
start MALLOC_CONF=narenas:2,bogus_key:1 -- ./alive-stock --wait
expect_exit 1 "$AB" probe --pid $pid --against bo --json -o rec.json
cmp -s out rec.json || fail "-o and --json differ"
[ "$(json rec.json '[(a["kind"], a["version"], a["linked"], a["baked_conf"]) for a in d["allocators"]]')" = \
	"[('jemalloc', '5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c', 'static', '')]" ] ||
	fail "allocators: $(cat rec.json)"
[ "$(json rec.json '[(s["setting"], s["value"], s["status"]) for s in d["settings"]]')" = \
	"[('narenas', '2', 'read'), ('bogus_key', '1', 'invalid')]" ] || fail "settings: $(cat rec.json)"
check "match: by the allocator, five candidates" test "$(json rec.json '(d["match"]["variant"], d["match"]["by"], d["match"]["candidates"])')" = \
	"(None, 'allocator', ['stock53', 'fit-only', 'frag-stock53', 'frag-fit-only', 'frag-aa'])"
[ "$(json rec.json '(d["pid"], d["process"]["exe"]["sha256"], d["process"]["comm"])')" = \
	"($pid, '$(sha256sum alive-stock | cut -c1-64)', 'alive-stock')" ] || fail "process: $(cat rec.json)"
[ "$(json rec.json 'd["host"]["boot_id"]')" = "$(cat /proc/sys/kernel/random/boot_id)" ] || fail "boot id"
check "problems" test "$(json rec.json '[p["kind"] for p in d["problems"]]')" = "['invalid-setting', 'ambiguous']"
expect_grep 'MALLOC_CONF: jemalloc 5.3.0 has no option '"'"'bogus_key'"'"': it reports "Invalid conf pair: bogus_key:1" and ignores it' err
# the runtime variants of the same archive, by their environment: fit-only and frag-fit-only alike
# (whether an --expect that one of several such variants meets is met: issue 48, item 10)
start MALLOC_CONF=lg_extent_max_active_fit:30 -- ./alive-stock --wait
expect_exit 1 "$AB" probe --pid $pid --against bo
expect_grep "variant      one of stock53, fit-only, frag-stock53, frag-fit-only and frag-aa (by their allocator, in bo)" out
expect_grep "environment  matches several" out
echo "allocbuild: probe: pid $pid: the process could be any of fit-only and frag-fit-only (the same allocator and environment)" |
	expect_file err
# the bundle of the same build answers the same
expect_exit 0 "$AB" pr -o prdir bo
expect_exit 1 "$AB" probe --pid $pid --against prdir/provenance-jemalloc-5.3.0-policy.tar.gz --json
check "bundle match" test "$(json out '(d["match"]["variant"], d["match"]["candidates"])')" = \
	"(None, ['stock53', 'fit-only', 'frag-stock53', 'frag-fit-only', 'frag-aa'])"

# 2. preloaded shared allocators: Debian's libjemalloc 5.3.0 and libmimalloc 2.0.9
start LD_PRELOAD=$L/libjemalloc.so.2 MALLOC_CONF=narenas:2 -- sleep 60
expect_exit 0 "$AB" probe --pid $pid --json
[ "$(json out '[(a["kind"], a["version"], a["linked"], a["file"]) for a in d["allocators"]]')" = \
	"[('jemalloc', '5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c', 'shared', '$L/libjemalloc.so.2')]" ] ||
	fail "preloaded jemalloc: $(cat out)"
[ "$(json out 'd["environment"]')" = "{'LD_PRELOAD': '$L/libjemalloc.so.2', 'MALLOC_CONF': 'narenas:2'}" ] ||
	fail "environment: $(cat out)"
start LD_PRELOAD=$L/libmimalloc.so.2 MIMALLOC_PURGE_DELAY=0 MIMALLOC_DECOMMIT_DELAY=5 -- sleep 60
expect_exit 1 "$AB" probe --pid $pid
expect_grep "allocator    mimalloc 2.0.9, shared object $L/libmimalloc.so.2.0, secure level 0" out
expect_grep "setting      MIMALLOC_DECOMMIT_DELAY decommit_delay=5  read (mimalloc 2.0.9)" out
expect_grep "setting      MIMALLOC_PURGE_DELAY=0  ignored (mimalloc 2.0.9): mimalloc 2.0.9 has no option MIMALLOC_PURGE_DELAY: it ignores it silently" out
expect_file err <<X
allocbuild: probe: pid $pid: mimalloc 2.0.9 has no option MIMALLOC_PURGE_DELAY: it ignores it silently
X

# 3. two allocators at once: jemalloc linked in, mimalloc preloaded
start LD_PRELOAD=$L/libmimalloc.so.2 -- ./alive-stock --wait
expect_exit 1 "$AB" probe --pid $pid --json
[ "$(json out '[a["kind"] for a in d["allocators"]]')" = "['jemalloc', 'mimalloc']" ] || fail "two: $(cat out)"
[ "$(json out '[p["kind"] for p in d["problems"]]')" = "['two-allocators']" ] || fail "conflict: $(cat out)"

# 4. glibc's malloc when nothing else is there
cc -O2 -o alive-glibc "$ALIVE" -lpthread
start -- ./alive-glibc --wait
expect_exit 0 "$AB" probe --pid $pid --json
[ "$(json out '[(a["kind"], a["version"]) for a in d["allocators"]]')" = \
	"[('glibc', '$(ldd --version | sed -n '1s/.* //p')')]" ] || fail "glibc: $(cat out)"

# 5. pids that cannot be read: each exit 2 with the reason
expect_exit 2 "$AB" probe --pid 999999999
expect_file err <<'X'
allocbuild: probe: no process 999999999
X
expect_exit 2 "$AB" probe --pid 2
expect_grep "is a kernel thread: it has no executable and no allocator" err
start -- sleep 60
victim=$pid
# the probe stops after its first read until the file is removed; the process ends meanwhile
rc=0
env ALLOCBUILD_TEST_PID_PAUSE="$PWD/paused" "$AB" probe --pid $victim >out 2>err &
prober=$!
for i in $(seq 300); do [ -e paused ] && break; sleep 0.1; done
[ -e paused ] || fail "the probe did not reach its pause"
kill $victim
wait $victim 2>/dev/null || true
rm paused
wait $prober || rc=$?
[ $rc = 2 ] || { cat err; fail "expected exit 2 for a process that exits while read, got $rc"; }
expect_file err <<X
allocbuild: probe: process $victim exited while it was read
X
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	start -- sleep 60
	chmod o+rx "$PWD"
	expect_exit 2 setpriv --reuid=nobody --regid=nogroup --clear-groups "$AB" probe --pid $pid
	expect_file err <<X
allocbuild: probe: cannot read the executable of process $pid (user root): Permission denied; run as that user or as root
X
else
	echo "skipped: another user's process needs root to run the probe as nobody" >&2
fi
# several pids: one record each, the worst exit code
start -- ./alive-glibc --wait
expect_exit 2 "$AB" probe --pid $pid --pid 999999999 --json
[ "$(json out 'd[0]["pid"]')" = "$pid" ] || fail "several: $(cat out)"

# 6. jemalloc with the symbol prefix je_, built by allocbuild from the real tarball:
# probed through JE_MALLOC_CONF; a runtime variant setting plain MALLOC_CONF fails
# (the suite fixture je_prefix: `allocbuild build -j2 -o jo je.json`, run
# once per source tree, with its exit status and output)
suite_fixture je_prefix allocbuild
cp -a "$FIXTURE/jo" jo
cp "$FIXTURE/build.err" err
[ "$(cat "$FIXTURE/build.rc")" = 1 ] || fail "the je-prefix build exited $(cat "$FIXTURE/build.rc"), not 1"
expect_grep "allocbuild: je-plain: probe: MALLOC_CONF has no effect on this binary: it reads JE_MALLOC_CONF" err
[ "$(json jo/provenance/allocator-probes.json '[(v["label"], v["probe"]["prefix"], v["probe"]["conf_var"], v["probe"]["ok"]) for v in d["variants"]]')" = \
	"[('je', 'je_', 'JE_MALLOC_CONF', True), ('je-narenas', 'je_', 'JE_MALLOC_CONF', True), ('je-plain', 'je_', 'JE_MALLOC_CONF', False)]" ] ||
	fail "prefixed probes: $(cat jo/provenance/allocator-probes.json)"
[ "$(json jo/provenance/allocator-probes.json '[v["probe"]["effective"]["narenas"] for v in d["variants"]][1]')" = 2 ] ||
	fail "JE_MALLOC_CONF took no effect"
cc -O2 -DALIVE_PREFIX=je_ -o alive-je "$ALIVE" jo/variants/je/build/lib/libjemalloc_pic.a -lpthread -ldl -lm
start MALLOC_CONF=narenas:2 JE_MALLOC_CONF=narenas:1 -- ./alive-je --wait
expect_exit 1 "$AB" probe --pid $pid --json
[ "$(json out '[(a["kind"], a["prefix"], a["conf_var"]) for a in d["allocators"] if a["kind"] == "jemalloc"]')" = \
	"[('jemalloc', 'je_', 'JE_MALLOC_CONF')]" ] || fail "prefix: $(cat out)"
[ "$(json out '[(s["variable"], s["status"]) for s in d["settings"]]')" = \
	"[('MALLOC_CONF', 'ignored'), ('JE_MALLOC_CONF', 'read')]" ] || fail "prefixed settings: $(cat out)"
expect_grep "MALLOC_CONF has no effect on this process: its jemalloc reads JE_MALLOC_CONF" err
# --against with --expect, met and not: je's archive with je-narenas's environment is je-narenas alone
start JE_MALLOC_CONF=narenas:2 -- ./alive-je --wait
expect_exit 0 "$AB" probe --pid $pid --against jo --expect je-narenas
expect_grep "variant      je-narenas (by its allocator, in jo)" out
expect_grep "environment  matches" out
expect_exit 1 "$AB" probe --pid $pid --against jo --expect je
echo "allocbuild: probe: pid $pid: expected variant 'je', the process is je-narenas" | expect_file err
# env says so too: on stderr and as a comment in the lines it prints
expect_exit 0 "$AB" env jo je-plain
expect_file out <<'X'
unset JE_MALLOC_CONF
export MALLOC_CONF='narenas:2'
# warning: MALLOC_CONF has no effect on this binary: it reads JE_MALLOC_CONF
X
expect_file err <<'X'
allocbuild: warning: je-plain: MALLOC_CONF has no effect on this binary: it reads JE_MALLOC_CONF
X
# and pr.md, among the probe's findings
expect_exit 0 "$AB" pr -o prdir jo
# (markdown text: its underscores escaped)
expect_grep '| `je-plain` | **⚠ ignored** | `MALLOC_CONF` | runtime | MALLOC\_CONF has no effect on this binary: it reads JE\_MALLOC\_CONF |' prdir/pr.md
