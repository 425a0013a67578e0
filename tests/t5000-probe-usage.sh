# probe: usage errors, programs that cannot run, programs without a known
# allocator; nothing is written anywhere.
. "$TOP/tests/lib.sh"

expect_exit 2 "$AB" probe
expect_file err <<'X'
allocbuild: probe: no program to run
Try 'allocbuild help probe'.
X
expect_file out </dev/null

expect_exit 2 "$AB" probe --allocator hoard -- true
expect_file err <<'X'
allocbuild: probe: unknown allocator 'hoard' (jemalloc, mimalloc, tcmalloc or glibc)
Try 'allocbuild help probe'.
X

expect_exit 2 "$AB" probe --env MALLOC_CONF -- true
expect_file err <<'X'
allocbuild: probe: --env wants NAME=VALUE, not 'MALLOC_CONF'
Try 'allocbuild help probe'.
X

expect_exit 2 "$AB" probe --env =x -- true
expect_grep "allocbuild: probe: --env wants NAME=VALUE, not '=x'" err

expect_exit 2 "$AB" probe --unset 'A B' -- true
expect_grep "allocbuild: probe: --unset wants a variable name, not 'A B'" err

expect_exit 2 "$AB" probe --frob -- true
expect_grep "allocbuild: probe: unknown option '--frob'" err

expect_exit 2 "$AB" probe --env
expect_grep "allocbuild: probe: option '--env' needs a value" err

expect_exit 2 "$AB" probe --archive x.a -- true
expect_grep "allocbuild: probe: --archive and a program to run exclude each other" err

expect_exit 2 "$AB" probe --workdir w -- true
expect_grep "allocbuild: probe: --workdir needs --archive" err

expect_exit 2 "$AB" probe --timeout 0 -- true
expect_grep "allocbuild: probe: --timeout wants a positive number of seconds, not '0'" err

# a program that does not exit by itself is killed and reported (jemalloc, then mimalloc tried)
expect_exit 1 "$AB" probe --timeout 1 --json -- sleep 30
expect_file err <<'X'
allocbuild: probe: 'sleep' ran past the probe's limit of 1s and was killed: give it arguments that make it exit
X
[ "$(json out '(d["allocator"], d["problems"][0]["kind"], d["run"]["timed_out"], d["run"]["signal"])')" = \
	"(None, 'timeout', True, 9)" ] || fail "timeout record: $(cat out)"

# a program that cannot start
expect_exit 2 "$AB" probe -- ./no-such-program
expect_file err <<'X'
allocbuild: cannot run './no-such-program': No such file or directory
X
expect_file out </dev/null

# archives that are missing or unnamed
expect_exit 2 "$AB" probe --archive libjemalloc_pic.a --workdir w
expect_file err <<'X'
allocbuild: probe: no archive 'libjemalloc_pic.a'
X
[ ! -e w ] || fail "probe created its workdir for a missing archive"
# missing, and with a name that tells no allocator: missing is what is said
expect_exit 2 "$AB" probe --archive libnone.a --workdir w
expect_file err <<'X'
allocbuild: probe: no archive 'libnone.a'
X
: >libfoo.a
expect_exit 2 "$AB" probe --archive libfoo.a --workdir w
expect_file err <<'X'
allocbuild: probe: cannot tell the allocator of 'libfoo.a' from its name: name it (jemalloc, mimalloc or tcmalloc)
X
# an archive that is not an allocator: the probe program does not link
expect_exit 2 "$AB" probe --allocator mimalloc --archive libfoo.a --workdir w
expect_grep "allocbuild: probe: cannot link a probe program against 'libfoo.a' (exit status 1):" err
expect_grep "mi_version" err

# a program that uses neither allocator: glibc's malloc, named as such
glibc=$(ldd --version | sed -n '1s/.* //p')
expect_exit 0 "$AB" probe -- true
expect_file err </dev/null
expect_file out <<X
allocator      glibc
version        $glibc

result         ok
X
# an allocator setting for it has no effect: a check failure
expect_exit 1 "$AB" probe --env MALLOC_CONF=narenas:2 -- true
expect_file err <<'X'
allocbuild: probe: MALLOC_CONF has no effect: the program allocates with glibc's malloc
X
# asked for jemalloc, and nothing reported: it says so and never claims jemalloc
expect_exit 1 "$AB" probe --allocator jemalloc --json -- true
[ "$(json out '(d["allocator"], d["asked_for"], [p["kind"] for p in d["problems"]])')" = \
	"(None, 'jemalloc', ['no_statistics'])" ] || fail "record: $(cat out)"
expect_exit 1 "$AB" probe --allocator jemalloc -- true
expect_grep "allocator      none reported (asked for jemalloc)" out
expect_exit 1 "$AB" probe --allocator jemalloc --json -- sh -c 'echo "<jemalloc>: Invalid conf pair: x:1" >&2; exit 3'
[ "$(json out 'd["allocator"]')" = jemalloc ] || fail "allocator: $(cat out)"
[ "$(json out '[p["kind"] for p in d["problems"]]')" = "['invalid', 'no_statistics']" ] || fail "problems: $(cat out)"
[ "$(json out 'd["run"]["exit_code"]')" = 3 ] || fail "exit code: $(cat out)"
[ "$(json out 'd["ok"]')" = False ] || fail "ok: $(cat out)"
expect_grep "no jemalloc report in the output of 'sh' (exit status 3): is it linked with jemalloc?" err

# jemalloc's diagnostics without statistics (abort_conf:true): still jemalloc
expect_exit 1 "$AB" probe --env MALLOC_CONF=abort_conf:true,bogus:1 -- sh -c '
	echo "<jemalloc>: Invalid conf pair: bogus:1" >&2
	echo "<jemalloc>: Abort (abort_conf:true) on invalid conf value (see above)." >&2
	kill -ABRT $$'
expect_file err <<'X'
allocbuild: probe: invalid setting 'bogus:1' in the runtime MALLOC_CONF: Invalid conf pair
allocbuild: probe: no jemalloc statistics from 'sh' (killed by signal 6 (Aborted)): jemalloc aborted on an invalid setting (abort_conf:true)
X
head -n 1 out >head
expect_file head <<'X'
allocator      jemalloc
X
rm head

# the requested environment reaches the program; allocator variables inherited are scrubbed
MIMALLOC_VERBOSE=7 FOO_INHERITED=1 expect_exit 1 "$AB" probe --allocator mimalloc --env MIMALLOC_SHOW_STATS=1 \
	--env PROBE_X=y --unset FOO_INHERITED --json -- sh -c 'env | grep -E "^(MIMALLOC|PROBE|FOO|MALLOC)" | sort >env.txt'
expect_file env.txt <<'X'
MIMALLOC_SHOW_STATS=1
MIMALLOC_VERBOSE=1
PROBE_X=y
X
# (the runner's toolchain variables, MAKEFLAGS under make, are removed too: docs/build.md)
[ "$(json out '[x for x in d["run"]["env_removed"] if x in ("MIMALLOC_VERBOSE", "FOO_INHERITED")]')" = "['MIMALLOC_VERBOSE', 'FOO_INHERITED']" ] ||
	fail "env_removed: $(cat out)"
[ "$(json out 'd["requested"]')" = "{'env': {'MIMALLOC_SHOW_STATS': '1', 'PROBE_X': 'y'}, 'unset': ['FOO_INHERITED']}" ] ||
	fail "requested: $(cat out)"

# nothing else was written: the workdir holds the probe program's source only
files=$(ls -A; ls -A w)
[ "$files" = "$(printf 'env.txt\nerr\nhome\nlibfoo.a\nout\nw\nprobe.c')" ] || fail "files: $files"
