#!/usr/bin/env bash
# verify --policy on the default recipe's real build output with its
# shipped policy (recipes/jemalloc-5.3.0-policy.policy.json): the plain
# verify first, then one line per rule and variant, each naming the file
# and field it read, then the policy's line: the archives' and the
# benchmark program's sources, versions, baked and run-time settings, a
# target for the archives. The fixture has no
# reproducibility record (no build --check: t4100 builds one), so that
# rule fails and nothing else; without it the policy passes (exit 0), on
# the OUTDIR and on its bundle. --json carries the same. A bad policy is
# FILE:LINE:COL: PATH: MESSAGE on stderr, exit 2, nothing on stdout; the
# Fluent Bit recipe's shipped policy loads.
. "$TOP/tests/lib.sh"

default_build bo
cp "$TOP/recipes/jemalloc-5.3.0-policy.policy.json" policy.json
SHA=2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa
V=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c
BP=provenance/binary-provenance.json
AP=provenance/allocator-probes.json
DH=$(json "$TOP/recipes/jemalloc-5.3.0-policy.json" 'd["sources"]["frag"]["dir"]["dirHash"]')

rule_lines() { # the lines of every rule but reproducible (rules[7]) and targets, for an OUTDIR or bundle
	cat <<X
pass: rules[0] source stock53: sha256 $SHA ($BP: variants[0].source.pin.sha256)
pass: rules[0] source special53: sha256 $SHA ($BP: variants[1].source.pin.sha256)
pass: rules[0] source fit-only: sha256 $SHA ($BP: variants[2].source.pin.sha256)
pass: rules[1] source frag-stock53: dirHash $DH ($BP: variants[3].source.pin.dirHash)
pass: rules[1] source frag-special53: dirHash $DH ($BP: variants[4].source.pin.dirHash)
pass: rules[1] source frag-fit-only: dirHash $DH ($BP: variants[5].source.pin.dirHash)
pass: rules[1] source frag-aa: dirHash $DH ($BP: variants[6].source.pin.dirHash)
pass: rules[2] allocator stock53: jemalloc ($AP: variants[0].probe.allocator)
pass: rules[2] allocator stock53: $V ($AP: variants[0].probe.version)
pass: rules[2] allocator special53: jemalloc ($AP: variants[1].probe.allocator)
pass: rules[2] allocator special53: $V ($AP: variants[1].probe.version)
pass: rules[2] allocator fit-only: jemalloc ($AP: variants[2].probe.allocator)
pass: rules[2] allocator fit-only: $V ($AP: variants[2].probe.version)
pass: rules[2] allocator frag-stock53: jemalloc ($AP: variants[3].probe.allocator)
pass: rules[2] allocator frag-stock53: $V ($AP: variants[3].probe.version)
pass: rules[2] allocator frag-special53: jemalloc ($AP: variants[4].probe.allocator)
pass: rules[2] allocator frag-special53: $V ($AP: variants[4].probe.version)
pass: rules[2] allocator frag-fit-only: jemalloc ($AP: variants[5].probe.allocator)
pass: rules[2] allocator frag-fit-only: $V ($AP: variants[5].probe.version)
pass: rules[2] allocator frag-aa: jemalloc ($AP: variants[6].probe.allocator)
pass: rules[2] allocator frag-aa: $V ($AP: variants[6].probe.version)
pass: rules[3] baked stock53: nothing baked ('') ($AP: variants[0].probe.config.malloc_conf)
pass: rules[3] baked fit-only: nothing baked ('') ($AP: variants[2].probe.config.malloc_conf)
pass: rules[3] baked frag-stock53: nothing baked ('') ($AP: variants[3].probe.config.malloc_conf)
pass: rules[3] baked frag-fit-only: nothing baked ('') ($AP: variants[5].probe.config.malloc_conf)
pass: rules[3] baked frag-aa: nothing baked ('') ($AP: variants[6].probe.config.malloc_conf)
pass: rules[4] baked special53: 'lg_extent_max_active_fit:30' ($AP: variants[1].probe.config.malloc_conf)
pass: rules[4] baked frag-special53: 'lg_extent_max_active_fit:30' ($AP: variants[4].probe.config.malloc_conf)
pass: rules[5] runtime fit-only: lg_extent_max_active_fit set at run time: status ok, effective 30 ($AP: variants[2].probe.overrides[0])
pass: rules[5] runtime frag-fit-only: lg_extent_max_active_fit set at run time: status ok, effective 30 ($AP: variants[5].probe.overrides[0])
pass: rules[6] not_set stock53: nothing set at run time ($AP: variants[0].probe.requested.env)
pass: rules[6] not_set special53: nothing set at run time ($AP: variants[1].probe.requested.env)
pass: rules[6] not_set frag-stock53: nothing set at run time ($AP: variants[3].probe.requested.env)
pass: rules[6] not_set frag-special53: nothing set at run time ($AP: variants[4].probe.requested.env)
pass: rules[6] not_set frag-aa: nothing set at run time ($AP: variants[6].probe.requested.env)
X
}
target_lines() { # rules[N] targets
	for v in 0:stock53 1:special53 2:fit-only; do
		cat <<X
pass: rules[$1] targets ${v#*:} on x86-64: LG_PAGE 12 (4 KiB pages) ($BP: variants[${v%%:*}].host_probes.LG_PAGE)
pass: rules[$1] targets ${v#*:} on x86-64: LG_HUGEPAGE 21 (2 MiB) ($BP: variants[${v%%:*}].host_probes.LG_HUGEPAGE)
pass: rules[$1] targets ${v#*:} on x86-64: LG_VADDR 48 ($BP: variants[${v%%:*}].host_probes.LG_VADDR)
X
	done
}

# --- the shipped policy: every rule passes but reproducibility, which has no record here
expect_exit 1 "$AB" verify --policy policy.json bo
{
	echo "verified 25 files in bo"
	echo "pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)"
	rule_lines
	for v in stock53 special53 fit-only frag-stock53 frag-special53 frag-fit-only frag-aa; do
		echo "FAIL: rules[7] reproducible $v: expected a build --check or rebuild record, or a signed one of an independent rebuilder (--rebuilt), got none (provenance/reproducibility.intoto.json: predicate.comparison)"
	done
	target_lines 8
	echo "FAIL: policy policy.json: 7 of 51 rule checks failed on OUTDIR bo"
} | expect_file out
[ ! -s err ] || { cat err; fail "verify --policy wrote on stderr"; }

# --- without the reproducibility rule: exit 0, the OUTDIR and its bundle
python3 - policy.json >norepro.json <<'X'
import json, sys
d = json.load(open(sys.argv[1]))
d["rules"] = [r for r in d["rules"] if "reproducible" not in r]
json.dump(d, sys.stdout, indent=1)
X
expect_exit 0 "$AB" verify --policy norepro.json bo
{
	echo "verified 25 files in bo"
	echo "pass: OUTDIR bo: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)"
	rule_lines
	target_lines 7
	echo "pass: policy norepro.json: every rule check passed on OUTDIR bo (44)"
} | expect_file out
expect_exit 0 "$AB" pr -o pr bo
B=pr/provenance-jemalloc-5.3.0-policy.tar.gz
expect_exit 0 "$AB" verify --policy norepro.json $B
{
	echo "$B: every member matches BUNDLE-SHA256SUMS"
	echo "pass: bundle $B: every member matches BUNDLE-SHA256SUMS and SHA256SUMS; signatures not checked (--key PUB.pem)"
	rule_lines
	target_lines 7
	echo "pass: policy norepro.json: every rule check passed on bundle $B (44)"
} | expect_file out

# --- --json: verify's document with the policy's rules
expect_exit 1 "$AB" verify --json --policy policy.json bo
[ "$(json out '(d["result"], d["policy"]["result"], d["policy"]["sha256"], len(d["policy"]["rules"]))')" = \
  "('pass', 'fail', '$(sha256sum policy.json | cut -d' ' -f1)', 51)" ] || fail "--json: $(cat out)"
[ "$(json out '[(r["rule"], r["kind"], r["variant"], r["result"], r["expected"], r["actual"], r["file"], r["field"]) for r in d["policy"]["rules"] if r["result"] == "fail"][0]')" = \
  "(7, 'reproducible', 'stock53', 'fail', 'a build --check or rebuild record, or a signed one of an independent rebuilder (--rebuilt)', 'none', 'provenance/reproducibility.intoto.json', 'predicate.comparison')" ] ||
	fail "--json rules: $(cat out)"

# --- a bad policy: every error with its position, exit 2, nothing checked
cat >bad.json <<'X'
{"policy": 1, "name": "bad", "rules": [
 {"variants": ["stock53"], "baked": {"exakt": "x"}},
 {"variants": ["*"], "source": {"sha256": "zz"}, "allocator": {"kind": "jemalloc"}},
 {"variants": ["*"], "targets": [{"name": "arm64", "page_size": 65535}]},
 {"variants": "*", "runs": {"name": "rss", "equal": ["memory.thp"], "min_repetitions": 0}},
 {"signers": {"keys": ["abc"], "min": 2}, "variants": ["*"]},
 {"variants": ["x"], "upstream": true},
 {"variants": ["x"]}
]}
X
expect_exit 2 "$AB" verify --policy bad.json bo
[ ! -s out ] || { cat out; fail "a bad policy printed on stdout"; }
expect_file err <<'X'
bad.json:2:37: rules[0].baked: expected at least one of exact, contains, absent
bad.json:2:38: rules[0].baked.exakt: unknown key (did you mean 'exact'?)
bad.json:3:43: rules[1].source.sha256: 'zz' is not a SHA-256 digest (64 lowercase hex digits)
bad.json:3:50: rules[1].allocator: a rule has one kind: 'source' already at 3:22
bad.json:4:65: rules[2].targets[0].page_size: 65535 is not a power of two
bad.json:5:54: rules[3].runs.equal[0]: unknown run-environment field 'memory.thp' (one of memory.thp_enabled, memory.thp_defrag, cpu.governor, cpu.boost, cpu.no_turbo, cpu.affinity, cgroup.memory.max, cgroup.memory.high, cgroup.memory.swap.max, cgroup.cpu.max, swap activity)
bad.json:5:88: rules[3].runs.min_repetitions: expected an integer from 1 to 1000000, got 0
bad.json:6:24: rules[4].signers.keys[0]: 'abc' is not a keyid (64 lowercase hex digits: allocbuild sign prints it)
bad.json:6:39: rules[4].signers.min: expected an integer from 1 to 1, got 2
bad.json:6:43: rules[4].variants: a signers rule applies to the whole build: no variants
bad.json:7:34: rules[5].upstream: expected "matches" (upstream-diff's verdict) or "identical" (every file)
bad.json:8:2: rules[6]: a rule needs one kind: source, upstream, allocator, baked, runtime, not_set, secure, reproducible, targets, signers, runs or only_differs
X
printf '{"policy": 1, "rules": [}' >syntax.json
expect_exit 2 "$AB" verify --policy syntax.json bo
[ ! -s out ] || fail "a policy with a syntax error printed on stdout"
echo "syntax.json:1:25: rules[0]: expected a value, got '}'" | expect_file err
expect_exit 2 "$AB" verify --policy missing.json bo
expect_grep "missing.json" err
# an envelopes file is not something a policy reads
openssl genpkey -algorithm ed25519 -out ed.pem 2>/dev/null
expect_exit 0 "$AB" sign --signing-key ed.pem bo
expect_exit 2 "$AB" verify --policy policy.json bo/provenance/provenance.intoto.jsonl
[ ! -s out ] || fail "verify --policy of an envelopes file printed on stdout"
expect_grep "allocbuild: verify --policy: 'bo/provenance/provenance.intoto.jsonl' is an envelopes file: give the OUTDIR or the bundle" err

# --- the Fluent Bit recipe's shipped policy loads (its build is too large for this test)
expect_exit 1 "$AB" verify --policy "$TOP/recipes/fluent-bit-allocator-compare.policy.json" bo
expect_grep "FAIL: rules[0] source fb-je530: expected a variant matching it, got none ($BP: variants[].label)" out
