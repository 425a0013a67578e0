#!/usr/bin/env bash
# The engines of docs/scale.md, for real: a single-node Slurm cluster
# (Debian's slurm-wlm and munge: munged, slurmctld and slurmd started here
# in the foreground with a generated slurm.conf whose every path is in this
# scratch directory, stopped by pid) runs the page's array job and its
# afterok merge job, exactly as the page shows them, for a recipe of three
# small variants; the merged OUTDIR verifies and holds a single build's
# artifacts. A recipe whose second shard fails leaves the merge job
# pending on DependencyNeverSatisfied, the failed task reported. Two
# rebuild jobs (the page's rebuild.sbatch, each with its own key) and
# challenge: 2 of 2 identical. GNU parallel runs the page's block with
# HOSTS=: (this machine).
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

for t in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo parallel; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "skipped: $t is not installed (slurm-wlm, munge and parallel: scripts/install-deps.sh)" >&2
		exit 0
	}
done

S=$PWD
# munged refuses a socket in a directory that others cannot search; above
# this one (a checkout in /root, 0700) --force makes that a warning: every
# client here is this user
chmod 755 "$S"
mkdir -p bin slurm/state slurm/spool munge
ln -s "$AB" bin/allocbuild
export PATH=$S/bin:$PATH TMPDIR=$S/tmp
mkdir -p "$TMPDIR"

# ---- the docs' blocks: the fenced sh block of docs/scale.md whose text has MARK
doc_block() {
	python3 - "$TOP/docs/scale.md" "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if sys.argv[2] in b]
assert len(blocks) == 1, f"{len(blocks)} blocks with {sys.argv[2]!r}"
sys.stdout.write(blocks[0])
PY
}
doc_block "# build.sbatch: one shard per array task" >build.sbatch
doc_block "# merge.sbatch" >merge.sbatch
doc_block "# rebuild.sbatch" >rebuild.sbatch
doc_block 'jid=$(sbatch --parsable build.sbatch)' >submit.sh
doc_block 'seq 1 $N | parallel' >parallel.sh
[ "$(wc -l <submit.sh)" = 2 ] || fail "the submission block changed: $(cat submit.sh)"

# ---- the recipes: three variants of a local directory; in r-fail.json the second fails
make_fakeproj "$S" >/dev/null
DH=$("$AB" hash fakeproj-1.0 | cut -d' ' -f1)
recipe() { # NAME CONFIGURE-OF-B
	cat <<JSON
{
	"recipe": 1, "name": "$1",
	"sources": {"fake": {"dir": {"path": "fakeproj-1.0", "dirHash": "$DH"}}},
	"variants": [
		{"label": "a", "source": "fake", "build": {"system": "autotools", "configure": [], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a", "bin/fake"]},
		{"label": "b", "source": "fake", "build": {"system": "autotools", "configure": [$2], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a"]},
		{"label": "c", "source": "fake", "build": {"system": "autotools", "configure": ["--c"], "targets": ["all"]},
		 "artifacts": ["lib/libfake.a"]}
	]
}
JSON
}
recipe three '"--b"' >r.json
recipe three '"--fail"' >r-fail.json
expect_exit 0 "$AB" plan --matrix -n 3 r.json
[ "$(json out '[m["variants"] for m in d["matrix"]]')" = "[['a'], ['b'], ['c']]" ] || fail "not one variant a shard: $(cat out)"
expect_exit 0 "$AB" build -j 2 -o full r.json

# same_artifacts A B: the same files listed, the artifacts' and recipe's digests identical
same_artifacts() {
	cut -c67- "$1/SHA256SUMS" >paths.a
	cut -c67- "$2/SHA256SUMS" >paths.b
	diff -u paths.a paths.b || fail "$2/SHA256SUMS lists other files than $1/SHA256SUMS"
	grep -E '  (variants/[^/]+/build/|recipe\.json$)' "$1/SHA256SUMS" >arts.a
	grep -E '  (variants/[^/]+/build/|recipe\.json$)' "$2/SHA256SUMS" >arts.b
	diff -u arts.a arts.b || fail "$2 has other artifact digests than $1"
	[ "$(wc -l <arts.a)" = 5 ] || fail "expected 4 artifacts and recipe.json: $(cat arts.a)"
}

# ---- the cluster
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
H=$(hostname)
dd if=/dev/urandom of=munge/munge.key bs=1024 count=1 2>/dev/null
chmod 600 munge/munge.key
cat >slurm/slurm.conf <<CONF
ClusterName=allocbuildtest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=root
StateSaveLocation=$S/slurm/state
SlurmdSpoolDir=$S/slurm/spool
SlurmctldPidFile=$S/slurm/slurmctld.pid
SlurmdPidFile=$S/slurm/slurmd.pid
SlurmctldLogFile=$S/slurm/slurmctld.log
SlurmdLogFile=$S/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=$H NodeAddr=127.0.0.1 CPUs=24 RealMemory=1000 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$S/slurm/slurm.conf
pids=
stop_cluster() {
	# jobs first (their processes are slurmstepd's, not ours), then the daemons by pid
	if [ -n "$pids" ]; then
		scancel --full --user="$(id -un)" 2>/dev/null || true
		for _ in $(seq 100); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
		kill $pids 2>/dev/null || true
		wait $pids 2>/dev/null || true
		pids=
	fi
}
trap stop_cluster EXIT
munged -F --force --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" --log-file="$S/munge/munged.log" \
	--pid-file="$S/munge/munged.pid" --seed-file="$S/munge/munged.seed" >munge/out 2>&1 &
pids="$pids $!"
for _ in $(seq 100); do [ -S munge/munge.sock ] && break; sleep 0.05; done
slurmctld -D -i >slurm/slurmctld.out 2>&1 &
pids="$pids $!"
slurmd -D >slurm/slurmd.out 2>&1 &
pids="$pids $!"
for _ in $(seq 200); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break; sleep 0.1; done
[ "$(sinfo -h -o %T)" = idle ] || fail "the node is not idle: $(sinfo 2>&1); $(tail -5 slurm/slurmd.log)"

# wait_jobs JOB...: until squeue lists none of them (polled; 120 s at most)
wait_jobs() {
	local ids
	ids=$(echo "$@" | tr ' ' ,)
	for _ in $(seq 1200); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	fail "jobs $ids still queued: $(squeue 2>&1)"
}
# state JOB: its JobState and ExitCode, as slurmctld keeps them
state() {
	scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p; s/.*ExitCode=\([0-9:]*\).*/\1/p' | paste -sd' '
}

# ---- the page's array job and merge for r.json; the rebuild jobs after the
# merge, as the page chains them (one node standing for two, each job with
# its own key); the same array job and merge for r-fail.json, all at once
for k in 1 2; do
	openssl genpkey -algorithm ed25519 -out node$k.pem 2>/dev/null
	chmod 600 node$k.pem
	openssl pkey -in node$k.pem -pubout -out node$k.pub
done
# submit DIR RECIPE CAMPAIGN: the page's submission block run in DIR; prints the array's and the merge's ids
submit() {
	mkdir -p "$1" "$3"
	(cd "$1" && cp ../build.sbatch ../merge.sbatch . &&
		{ cat ../submit.sh; echo 'echo "array $jid"'; } | R=$S/$2 CAMPAIGN=$S/$3 sh -eu >submitted)
	echo "$(sed -n 's/^array //p' "$1/submitted") $(sed -n 's/^Submitted batch job //p' "$1/submitted")"
}
read -r jid mid <<<"$(submit slurm-ok r.json campaign)"
[ -n "$jid" ] && [ -n "$mid" ] || fail "submission said: $(cat slurm-ok/submitted)"
rids=
for k in 1 2; do
	rids="$rids $(cd slurm-ok && CAMPAIGN=$S/campaign sbatch --parsable --dependency=afterok:$mid \
		--export=ALL,REBUILDER_KEY=$S/node$k.pem ../rebuild.sbatch)"
done
read -r fjid fmid <<<"$(submit slurm-fail r-fail.json campaign-fail)"
wait_jobs "$jid" "$mid" $rids "$fjid"

for k in 1 2 3; do
	[ "$(state "${jid}_$k")" = "COMPLETED 0:0" ] || fail "task $k: $(state "${jid}_$k"): $(cat slurm-ok/slurm-${jid}_$k.out)"
done
[ "$(state "$mid")" = "COMPLETED 0:0" ] || fail "merge: $(state "$mid"): $(cat slurm-ok/slurm-$mid.out)"
expect_exit 0 "$AB" verify campaign/merged
same_artifacts full campaign/merged
[ -s campaign/evidence/pr.md ] && [ -s campaign/evidence/provenance-three.tar.gz ] || fail "no evidence: $(ls campaign/evidence)"
[ "$(json campaign/merged/provenance/provenance.intoto.json '[s["outdir"] for s in d["predicate"]["buildDefinition"]["internalParameters"]["merge"]["shards"]]')" = \
	"['shard-1/', 'shard-2/', 'shard-3/']" ] || fail "the merge does not record the three shards"

# a failing shard: the merge job never runs, and squeue says why
[ "$(state "${fjid}_2")" = "FAILED 1:0" ] || fail "task 2: $(state "${fjid}_2")"
[ "$(state "${fjid}_1") $(state "${fjid}_3")" = "COMPLETED 0:0 COMPLETED 0:0" ] || fail "tasks 1 and 3"
expect_grep "allocbuild: b: configure failed: exit status 1" "slurm-fail/slurm-${fjid}_2.out"
for _ in $(seq 50); do
	[ "$(squeue -h -j "$fmid" -o '%T %r')" = "PENDING DependencyNeverSatisfied" ] && break
	sleep 0.1
done
[ "$(squeue -h -j "$fmid" -o '%T %r')" = "PENDING DependencyNeverSatisfied" ] ||
	fail "the merge job: $(squeue -h -j "$fmid" -o '%T %r')"
scancel "$fmid"
wait_jobs "$fmid"
[ ! -e campaign-fail/merged ] && [ ! -e "slurm-fail/slurm-$fmid.out" ] || fail "the merge job ran after a failed shard"
expect_exit 0 "$AB" verify campaign-fail/shard-3

# the two rebuilders' records: challenge, as the page runs it
for r in $rids; do
	[ "$(state "$r")" = "COMPLETED 0:0" ] || fail "rebuild job $r: $(state "$r"): $(cat "slurm-ok/slurm-$r.out")"
done
cd campaign
expect_exit 0 "$AB" challenge --key ../node1.pub --key ../node2.pub evidence/provenance-*.tar.gz rebuild-*/rebuild.intoto.jsonl
cd ..
[ "$(grep -c '^  2 of 2 identical: ' campaign/out)" = 4 ] || fail "challenge: $(cat campaign/out)"
expect_grep "4 of 4 artifacts reproduced by at least 2 independent rebuilders" campaign/out
stop_cluster

# ---- GNU parallel: the page's block on this machine (HOSTS=:, mv for rsync)
mkdir -p par
sed -e "s|^N=.*|N=3|" -e "s|^R=.*|R=$S/r.json|" -e "s|^HOSTS=.*|HOSTS=:|" \
	-e 's|^for h in .*rsync.*|mv campaign/shard-* ./|' parallel.sh >par/run.sh
[ "$(grep -c "HOSTS=:\|^mv campaign\|R=$S/r.json" par/run.sh)" = 3 ] || fail "the parallel block changed: $(cat parallel.sh)"
(cd par && sh -eu run.sh >out 2>err) || fail "parallel: $(cat par/err)"
expect_exit 0 "$AB" verify par/merged
same_artifacts full par/merged
[ -s par/evidence/provenance-three.tar.gz ] || fail "parallel: no evidence"
