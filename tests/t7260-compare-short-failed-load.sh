#!/usr/bin/env bash
# compare on what its records show beyond the figures (issue 48, item 9):
# runs too short to sample have no sampled figures, said in run's lines
# and in compare's warning, not "steady RSS 0.0 MiB"; a label whose every run failed, and a set whose
# every run failed, are exit 1 (they were exit 0); the machine's load at
# the runs' starts (the records' loadavg) is said, with a warning when it
# passed the CPUs (1.5 to 3.2 on 2 CPUs); csv values carry 15 significant
# digits, as the records hold them (they carried 17: 0.22486500000000001).
# A small program of tests/fakeproj.sh's twins recipe; the load written
# into records (with their SHA256SUMS lines) so that it is known.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_twins_recipe r.json
expect_exit 0 "$AB" build -o bo r.json
# the load of this machine varies: the lines that say it (tests/lib.sh: unload) are checked apart

# --- runs too short to sample: a program that exits at once, sampled every 500 ms
expect_exit 0 "$AB" run bo normal53 other --repeat 4 --rotate --sample-ms 500 --name short -- {bin} --once
# run says so of each run, as compare does, and shows no figure of whatever the sampler caught
check "run: a short run's figures shown: $(cat out)" not grep -q "steady RSS" out
check "run: a short run not said so: $(cat out)" \
	test "$(grep -cE ', too short to sample \([0-9] samples?, one every 500 ms\)$' out)" = 8
expect_exit 0 "$AB" compare bo --name short --format json
check "json: no steady RSS, wait4's peak RSS instead" test \
	"$(json out '[m["name"] for m in d["sets"][0]["metrics"]]')" = "['wall_s', 'cpu_s', 'maxrss_mib']"
check "json: 8 runs too short" test "$(json out 'd["sets"][0]["too_short"]')" = 8
expect_exit 0 "$AB" compare bo --name short --metric steady_rss_mib --metric peak_rss_mib --format csv
check "csv: no sampled figure of a short run" test \
	"$(cut -d, -f9 out | sed 1d | sort -u | tr '\n' .)" = "."
unload
expect_file err <<'ERR'
allocbuild: warning: compare: runs/short: 8 runs too short to sample (fewer than 3 samples, one every 500 ms): their sampled figures (steady and peak RSS, RSS GiB*s, faults, threads) are left out, not shown as 0: 0001-normal53, 0002-other, 0003-other, 0004-normal53, 0005-normal53, 0006-other, 0007-other, 0008-normal53 (runs of several sampling intervals, or a smaller --sample-ms, measure them)
ERR
# a run long enough (it waits 0.5 s before it is told to end) has them
cat >hold <<'SH'
#!/bin/sh
"$@" & p=$!
sleep 0.5
kill $p
wait $p || true
SH
chmod +x hold
expect_exit 0 "$AB" run bo normal53 --name long -- ./hold {bin} 8
expect_exit 0 "$AB" compare bo --name long --format json
check "a long run: steady RSS of about its 8 MiB" \
	json out '8 < [g for g in d["sets"][0]["groups"] if g["metric"] == "steady_rss_mib"][0]["median"] < 16'
check "a long run: nothing too short" test "$(json out 'd["sets"][0]["too_short"]')" = 0

# --- every run of a label failed: exit 1, said; every run of all: exit 1
cat >drive <<'SH'
#!/bin/sh
[ "$ALLOCBUILD_LABEL" = other ] && exit 4
exec "$@"
SH
chmod +x drive
expect_exit 1 "$AB" run bo normal53 other --repeat 2 --rotate --name half -- ./drive {bin} --once
expect_exit 1 "$AB" compare bo --name half
unload
expect_grep "FAILED: every run of other failed: nothing of it is compared." out
expect_exit 1 "$AB" run bo normal53 other --repeat 2 --name none -- false
expect_exit 1 "$AB" compare bo --name none
unload
expect_grep "FAILED: every run failed (4 of 4): nothing is compared." out
expect_file err <<'ERR'
allocbuild: warning: compare: runs/none: 4 failed runs left out: 0001-normal53 (exit 1), 0002-other (exit 1), 0003-normal53 (exit 1), 0004-other (exit 1)
ERR
expect_exit 1 "$AB" compare bo --name none --format json
check "json: the labels whose every run failed" test "$(json out 'd["sets"][0]["failed_labels"]')" = "['normal53', 'other']"

# --- the load: the records' loadavg, written here (and their SHA256SUMS lines) so that it is known
# load RUN-NAME LOAD...: the n-th record of the name gets the n-th 1-minute load average, 2 CPUs online
load() {
	local name=$1 f n=0
	shift
	for f in bo/runs/$name/*.intoto.json; do
		n=$((n + 1))
		python3 - "$f" "${!n:-$1}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["predicate"]["environment"]["loadavg"] = [float(sys.argv[2]), 1.0, 1.0]
d["predicate"]["environment"]["cpu"]["online_count"] = 2
json.dump(d, open(sys.argv[1], "w"), indent="\t")
PY
		python3 - bo/SHA256SUMS "${f#bo/}" "$(sha256sum <"$f" | cut -c1-64)" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
out = [sys.argv[3] + "  " + sys.argv[2] if l.endswith("  " + sys.argv[2]) else l for l in lines]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
	done
}
expect_exit 0 "$AB" run bo normal53 other --repeat 4 --rotate --sample-ms 0 --name busy -- {bin} --once
cp -r bo quiet
load busy 1.5 3.2 2.0 1.8
expect_exit 0 "$AB" compare bo --name busy
expect_grep "Machine load (the 1-minute load average at each run's start): 1.50 to 3.20 on 2 CPUs: busy, more than the CPUs run at once." out
expect_file err <<'ERR'
allocbuild: warning: compare: runs/busy: the machine was busy: its load (the 1-minute load average at each run's start) was 1.50 to 3.20 on 2 CPUs, more than its CPUs run at once: work (the runs' own or another's) waited for a CPU, which makes the runs' times noisier (an idle machine measures better)
ERR
expect_exit 0 "$AB" compare bo --name busy --format json
check "json: the load" test "$(json out 'd["sets"][0]["load"]')" = "{'runs': 8, 'min': 1.5, 'max': 3.2, 'cpus': 2, 'busy': True}"
expect_exit 0 "$AB" compare bo --name busy --format md
expect_grep "Machine load (the 1-minute load average at each run's start): 1.50 to 3.20 on 2 CPUs: **busy**, more than the CPUs run at once." out
expect_exit 0 "$AB" pr -o pr bo
expect_grep "- ⚠ busy machine: load 1.50 to 3.20 (the 1-minute average at the runs' starts) on 2 CPUs: the times are noisier" pr/pr.md
# below the CPUs: said, no warning (the records as they were before, loaded otherwise)
mv bo busybo && mv quiet bo
load busy 0.25 0.5 1.25 0.75
expect_exit 0 "$AB" compare bo --name busy
expect_grep "Machine load (the 1-minute load average at each run's start): 0.25 to 1.25 on 2 CPUs." out
check "no warning below the CPUs" test ! -s err

# --- csv: 15 significant digits, each value as its record holds it (cpu_s: user + sys, a decimal sum)
expect_exit 0 "$AB" compare bo --name long --metric wall_s --metric cpu_s --metric rss_gib_s --format csv
python3 - out bo <<'PY'
import csv, json, sys
from decimal import Decimal
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    rec = json.load(open("%s/runs/long/%04d-%s.intoto.json" % (sys.argv[2], int(r["number"]), r["label"])),
                    parse_float=Decimal)["predicate"]
    want = {"wall_s": rec["wall_s"], "cpu_s": rec["user_s"] + rec["sys_s"],
            "rss_gib_s": rec["sampling"]["figures"]["rss_gib_s"]}[r["metric"]]
    digits = r["value"].lstrip("-").replace(".", "").lstrip("0")
    assert len(digits) <= 15, "%s: %s has %d digits" % (r["metric"], r["value"], len(digits))
    assert Decimal(r["value"]) == want, "%s: %s, the record's %s" % (r["metric"], r["value"], want)
print("csv: %d values as their records hold them" % len(rows))
PY
