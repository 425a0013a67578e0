#!/usr/bin/env bash
# verify --policy: each kind of rule failing on the default recipe's real
# build output, with its exact line (what was expected, what was found,
# the file and field read): a wrong commit and archive digest, no
# upstream-diff record, another allocator and version, a baked option
# missing or present, a run-time option not set, or set and not read by
# jemalloc (a record edited after the build: verify fails too, and the
# rule says what the record claims), an option set that must not be, a
# secure level, no rebuild record, a 64 KiB-page arm64 target ("Unsupported
# system page size"), a pattern that matches nothing; signers (a key that
# signed, one that did not, one not given); runs (too few repetitions, THP
# differing between labels, a value required, no A/A control).
. "$TOP/tests/lib.sh"

default_build bo
BP=provenance/binary-provenance.json
AP=provenance/allocator-probes.json
SHA=2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa
V=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c
Z=0000000000000000000000000000000000000000000000000000000000000000

# --- one failing case of each rule on a variant
cat >neg.json <<X
{"policy": 1, "name": "negatives", "rules": [
 {"variants": ["stock53"], "source": {"commit": "54eaed1d8b56b1aa528be3bdd1877e59c56fa90c", "sha256": "$Z"}},
 {"variants": ["stock53"], "upstream": "matches"},
 {"variants": ["special53"], "allocator": {"kind": "mimalloc", "version": {"min": "5.3.1"}}},
 {"variants": ["special53"], "baked": {"contains": ["disable_large_size_classes:false", "lg_extent_max_active_fit:30"], "absent": ["lg_extent_max_active_fit"]}},
 {"variants": ["stock53"], "runtime": {"read": ["lg_extent_max_active_fit:30"]}},
 {"variants": ["fit-only"], "not_set": ["lg_extent_max_active_fit", "*"]},
 {"variants": ["stock53"], "secure": 1},
 {"variants": ["stock53"], "reproducible": {"record": "rebuild"}},
 {"variants": ["special53"], "targets": [{"name": "arm64-64k", "page_size": 65536, "huge_page_size": 536870912, "vaddr_bits": 52}]},
 {"variants": ["special5*", "je-*"], "allocator": {"kind": "jemalloc", "version": {"min": "5.2", "max": "5.3.0"}}}
]}
X
expect_exit 1 "$AB" verify --policy neg.json bo
expect_file out <<X
verified 25 files in bo
pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)
FAIL: rules[0] source stock53: expected commit 54eaed1d8b56b1aa528be3bdd1877e59c56fa90c, got no commit: the source is of kind archive ($BP: variants[0].source.pin.commit)
FAIL: rules[0] source stock53: expected sha256 $Z, got sha256 $SHA ($BP: variants[0].source.pin.sha256)
FAIL: rules[1] upstream stock53: expected an upstream-diff report of the vendored tree, got no upstream-diff record (provenance/upstream-diff.json: variants["stock53"].matches)
FAIL: rules[2] allocator special53: expected mimalloc, got jemalloc ($AP: variants[1].probe.allocator)
FAIL: rules[2] allocator special53: expected from 5.3.1 to any, got $V ($AP: variants[1].probe.version)
FAIL: rules[3] baked special53: expected 'disable_large_size_classes:false' among the baked options, got 'lg_extent_max_active_fit:30' ($AP: variants[1].probe.config.malloc_conf)
pass: rules[3] baked special53: 'lg_extent_max_active_fit:30' ($AP: variants[1].probe.config.malloc_conf)
FAIL: rules[3] baked special53: expected no 'lg_extent_max_active_fit' among the baked options, got 'lg_extent_max_active_fit:30' ($AP: variants[1].probe.config.malloc_conf)
FAIL: rules[4] runtime stock53: expected 'lg_extent_max_active_fit:30' set at run time and read, got lg_extent_max_active_fit not set at run time ($AP: variants[0].probe.overrides)
FAIL: rules[5] not_set fit-only: expected lg_extent_max_active_fit not set at run time, got lg_extent_max_active_fit set at run time to 30 ($AP: variants[2].probe.overrides[0])
FAIL: rules[5] not_set fit-only: expected no allocator option set at run time, got MALLOC_CONF set at run time ($AP: variants[2].probe.requested.env)
FAIL: rules[6] secure stock53: expected secure level 1, got no secure level (not mimalloc?) ($AP: variants[0].probe.secure)
FAIL: rules[7] reproducible stock53: expected a rebuild record, or a signed one of an independent rebuilder (--rebuilt), got none (provenance/rebuild.intoto.json: predicate.comparison)
FAIL: rules[8] targets special53 on arm64-64k: expected pages of 64 KiB or larger, got LG_PAGE 12 (4 KiB pages): jemalloc aborts there with "<jemalloc>: Unsupported system page size" ($BP: variants[1].host_probes.LG_PAGE)
FAIL: rules[8] targets special53 on arm64-64k: expected huge pages of 512 MiB, got LG_HUGEPAGE 21 (2 MiB) ($BP: variants[1].host_probes.LG_HUGEPAGE)
FAIL: rules[8] targets special53 on arm64-64k: expected 52-bit virtual addresses or more, got LG_VADDR 48 ($BP: variants[1].host_probes.LG_VADDR)
pass: rules[9] allocator special53: jemalloc ($AP: variants[1].probe.allocator)
pass: rules[9] allocator special53: $V ($AP: variants[1].probe.version)
FAIL: rules[9] allocator je-*: expected a variant matching it, got none ($BP: variants[].label)
FAIL: policy neg.json: 16 of 19 rule checks failed on OUTDIR bo
X

# --- a record edited after the build: verify fails, and the rule reads what it now claims
cp -a bo edited
python3 - edited/$AP <<'X'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["variants"][2]["probe"]["overrides"][0]
o["status"], o["effective"] = "ignored", "6"
json.dump(d, open(sys.argv[1], "w"), indent="\t")
X
cat >read.json <<'X'
{"policy": 1, "name": "read", "rules": [{"variants": ["fit-only"], "runtime": {"read": ["lg_extent_max_active_fit:30"]}}]}
X
expect_exit 1 "$AB" verify --policy read.json edited
expect_file out <<X
$AP: expected $(sha256sum bo/$AP | cut -d' ' -f1), actual $(sha256sum edited/$AP | cut -d' ' -f1)
FAIL: OUTDIR edited: a check failed (above); signatures not checked (--key PUB.pem)
FAIL: rules[0] runtime fit-only: expected 'lg_extent_max_active_fit:30' set at run time and read, got lg_extent_max_active_fit set at run time: status ignored, effective 6 ($AP: variants[2].probe.overrides[0])
FAIL: policy read.json: 1 of 1 rule checks failed on OUTDIR edited
X
rm -rf edited

# --- signers: n of m keys, each counted when every statement verifies with it
openssl genpkey -algorithm ed25519 -out ed.pem 2>/dev/null
openssl pkey -in ed.pem -pubout -out ed.pub.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem 2>/dev/null
openssl pkey -in ec.pem -pubout -out ec.pub.pem
ed=$(openssl pkey -pubin -in ed.pub.pem -outform DER | sha256sum | cut -d' ' -f1)
ec=$(openssl pkey -pubin -in ec.pub.pem -outform DER | sha256sum | cut -d' ' -f1)
expect_exit 0 "$AB" sign --signing-key ed.pem bo
cat >signers.json <<X
{"policy": 1, "name": "signers", "rules": [
 {"signers": {"keys": ["$ed"]}},
 {"signers": {"keys": ["$ed", "$ec"], "min": 2}},
 {"signers": {"keys": ["$ec", "$ed"], "min": 1}}
]}
X
expect_exit 1 "$AB" verify --policy signers.json --key ed.pub.pem --key ec.pub.pem bo
sed -n '/rules\[/,$p' out >rules
expect_file rules <<X
pass: rules[0] signers: 1 of 1: ${ed:0:16} (provenance/provenance.intoto.jsonl: signatures[].keyid)
FAIL: rules[1] signers: expected 2 of 2 keys signed every statement, got 1 of 2: ${ed:0:16}; not: ${ec:0:16} (no valid signature by it) (provenance/provenance.intoto.jsonl: signatures[].keyid)
pass: rules[2] signers: 1 of 2: ${ed:0:16}; not: ${ec:0:16} (no valid signature by it) (provenance/provenance.intoto.jsonl: signatures[].keyid)
FAIL: policy signers.json: 1 of 3 rule checks failed on OUTDIR bo
X
# without --key nothing is counted
expect_exit 1 "$AB" verify --policy signers.json bo
expect_grep "FAIL: rules[0] signers: expected 1 of 1 keys signed every statement, got 0 of 1; not: ${ed:0:16} (key not given) (provenance/provenance.intoto.jsonl: signatures[].keyid)" out

# --- runs: repetitions per label, the run environment, the A/A control
expect_exit 0 "$AB" run bo stock53 fit-only --repeat 2 --rotate --name rss -- true
thp=$(json bo/runs/rss/0001-stock53.intoto.json 'd["predicate"]["environment"]["memory"]["thp_enabled"]')
defrag=$(json bo/runs/rss/0001-stock53.intoto.json 'd["predicate"]["environment"]["memory"]["thp_defrag"]')
[ "$defrag" != never ] || defrag_want=always
cat >runs.json <<X
{"policy": 1, "name": "runs", "rules": [
 {"variants": ["stock53", "fit-only"], "runs": {"name": "rss", "min_repetitions": 2, "equal": ["memory.thp_enabled"]}},
 {"variants": ["*53", "special53"], "runs": {"name": "rss", "min_repetitions": 3, "values": {"memory.thp_defrag": "${defrag_want:-never}"}, "aa_control": true}}
]}
X
expect_exit 1 "$AB" verify --policy runs.json bo
sed -n '/rules\[/,$p' out >rules
expect_file rules <<X
pass: rules[0] runs stock53: 2 successful runs (runs/rss/*-stock53.intoto.json: predicate.status)
pass: rules[0] runs fit-only: 2 successful runs (runs/rss/*-fit-only.intoto.json: predicate.status)
pass: rules[0] runs memory.thp_enabled: $thp in every run (runs/rss/*.intoto.json: predicate.environment: memory.thp_enabled)
FAIL: rules[1] runs stock53: expected 3 successful runs or more, got 2 successful runs (runs/rss/*-stock53.intoto.json: predicate.status)
FAIL: rules[1] runs special53: expected runs of a label matching it, got none (runs/rss/*.intoto.json: predicate.label)
FAIL: rules[1] runs memory.thp_defrag: expected ${defrag_want:-never} in every run, got $defrag in run 0001 (stock53) (runs/rss/0001-stock53.intoto.json: predicate.environment: memory.thp_defrag)
FAIL: rules[1] runs A/A control: expected an A/A control (two labels, one artifact) showing no difference, got no two labels ran the same artifact and environment (runs/rss/*.intoto.json: subject, predicate.env_overrides)
FAIL: policy runs.json: 4 of 7 rule checks failed on OUTDIR bo
X
# THP changed between the labels' runs: the record says so (SHA256SUMS
# rewritten with it, as if the machine had run it so; THP cannot be changed here)
other=always
[ "$thp" != always ] || other=never
python3 - bo <<X
import hashlib, json, sys
rel = "runs/rss/0003-fit-only.intoto.json"
d = json.load(open(sys.argv[1] + "/" + rel))
d["predicate"]["environment"]["memory"]["thp_enabled"] = "$other"
b = (json.dumps(d, indent="\t") + "\n").encode()
open(sys.argv[1] + "/" + rel, "wb").write(b)
sums = [hashlib.sha256(b).hexdigest() + "  " + rel if l.endswith("  " + rel) else l
        for l in open(sys.argv[1] + "/SHA256SUMS").read().splitlines()]
open(sys.argv[1] + "/SHA256SUMS", "w").write("\n".join(sums) + "\n")
X
expect_exit 1 "$AB" verify --policy runs.json bo
expect_grep "pass: OUTDIR bo: every file matches SHA256SUMS and the statement" out
expect_grep "FAIL: rules[0] runs memory.thp_enabled: expected the same in every run, got $thp in run 0001 (stock53), $other in run 0003 (fit-only) (runs/rss/0003-fit-only.intoto.json: predicate.environment: memory.thp_enabled)" out
# a run name without records
sed 's/"name": "rss"/"name": "latency"/' runs.json >latency.json
expect_exit 1 "$AB" verify --policy latency.json bo
expect_grep "FAIL: rules[0] runs: expected recorded runs of that name, got none that could be read (runs/latency/*.intoto.json: predicate)" out
