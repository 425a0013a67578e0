#!/usr/bin/env bash
# Benchmark of signed provenance (issue 15) on the default recipe's OUTDIR
# (recipes/jemalloc-5.3.0-policy.json: one statement, 2 subjects of 42 MB,
# 9 byproducts), each target under 50 ms of wall time:
#  (a) allocbuild sign OUTDIR --key KEY.pem, Ed25519 and ECDSA P-256:
#      read the statement, sign its PAE, write the envelopes and signers.json,
#      and the in-toto links (their digests those the build recorded);
#  (b) allocbuild verify --key PUB.pem OUTDIR/provenance/provenance.intoto.jsonl:
#      the signature over the PAE, then every subject and byproduct digest
#      against the files (the 84 MB of artifacts re-hashed, on lib/pool);
#  (c) allocbuild verify --key PUB.pem BUNDLE: the bundle streamed and hashed,
#      the signature, the byproducts inside it (the artifacts are not bundled).
# Each command runs ROUNDS times (default 5) after a warm-up, with a warm
# page cache; best and median are printed with the CPU seconds. The OUTDIR
# is $OUTDIR when set (a default-recipe build, e.g. allocbuild-out/
# jemalloc-5.3.0-policy; only its manifests, logs and artifacts are copied,
# it is not changed), else the default recipe is built in the work directory
# (2-3 minutes; KEEP=1 keeps it for the next run).
# usage: OUTDIR=DIR bench/sign.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup sign 0 "$@"
command -v openssl >/dev/null || { echo "bench: openssl is needed" >&2; exit 2; }

machine_line
default_outdir

# a copy, so that signing does not touch $src (the source trees too: sign's in-toto links name them)
o=$WORK/outdir
rm -rf "$o"
cp -a "$src" "$o"
"$AB" verify "$o" >/dev/null || { echo "bench: the copy of '$src' does not verify" >&2; exit 1; }
openssl genpkey -algorithm ed25519 -out "$WORK/ed.pem" 2>/dev/null
openssl pkey -in "$WORK/ed.pem" -pubout -out "$WORK/ed.pub.pem"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/ec.pem" 2>/dev/null
openssl pkey -in "$WORK/ec.pem" -pubout -out "$WORK/ec.pub.pem"
J=$o/provenance/provenance.intoto.jsonl
echo "statement: $(wc -c <"$o/provenance/provenance.intoto.json") bytes," \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["subject"]), "subjects,", len(d["predicate"]["runDetails"]["byproducts"]), "byproducts")' "$o/provenance/provenance.intoto.json");" \
	"artifacts $(du -cm --apparent-size "$o"/variants/*/build/lib/*.a | tail -1 | cut -f1) MB"

# report NAME VAR: one line with best, median, CPU and peak RSS against the 50 ms target
report() {
	local best median cpu rss
	eval "best=\$${2}_best median=\$${2}_median cpu=\$${2}_cpu rss=\$${2}_rss"
	awk -v n="$1" -v b="$best" -v m="$median" -v c="$cpu" -v r="$ROUNDS" -v s="$rss" 'BEGIN {
		printf "%-44s best %5.1f ms, median of %d %5.1f ms, cpu %s s, peak RSS %s MiB: %s (target < 50 ms)\n",
		    n, b * 1000, r, m * 1000, c, s, (b < 0.050 ? "PASS" : "FAIL") }'
}

for k in ed ec; do
	time_cmd sign_$k "$AB" sign --signing-key "$WORK/$k.pem" "$o"
	cp "$J" "$WORK/$k.jsonl"
done
report "(a) sign, Ed25519" sign_ed
report "(a) sign, ECDSA P-256" sign_ec
for k in ed ec; do
	cp "$WORK/$k.jsonl" "$J"
	"$AB" verify --key "$WORK/$k.pub.pem" "$J" >/dev/null || { echo "bench: the envelopes do not verify" >&2; exit 1; }
	time_cmd verify_$k "$AB" verify --key "$WORK/$k.pub.pem" "$J"
done
report "(b) verify --key FILE.intoto.jsonl, Ed25519" verify_ed
report "(b) verify --key FILE.intoto.jsonl, ECDSA" verify_ec
"$AB" pr --sign "$WORK/ed.pem" -o "$WORK/pr" "$o" >/dev/null
bundle=$(ls "$WORK"/pr/provenance-*.tar.gz)
"$AB" verify --key "$WORK/ed.pub.pem" "$bundle" >/dev/null || { echo "bench: the bundle does not verify" >&2; exit 1; }
time_cmd bundle "$AB" verify --key "$WORK/ed.pub.pem" "$bundle"
report "(c) verify --key BUNDLE, Ed25519" bundle
# for scale: re-hashing the artifacts alone, as part (b) does
time_cmd hash "$AB" hash "$o"/variants/*/build/lib/*.a
awk -v b="$hash_best" 'BEGIN { printf "    for scale: allocbuild hash of the artifacts alone, best %.1f ms\n", b * 1000 }'
echo "machine after: $(uptime | sed 's/.*load/load/')"
