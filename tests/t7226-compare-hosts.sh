#!/usr/bin/env bash
# Runs of one build on two hosts (a UTS namespace with its own host name
# each: run records name the host from uname, as on two machines): the
# OUTDIR copied to the second host and run there, its runs added with
# compare --runs-from. Never pooled silently (exit 2, the hosts named);
# --by-host: a table per host against the same baseline, a verdict that
# disagrees between the hosts said (and in pr.md's verdict block, per
# host); --pool-hosts pools them, unpaired. Hosts that agree are said to.
# A copy whose artifact has other bytes on one host: named, exit 1.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

unshare --uts true 2>/dev/null || fail "unshare --uts does not work here (the test runs as root)"
make_fakeproj_runtime_recipe r.json '{"FAKE_MODE": "two"}'
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
art=$(sed -n 's|^\([0-9a-f]\{64\}\)  variants/a/build/bin/fake$|\1|p' bo/SHA256SUMS)
check "the program's digest in SHA256SUMS" test ${#art} = 64

# the driver: ops 1000 to 1002 for a everywhere; for a2 1100 to 1102 on alpha (better: every run of a2
# above every run of a, p 0.0112 with the ties), 1000 to 1002 on beta (no difference)
cat >drive <<'SH'
#!/bin/sh
n=$(($(cat count-$ALLOCBUILD_LABEL 2>/dev/null || echo 0) + 1))
echo $n >count-$ALLOCBUILD_LABEL
v=$((1000 + n % 3))
[ "$ALLOCBUILD_LABEL" = a2 ] && [ "$(hostname)" = alpha ] && v=$((1100 + n % 3))
echo "ALLOCBUILD_METRIC ops=$v ops/s"
SH
chmod +x drive
# on_host HOST CMD...: CMD on a host named HOST (its own UTS namespace)
on_host() {
	local host=$1
	shift
	unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
}
expect_exit 0 on_host alpha "$AB" run bo a a2 --repeat 5 --rotate --name p --sample-ms 0 -- ./drive
check "the record names its host" test "$(json bo/runs/p/0001-a.intoto.json 'd["predicate"]["environment"]["host"]')" = alpha
# the OUTDIR as the second host gets it, its runs recorded there
cp -a bo bo-beta
rm -f count-*
expect_exit 0 on_host beta "$AB" run bo-beta a a2 --repeat 5 --rotate --name p --sample-ms 0 -- ./drive
expect_exit 0 "$AB" verify bo-beta

# --- never pooled silently
expect_exit 2 "$AB" compare bo-beta --metric ops
echo "allocbuild: compare: runs/p: runs of 2 hosts, alpha (10 runs) and beta (10 runs): not pooled silently ('--by-host' compares each host's runs apart, '--pool-hosts' pools them)" |
	expect_file err
check "nothing printed" test ! -s out
expect_exit 2 "$AB" compare bo --runs-from bo-beta/ --metric ops
check "runs from another OUTDIR: the hosts named" grep -qF 'runs of 2 hosts, alpha (10 runs) and beta (10 runs)' err

# --- by host: a table each, against the same baseline, the disagreement said
expect_exit 0 "$AB" compare bo --runs-from bo-beta --metric ops --by-host
unload
expect_file out <<'OUT'
runs/p on host alpha: 10 runs of 2 labels, 0 failed; baseline a; paired by repetition (rotated runs)
ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%
Hosts: 2, alpha, beta: each host's runs compared apart (--by-host); these are alpha's.
Same bytes: a2 ran the bytes of a in another runtime environment.
No A/A control: no two labels ran the same bytes with the same runtime environment.

METRIC  UNIT   CELL  LABEL  N  MEDIAN  MIN-MAX    RATIO  95% CI          P       VERDICT
ops     ops/s  -     a      5  1001    1000-1002  -      -               -       baseline
ops     ops/s  -     a2     5  1101    1100-1102  1.100  [1.100, 1.100]  0.0112  better

runs/p on host beta: 10 runs of 2 labels, 0 failed; baseline a; paired by repetition (rotated runs)
ratio of medians with its 95% bootstrap interval (10000 resamples, seed 1), Mann-Whitney U p (two-sided), a difference shown when p < 0.05, the interval excludes 1 and the ratio is beyond the noise threshold of 1%
Hosts: 2, alpha, beta: each host's runs compared apart (--by-host); these are beta's.
HOSTS: the hosts disagree on ops of a2 against a: better on alpha (ratio 1.100, p 0.0112), no difference shown on beta (ratio 1.000, p 1).
Same bytes: a2 ran the bytes of a in another runtime environment.
No A/A control: no two labels ran the same bytes with the same runtime environment.

METRIC  UNIT   CELL  LABEL  N  MEDIAN  MIN-MAX    RATIO  95% CI          P  VERDICT
ops     ops/s  -     a      5  1001    1000-1002  -      -               -  baseline
ops     ops/s  -     a2     5  1001    1000-1002  1.000  [1.000, 1.000]  1  no difference shown
OUT
expect_file err <<'ERR'
allocbuild: warning: compare: runs/p on host beta: the hosts disagree on ops of a2 against a: better on alpha (ratio 1.100, p 0.0112), no difference shown on beta (ratio 1.000, p 1)
ERR
expect_exit 0 "$AB" compare bo --runs-from bo-beta --metric ops --by-host --format json
check "json: per host, the disagreement" test "$(json out '[(s["host"], s["hosts"], s["hosts_disagree"], s["hosts_bytes_differ"], len(s["host_notes"])) for s in d["sets"]]')" = \
	"[('alpha', ['alpha', 'beta'], False, False, 0), ('beta', ['alpha', 'beta'], True, False, 1)]"

# --- pooled, said, unpaired
expect_exit 0 "$AB" compare bo --runs-from bo-beta --metric ops --pool-hosts
unload
check "pooled: the first line" grep -qxF 'runs/p: 20 runs of 2 labels, 0 failed; baseline a; unpaired (runs of 2 hosts pooled (--pool-hosts))' out
check "pooled: the hosts said" grep -qxF 'Hosts: 2, alpha, beta: their runs pooled (--pool-hosts).' out
check "pooled: 10 runs a label" grep -qE '^ops +ops/s +- +a2 +10 ' out
# csv: each row names its host, alpha's runs 1-10 and beta's 11-20
expect_exit 0 "$AB" compare bo --runs-from bo-beta --metric ops --pool-hosts --format csv
check "csv: 20 rows, each with its host" test \
	"$(python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1]))); print(len(r), sorted(set((x["host"], int(x["number"]) > 10) for x in r)))' out)" = \
	"20 [('alpha', False), ('beta', True)]"

# --- pr.md of an OUTDIR holding both hosts' runs (its storage shared by them): the verdict block per host
cp -a bo bo-shared
rm -f count-*
expect_exit 0 on_host beta "$AB" run bo-shared a a2 --repeat 5 --rotate --name p --sample-ms 0 -- ./drive
expect_exit 2 "$AB" compare bo-shared
expect_exit 0 "$AB" pr bo-shared
expect_grep '**Benchmark** `p` on host `alpha`: 10 runs of 2 labels against `a`, paired by repetition (the comparison: Runs, below):' bo-shared/pr.md
expect_grep '**Benchmark** `p` on host `beta`: 10 runs of 2 labels against `a`, paired by repetition (the comparison: Runs, below):' bo-shared/pr.md
expect_grep '- ❌ the hosts disagree on ops of a2 against a: better on alpha (ratio 1.100, p 0.0112), no difference shown on beta (ratio 1.000, p 1)' bo-shared/pr.md
# signed: the test result holds each host's tests apart, and what the hosts disagree on
openssl genpkey -algorithm ed25519 -out k.pem 2>/dev/null
openssl pkey -in k.pem -pubout -out k.pub.pem
expect_exit 0 "$AB" sign --signing-key k.pem bo-shared
expect_exit 0 "$AB" verify --key k.pub.pem bo-shared
check "test result: ops per host" test "$(json bo-shared/test-results/p.intoto.json '[(t["test"], t["host"], t["outcome"]) for t in d["predicate"]["tests"] if t["metric"] == "ops"]')" = \
	"[('ops: a2 against a on alpha', 'alpha', 'PASSED'), ('ops: a2 against a on beta', 'beta', 'PASSED')]"
# (sign compares every metric: the times may disagree too, by chance)
check "test result: the disagreement" test "$(json bo-shared/test-results/p.intoto.json '[n for n in d["predicate"]["host_notes"] if " on ops " in n]')" = \
	"['the hosts disagree on ops of a2 against a: better on alpha (ratio 1.100, p 0.0112), no difference shown on beta (ratio 1.000, p 1)']"

# a policy's runs rule: each host's runs counted and held to it apart, never pooled
cat >hosts-policy.json <<'X'
{"policy": 1, "name": "hosts", "rules": [
 {"variants": ["a", "a2"], "runs": {"name": "p", "min_repetitions": 5, "equal": ["memory.thp_enabled"]}}]}
X
expect_exit 0 "$AB" verify --policy hosts-policy.json bo-shared
grep '^pass: rules\[0\] runs a' out >host-lines
expect_file host-lines <<'X'
pass: rules[0] runs a on alpha: 5 successful runs (runs/p/*-a.intoto.json: predicate.status)
pass: rules[0] runs a2 on alpha: 5 successful runs (runs/p/*-a2.intoto.json: predicate.status)
pass: rules[0] runs a on beta: 5 successful runs (runs/p/*-a.intoto.json: predicate.status)
pass: rules[0] runs a2 on beta: 5 successful runs (runs/p/*-a2.intoto.json: predicate.status)
X
sed 's/"min_repetitions": 5/"min_repetitions": 6/' hosts-policy.json >hosts6.json
expect_exit 1 "$AB" verify --policy hosts6.json bo-shared
check "6 a host: 10 runs of a label on two hosts are not 6 on one" grep -qxF \
	"FAIL: rules[0] runs a on beta: expected 6 successful runs or more, got 5 successful runs (runs/p/*-a.intoto.json: predicate.status)" out

# --- hosts that agree: said so
rm -f count-*
expect_exit 0 on_host beta "$AB" run bo-beta a a2 --repeat 4 --rotate --name q --sample-ms 0 -- ./drive
rm -f count-*
expect_exit 0 on_host gamma "$AB" run bo-beta a a2 --repeat 4 --rotate --name q --sample-ms 0 -- ./drive
expect_exit 0 "$AB" compare bo-beta --name q --metric ops --by-host --format json
check "q: the hosts agree" test "$(json out '[(s["host"], s["hosts_disagree"], s["host_notes"]) for s in d["sets"]]')" = \
	"[('beta', False, []), ('gamma', False, [])]"

# --- a host whose copy holds other bytes for a label: named, exit 1
# (the same recipe, its program's source changed: another build of "the same" on the second host)
mkdir o
make_fakeproj "$PWD/o" >/dev/null
sed -i 's/puts("fake")/puts("fake, other")/' o/fakeproj-1.0/fake.c
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C o -czf o/fakeproj-1.0.tar.gz fakeproj-1.0
sha2=$(sha256sum o/fakeproj-1.0.tar.gz | cut -d' ' -f1)
cp o/fakeproj-1.0.tar.gz o/mirror/sha256/$sha2
sed "s/\"sha256\": \"[0-9a-f]*\"/\"sha256\": \"$sha2\"/" r.json >r2.json
expect_exit 0 "$AB" build --mirror-dir o/mirror -o bo-other r2.json
other=$(sed -n 's|^\([0-9a-f]\{64\}\)  variants/a/build/bin/fake$|\1|p' bo-other/SHA256SUMS)
check "the other build's program differs" test "$other" != "$art"
rm -f count-*
expect_exit 0 on_host beta "$AB" run bo-other a a2 --repeat 5 --rotate --name p --sample-ms 0 -- ./drive
expect_exit 1 "$AB" compare bo --runs-from bo-other --metric ops --by-host
check "the bytes that differ, named" grep -qxF "HOSTS: a ran other bytes on the hosts: alpha sha256 ${art:0:12}, beta sha256 ${other:0:12}." out
check "for both labels" grep -qxF "HOSTS: a2 ran other bytes on the hosts: alpha sha256 ${art:0:12}, beta sha256 ${other:0:12}." out

# --- refusals
expect_exit 2 "$AB" compare bo --runs-from nosuch
echo "allocbuild: compare: --runs-from 'nosuch' is not a directory" | expect_file err
expect_exit 2 "$AB" compare bo --by-host --pool-hosts
check "the two ways exclude each other" grep -qF -- '--by-host and --pool-hosts exclude each other' err
