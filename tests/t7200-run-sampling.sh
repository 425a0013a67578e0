#!/usr/bin/env bash
# run's sampler on a program of known shape linked against the default
# recipe's stock53 archive: it ramps to 64 MiB, holds, marks the end of its
# window, frees down to 8 MiB (jemalloc purged) and idles, reporting its own
# RSS at each step; run --sample-ms 20 --cooldown 1 finds steady, peak and
# cooldown RSS within 10% of what it reports. The series is beside the
# record, listed in SHA256SUMS, a byproduct of the record and in the bundle;
# verify covers it and fails on a tampered one. Then: the driver's
# ALLOCBUILD_METRIC lines, a server left running by its driver sampled
# through the cooldown and ended, --sample-comm, --cpus, --sample-ms 0, and
# the refusals (nothing recorded).
. "$TOP/tests/lib.sh"

default_build bo
cat >shape.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int mallctl(const char *, void *, size_t *, void *, size_t);

static long
rss_kb(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	if (f)
		fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void
nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

/* ramp to 64 MiB, hold 1 s, mark, free to 8 MiB, idle 1.5 s (argv[1]: idle seconds instead) */
int
main(int argc, char **argv)
{
	enum { N = 64, MIB = 1 << 20 };
	char *blk[N];

	for (int i = 0; i < N; i++) {
		if (!(blk[i] = malloc(MIB)))
			return 3;
		memset(blk[i], i + 1, MIB);
	}
	printf("held rss_kb=%ld\n", rss_kb());
	fflush(stdout);
	nap(1.0);
	printf("held rss_kb=%ld\n", rss_kb());
	printf("window-end\n");
	fflush(stdout);
	for (int i = 8; i < N; i++)
		free(blk[i]);
	/* jemalloc returns the freed pages now rather than after its decay time */
	mallctl("arena.4096.purge", NULL, NULL, NULL, 0);
	nap(0.1);
	printf("idle rss_kb=%ld\n", rss_kb());
	printf("ALLOCBUILD_METRIC blocks_per_s=640.5 blocks/s\n");
	printf("ALLOCBUILD_METRIC idle_mib=%.1f MiB cell=idle\n", rss_kb() / 1024.0);
	printf("ALLOCBUILD_METRIC broken=fast\n");
	fflush(stdout);
	nap(argc > 1 ? atof(argv[1]) : 1.5);
	return 0;
}
C
cc -O1 -o shape shape.c bo/variants/stock53/build/lib/libjemalloc_pic.a -lpthread -ldl -lm ||
	fail "cannot link against stock53's archive"

expect_exit 0 "$AB" run bo stock53 --name shape --sample-ms 20 --cooldown 1 --mark '^window-end$' -- ./shape
R=bo/runs/shape/0001-stock53.intoto.json
S='d["predicate"]["sampling"]'
F="$S['figures']"
held=$(grep '^held' bo/runs/shape/0001-stock53.log | tail -n 1 | sed 's/.*=//')
idle=$(sed -n 's/^idle rss_kb=//p' bo/runs/shape/0001-stock53.log)
# within 10% of what the program says of itself
near() { # WHAT GOT WANT
	awk -v g="$2" -v w="$3" 'BEGIN { exit !(g >= 0.9 * w && g <= 1.1 * w) }' ||
		fail "$1: $2 kB sampled, the program reports $3 kB"
}
near steady "$(json $R "$F['steady_rss_kb']")" "$held"
near peak "$(json $R "$F['peak_rss_kb']")" "$held"
near cooldown "$(json $R "$F['cooldown_rss_kb']")" "$idle"
[ "$idle" -lt 16384 ] || fail "the program did not free down to 8 MiB: $idle kB"
[ "$(json $R "$S['window']['ended_by']")" = mark ]
[ "$(json $R "$S['window']['end_line']")" = window-end ]
[ "$(json $R "$S['cooldown']['reached']")" = True ]
[ "$(json $R "$S['cooldown']['leftovers_ended']")" = 0 ]
[ "$(json $R "$S['interval_ms']")" = 20 ]
[ "$(json $R "$F['max_processes']")" = 1 ]
[ "$(json $R "$F['minor_faults'] > 16000")" = True ] || fail "64 MiB touched, too few minor faults"
[ "$(json $R "$F['rss_gib_s'] > 0.05")" = True ] || fail "RSS GiB*s too small"
expect_grep "steady RSS " out
expect_grep ", cooldown " out
# allocbuild's own overhead, recorded
[ "$(json $R "d['predicate']['overhead']['sampler_readings'] > 50")" = True ]
[ "$(json $R "d['predicate']['overhead']['sampler_cpu_s'] <= d['predicate']['overhead']['allocbuild_cpu_s']")" = True ]
# the driver's figures, with their units; a malformed line warned about
[ "$(json $R "d['predicate']['metrics']")" = "[{'name': 'blocks_per_s', 'value': 640.5, 'unit': 'blocks/s', \
'cell': None, 'better': 'higher', 'reported': 1}, {'name': 'idle_mib', 'value': $(json $R \
"d['predicate']['metrics'][1]['value']"), 'unit': 'MiB', 'cell': 'idle', 'better': 'lower', 'reported': 1}]" ] ||
	fail "the metrics: $(json $R "d['predicate']['metrics']")"
expect_grep "allocbuild: warning: run: stock53: log line 7: 'ALLOCBUILD_METRIC broken=fast': not a metric: its VALUE is not a finite decimal number" err

# the series: beside the record, a byproduct, listed, covered by verify
C=bo/runs/shape/0001-stock53.series.csv
[ "$(head -n 1 $C)" = "ms,rss_kb,cpu_ms,minflt,majflt,threads,processes" ] || fail "the series' header"
[ "$(json $R "$S['series']['samples']")" = "$(($(wc -l <$C) - 1))" ]
[ "$(json $R "$S['series']['sha256']")" = "$(sha256sum <$C | cut -c1-64)" ]
[ "$(json $R "[b['name'] for b in d['predicate']['byproducts']]")" = \
	"['runs/shape/0001-stock53.log', 'runs/shape/0001-stock53.series.csv']" ]
grep -q "  runs/shape/0001-stock53.series.csv\$" bo/SHA256SUMS || fail "the series is not in SHA256SUMS"
expect_exit 0 "$AB" verify bo
cp $C series.saved
sed -i '2s/^\([0-9]*\),[0-9]*,/\1,1,/' $C
expect_exit 1 "$AB" verify bo
expect_grep "runs/shape/0001-stock53.series.csv: expected $(sha256sum <series.saved | cut -c1-64), actual " out
cp series.saved $C
expect_exit 0 "$AB" verify bo
expect_exit 0 "$AB" pr -o pr bo
tar -tzf pr/provenance-jemalloc-5.3.0-policy.tar.gz | grep -q 'runs/shape/0001-stock53.series.csv$' ||
	fail "the series is not in the bundle"
expect_exit 0 "$AB" verify pr/provenance-jemalloc-5.3.0-policy.tar.gz

# a driver that starts its server and exits: the window ends with the driver,
# the server is sampled through the cooldown, then ended
cat >drive-server <<'SH'
#!/bin/sh
./shape 30 >/dev/null &
sleep 1.2
echo "driver done"
SH
chmod +x drive-server
start=$(date +%s)
expect_exit 0 "$AB" run bo stock53 --name server --sample-comm shape --cooldown 1 -- ./drive-server
[ $(($(date +%s) - start)) -lt 10 ] || fail "the server left running was not ended after the cooldown"
R=bo/runs/server/0001-stock53.intoto.json
[ "$(json $R "$S['window']['ended_by']")" = exit ]
[ "$(json $R "$S['cooldown']['leftovers_ended']")" = 1 ]
[ "$(json $R "$S['cooldown']['reached']")" = True ]
[ "$(json $R "$S['comm']")" = shape ]
[ "$(json $R "$S['figures']['tree_peak_rss_kb'] >= $S['figures']['peak_rss_kb']")" = True ]
near "server cooldown" "$(json $R "$S['figures']['cooldown_rss_kb']")" "$idle"
pgrep -f './shape 30' && fail "the server still runs"
head -n 1 bo/runs/server/0001-stock53.series.csv | grep -qx 'ms,rss_kb,cpu_ms,minflt,majflt,threads,processes,comm_rss_kb' ||
	fail "no comm_rss_kb column"

# --cpus: recorded, and the affinity the command got
expect_exit 0 "$AB" run bo stock53 --name pinned --cpus 0 --sample-ms 0 -- sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_grep "Cpus_allowed_list:	0" bo/runs/pinned/0001-stock53.log
[ "$(json bo/runs/pinned/0001-stock53.intoto.json "d['predicate']['cpus']")" = 0 ]
[ "$(json bo/runs/pinned/0001-stock53.intoto.json "d['predicate']['environment']['cpu']['affinity']")" = 0 ]
# --sample-ms 0: no series
[ "$(json bo/runs/pinned/0001-stock53.intoto.json "d['predicate']['sampling']")" = None ]
[ ! -e bo/runs/pinned/0001-stock53.series.csv ] || fail "a series without sampling"
expect_exit 0 "$AB" verify bo

# refused before anything runs or is recorded
cp bo/SHA256SUMS sums.before
expect_exit 2 "$AB" run bo stock53 --name bad --mark '(' -- true
expect_grep "allocbuild: run: --mark: '(' is not an extended regular expression" err
expect_exit 2 "$AB" run bo stock53 --name bad --sample-ms 0 --cooldown 1 -- true
expect_grep "need sampling: not with --sample-ms 0" err
expect_exit 2 "$AB" run bo stock53 --name bad --cpus 1000 -- true
expect_grep "allocbuild: run: --cpus '1000': cannot run on these CPUs" err
expect_exit 2 "$AB" run bo stock53 --name bad --cpus 1-x -- true
expect_grep "allocbuild: run: --cpus wants a CPU list such as '0-3,8', not '1-x'" err
expect_exit 2 "$AB" run bo stock53 --name bad --sample-comm a/b -- true
expect_exit 2 "$AB" run bo stock53 --name bad --cell 'a b' -- true
[ ! -e bo/runs/bad ] || fail "a refused run left files"
cmp bo/SHA256SUMS sums.before || fail "a refused run changed SHA256SUMS"
