#!/usr/bin/env bash
# build: the make-based builds of one run share a jobserver of -j N tokens.
# Three variants with -j2: never more than 2 jobs at once across all of
# them, and the variant that builds alone at the end runs 2 jobs at once
# (with the static split each would get make -j1). Autotools and cmake; an
# explicit build.jobs keeps its -jK; a make killed with -9 loses its tokens
# but no later build is starved of them.
. "$TOP/tests/lib.sh"

# make_jsproj DIR -> the sha256 of a tarball (in DIR/mirror/sha256/) of a
# project that is both autotools-shaped and a CMake project. Targets `few`
# (jobs f1 f2) and `many` (jobs m1..m6); each job logs "start|stop TAG JOB
# TIME PID" to $JS_LOG and sleeps $JS_SLEEP. While the file $JS_KILL exists,
# job m2 first creates $JS_KILL_DONE and kills its make with -9, once m1
# runs too. configure --wait-for=FILE first waits (up to 30 s) for FILE.
make_jsproj() {
	local dir=$1 src=$1/jsproj-1.0
	mkdir -p "$src" "$dir/mirror/sha256"
	cat >"$src/job.sh" <<'SH'
#!/bin/sh
echo "start $JS_TAG $1 $(date +%s.%N) $$" >>"$JS_LOG"
if [ -n "${JS_KILL:-}" ] && [ -e "$JS_KILL" ] && [ "$1" = m2 ]; then
	while ! grep -q "^start $JS_TAG m1 " "$JS_LOG"; do sleep 0.05; done
	p=$PPID
	while [ "$(cat /proc/$p/comm)" != make ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
	: >"$JS_KILL_DONE"
	kill -9 "$p"
	sleep 5
fi
sleep "${JS_SLEEP:-0.5}"
echo "stop $JS_TAG $1 $(date +%s.%N) $$" >>"$JS_LOG"
: >"$2"
SH
	cat >"$src/configure" <<'CFG'
#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
for a in "$@"; do
	case $a in
	--wait-for=*) i=0; while [ ! -e "${a#--wait-for=}" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done ;;
	esac
done
# the fds this configure got: the jobserver's must not be among them
ls /proc/$$/fd >configure-fds.txt
sed -e "s|@srcdir@|$srcdir|" "$srcdir/Makefile.in" >Makefile
CFG
	chmod +x "$src/configure" "$src/job.sh"
	cat >"$src/Makefile.in" <<'MK'
.PHONY: all few many
all: many
few: few.done
many: many.done
few.done: f1.out f2.out
	cat f1.out f2.out >$@
many.done: m1.out m2.out m3.out m4.out m5.out m6.out
	cat m1.out m2.out m3.out m4.out m5.out m6.out >$@
%.out:
	sh @srcdir@/job.sh $* $@
MK
	cat >"$src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(jsproj C)
foreach(j f1 f2 m1 m2 m3 m4 m5 m6)
	add_custom_command(OUTPUT ${j}.out COMMAND sh ${CMAKE_SOURCE_DIR}/job.sh ${j} ${j}.out)
endforeach()
add_custom_target(fewjobs DEPENDS f1.out f2.out)
add_custom_target(manyjobs DEPENDS m1.out m2.out m3.out m4.out m5.out m6.out)
add_library(few STATIC lib.c)
add_dependencies(few fewjobs)
add_library(many STATIC lib.c)
add_dependencies(many manyjobs)
CM
	printf 'int js_lib(void) { return 1; }\n' >"$src/lib.c"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$dir" -czf "$dir/jsproj-1.0.tar.gz" jsproj-1.0
	local h
	h=$(sha256sum "$dir/jsproj-1.0.tar.gz" | cut -d' ' -f1)
	cp "$dir/jsproj-1.0.tar.gz" "$dir/mirror/sha256/$h"
	echo "$h"
}

# joblog OUTDIR: every variant's job log (one clock for all the sandboxes) into jobs.log
joblog() {
	cat "$1"/variants/*/build/jobs.log >jobs.log 2>/dev/null || :
}

# maxc LOG [TAG]: the most jobs (of variant TAG) that ran at one moment
maxc() {
	awk -v tag="${2:-}" '(tag == "" || $2 == tag) { print $4, ($1 == "start") ? 1 : -1 }' "$1" |
		sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m + 0 }'
}

# recipe FILE SYSTEM LABEL:TARGET:ARTIFACT[:EXTRA]...: variants of jsproj,
# each with JS_TAG=LABEL and, as its build sandbox shows them, its own
# JS_LOG and JS_KILL_DONE in its build tree (its logs are read-only to its
# steps), JS_KILL in OUTDIR/variants (read-only
# there: the test makes it); EXTRA is spliced into the variant's build object
recipe() {
	local file=$1 system=$2 sep=""
	shift 2
	{
		printf '{"recipe": 1, "name": "js", "sources": {"js": {"archive": {"urls": ["https://example.invalid/jsproj-1.0.tar.gz"], "sha256": "%s", "strip": 1}}},\n "variants": [\n' "$sha"
		for v in "$@"; do
			IFS=: read -r label target artifact extra <<<"$v"
			printf '%s  {"label": "%s", "source": "js", "artifacts": ["%s"],\n   "build": {"system": "%s", "targets": ["%s"], "env": {"JS_LOG": "/allocbuild/build/jobs.log", "JS_TAG": "%s", "JS_KILL": "/allocbuild/variants/kill-%s", "JS_KILL_DONE": "/allocbuild/build/kill.done"}%s}}' \
				"$sep" "$label" "$artifact" "$system" "$target" "$label" "$label" "${extra:+, $extra}"
			sep=$',\n'
		done
		printf '\n]}\n'
	} >"$file"
}

sha=$(make_jsproj "$PWD")

# ---- autotools: a and b few jobs, c many; c starts last and ends alone
recipe at.json autotools a:few:few.done b:few:few.done c:many:many.done
expect_exit 0 "$AB" build -j2 --mirror-dir mirror -o bo at.json
joblog bo
O=$PWD/bo
[ "$(maxc jobs.log)" -le 2 ] || { cat jobs.log >&2; fail "more than 2 jobs at once with -j2"; }
[ "$(maxc jobs.log c)" = 2 ] || { cat jobs.log >&2; fail "c, alone at the end, did not run 2 jobs at once"; }
[ "$(grep -c '^stop ' jobs.log)" = 10 ] || fail "not every job ran"
# recorded as planned: argv without -j, MAKEFLAGS with <fds>, the jobserver noted
bc=bo/provenance/build-commands.json
[ "$(json $bc 'd["variants"][2]["steps"][2]["argv"]')" = "['make', 'many']" ]
[ "$(json $bc 'd["variants"][2]["steps"][2]["env_set"]["MAKEFLAGS"]')" = "-j2 --jobserver-auth=<fds>" ]
[ "$(json $bc 'd["variants"][2]["steps"][2]["jobserver"]')" = "{'jobs': 2}" ]
[ "$(json $bc '"MAKEFLAGS" in d["variants"][2]["steps"][1]["env_set"]')" = False ]
[ "$(json $bc 'd["options"]["jobserver"]')" = 2 ]
[ "$(json bo/provenance/provenance.intoto.json 'd["predicate"]["buildDefinition"]["externalParameters"]["options"]["jobserver"]')" = 2 ]
# plan prints the same
expect_exit 0 "$AB" plan -j2 -o bo at.json
expect_grep "jobs 2: up to 2 variants at once, make-based builds share a jobserver of 2 tokens" out
expect_grep "      run: make many" out
expect_grep "      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>" out
# the log has the real fds; configure (and every other child) did not get them
fds=$(sed -n 's/^# env: MAKEFLAGS=-j2 --jobserver-auth=\([0-9]*,[0-9]*\) (the jobserver of this run: 2 tokens)$/\1/p' \
	bo/variants/c/logs/03-build.log)
[ -n "$fds" ] || { cat bo/variants/c/logs/03-build.log >&2; fail "no jobserver fds in the build log"; }
[ -s bo/variants/c/build/configure-fds.txt ] || fail "configure did not list its fds"
for fd in ${fds/,/ }; do
	! grep -qx "$fd" bo/variants/c/build/configure-fds.txt || fail "configure inherited jobserver fd $fd"
done
expect_no_grep "warning" bo/variants/c/logs/03-build.log
# the content key does not depend on -j: -j1 and -j3 change nothing
expect_exit 0 "$AB" build -j1 --mirror-dir mirror -o bo at.json
expect_exit 0 "$AB" build -j3 --mirror-dir mirror -o bo at.json
[ "$(grep -c 'up to date' err)" -ge 3 ] || { cat err >&2; fail "changing -j rebuilt something"; }
joblog bo
[ "$(grep -c '^stop ' jobs.log)" = 10 ] || fail "changing -j rebuilt something"

# ---- an explicit build.jobs keeps make -jK, outside the jobserver
rm -f jobs.log
recipe fixed.json autotools 'x:many:many.done:"jobs": 3'
expect_exit 0 "$AB" build -j2 --mirror-dir mirror -o bo-fixed fixed.json
joblog bo-fixed
[ "$(maxc jobs.log x)" = 3 ] || { cat jobs.log >&2; fail "make -j3 did not run 3 jobs"; }
bc=bo-fixed/provenance/build-commands.json
[ "$(json $bc 'd["variants"][0]["steps"][2]["argv"]')" = "['make', '-j3', 'many']" ]
[ "$(json $bc '"MAKEFLAGS" in d["variants"][0]["steps"][2]["env_set"] or "jobserver" in d["variants"][0]["steps"][2]')" = False ]
[ "$(json $bc 'd["options"]["jobserver"]')" = 0 ]

# ---- a make killed with -9 while it holds a token: the other variant,
# building after it, still gets both; so does a rerun
rm -f jobs.log
mkdir -p bo-kill/variants
touch bo-kill/variants/kill-victim
recipe kill.json autotools victim:many:many.done "after:many:many.done:\"configure\": [\"--wait-for=/allocbuild/variants/victim/build/kill.done\"]"
expect_exit 1 "$AB" build -j2 -k --mirror-dir mirror -o bo-kill kill.json
joblog bo-kill
expect_grep "allocbuild: victim: make many failed: killed by signal 9 (Killed)" err
# the killed make held two tokens: m1 and m2 ran at once (and never stopped)
[ "$(maxc jobs.log victim)" = 2 ] || { cat jobs.log >&2; fail "victim's make did not hold a second token"; }
[ "$(maxc jobs.log after)" = 2 ] || { cat jobs.log bo-kill/variants/after/logs/03-build.log >&2; fail "after was starved of the lost token"; }
[ -f bo-kill/variants/after/build/many.done ] || fail "after was not built"
rm bo-kill/variants/kill-victim jobs.log
expect_exit 0 "$AB" build -j2 --mirror-dir mirror -o bo-kill kill.json
joblog bo-kill
[ "$(maxc jobs.log victim)" = 2 ] || { cat jobs.log >&2; fail "the rerun did not get the full budget"; }
expect_grep "after: make many: up to date" err

# ---- cmake (Unix Makefiles: cmake --build runs gmake, which joins); a
# CMAKE_BUILD_PARALLEL_LEVEL in the caller's environment would turn into -jK
rm -f jobs.log
recipe cm.json cmake a:few:libfew.a b:few:libfew.a c:many:libmany.a
export CMAKE_BUILD_PARALLEL_LEVEL=7
expect_exit 0 "$AB" build -j2 --mirror-dir mirror -o bo-cm cm.json
unset CMAKE_BUILD_PARALLEL_LEVEL
joblog bo-cm
[ "$(maxc jobs.log)" -le 2 ] || { cat jobs.log >&2; fail "more than 2 cmake jobs at once with -j2"; }
[ "$(maxc jobs.log c)" = 2 ] || { cat jobs.log >&2; fail "cmake c, alone at the end, did not run 2 jobs at once"; }
[ "$(grep -c '^stop ' jobs.log)" = 10 ] || fail "not every cmake job ran"
bc=bo-cm/provenance/build-commands.json
[ "$(json $bc 'd["variants"][2]["steps"][2]["argv"][3:]')" = "['--target', 'many']" ] ||
	fail "cmake --build got a -j: $(json $bc 'd["variants"][2]["steps"][2]["argv"]')"
[ "$(json $bc 'd["variants"][2]["steps"][2]["env_set"]["MAKEFLAGS"]')" = "-j2 --jobserver-auth=<fds>" ]
[ "$(json $bc '"CMAKE_BUILD_PARALLEL_LEVEL" in d["variants"][2]["steps"][2]["env_removed"]')" = True ]
expect_no_grep "warning: -j" bo-cm/variants/c/logs/03-build.log
