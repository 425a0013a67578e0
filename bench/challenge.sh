#!/usr/bin/env bash
# Benchmark of `allocbuild challenge` (issue 36) over 20 signed rebuild
# records of the default recipe (recipes/jemalloc-5.3.0-policy.json: 2
# artifacts of 42 MB), target under 50 ms of wall time: the bundle's
# statement and build-commands.json read and hashed, 20 envelopes read,
# their Ed25519 signatures checked with 20 keys, the records grouped per
# artifact. Its peer is `sha256sum -c` of the same artifacts (what a
# reviewer would run to check the original's bytes by hand), measured in
# the same run.
#
# The records: one real `rebuild --sign` of the default build's bundle (one
# more build of the recipe: 2-3 minutes; KEEP=1 keeps it), and 19 made from
# it for timing: its host renamed rebuilder-2 .. rebuilder-20 and each
# signed by openssl with a key of its own (the same size and shape as a real
# record; challenge does the same work for each). The OUTDIR is $OUTDIR when
# set (a default-recipe build, e.g. allocbuild-out/jemalloc-5.3.0-policy or
# the suite's default fixture; only what SHA256SUMS lists is copied, it is not
# changed), else the default recipe is built in the work directory.
# usage: OUTDIR=DIR bench/challenge.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup challenge 0 "$@"
command -v openssl >/dev/null || { echo "bench: openssl is needed" >&2; exit 2; }

machine_line
mirror=$("$TOP/scripts/debian-mirror.sh" "$WORK/mirror")
default_outdir
o=$WORK/outdir
if [ ! -d "$WORK/rb" ]; then
	rm -rf "$o" "$WORK/pr"
	mkdir -p "$o"
	(cd "$src" && { cut -c67- SHA256SUMS; echo SHA256SUMS; } | xargs cp --parents -t "$o")
	"$AB" verify "$o" >/dev/null || { echo "bench: the copy of '$src' does not verify" >&2; exit 1; }
	"$AB" pr -o "$WORK/pr" "$o" >/dev/null
	openssl genpkey -algorithm ed25519 -out "$WORK/k1.pem" 2>/dev/null
	chmod 600 "$WORK/k1.pem"
	echo "rebuilding its bundle into $WORK/rb ..."
	XDG_CACHE_HOME=$WORK/cache "$AB" rebuild --trust-unsigned --sign "$WORK/k1.pem" --mirror-dir "$mirror" \
		-o "$WORK/rb" "$WORK"/pr/provenance-*.tar.gz >"$WORK/rebuild.log" 2>&1 ||
		{ tail -n 30 "$WORK/rebuild.log"; rm -rf "$WORK/rb"; exit 1; }
fi
bundle=$(ls "$WORK"/pr/provenance-*.tar.gz)
R=$WORK/records
rm -rf "$R"
mkdir -p "$R"
cp "$WORK/rb/rebuild.intoto.jsonl" "$R/r1.jsonl"
openssl pkey -in "$WORK/k1.pem" -pubout -out "$R/k1.pub"
keys=(--key "$R/k1.pub")
for i in $(seq 2 20); do
	openssl genpkey -algorithm ed25519 -out "$R/k$i.pem" 2>/dev/null
	openssl pkey -in "$R/k$i.pem" -pubout -out "$R/k$i.pub"
	python3 - "$WORK/rb/provenance/rebuild.intoto.json" "$R/r$i.json" "rebuilder-$i" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["predicate"]["rebuilder"]["host"]["name"] = sys.argv[3]
open(sys.argv[2], "w").write(json.dumps(d, indent="\t"))
PY
	python3 - "$R/r$i.json" >"$R/pae" <<'PY'
import sys
t, b = b"application/vnd.in-toto+json", open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(b"DSSEv1 %d %b %d %b" % (len(t), t, len(b), b))
PY
	openssl pkeyutl -sign -inkey "$R/k$i.pem" -rawin -in "$R/pae" -out "$R/sig"
	python3 - "$R/r$i.json" "$(openssl pkey -pubin -in "$R/k$i.pub" -outform DER | sha256sum | cut -d' ' -f1)" \
		"$R/sig" >"$R/r$i.jsonl" <<'PY'
import base64, json, sys
b, s = open(sys.argv[1], "rb").read(), open(sys.argv[3], "rb").read()
print(json.dumps({"payload": base64.b64encode(b).decode(), "payloadType": "application/vnd.in-toto+json",
                  "signatures": [{"keyid": sys.argv[2], "sig": base64.b64encode(s).decode()}]}, separators=(",", ":")))
PY
	keys+=(--key "$R/k$i.pub")
done
records=()
for i in $(seq 1 20); do records+=("$R/r$i.jsonl"); done
"$AB" challenge "${keys[@]}" "$bundle" "${records[@]}" >"$WORK/challenge.out" ||
	{ cat "$WORK/challenge.out"; echo "bench: challenge did not pass" >&2; exit 1; }
grep -c "20 of 20 identical" "$WORK/challenge.out" | grep -qx 2 || { cat "$WORK/challenge.out"; exit 1; }
echo "records: 20 of $(wc -c <"$R/r1.jsonl") bytes (one real rebuild's, 19 renamed and signed anew), 20 Ed25519 keys;" \
	"artifacts $(du -cm --apparent-size "$o"/variants/*/build/lib/*.a | tail -1 | cut -f1) MB"
(cd "$o" && grep '  variants/.*/build/lib/.*\.a$' SHA256SUMS) >"$WORK/arts.sha256"

# time both in turn
A=("$AB" challenge "${keys[@]}" "$bundle" "${records[@]}")
B=(sh -c "cd '$o' && sha256sum -c --quiet '$WORK/arts.sha256'")
time_pair ch sums A B
awk -v b="$ch_best" -v m="$ch_median" -v c="$ch_cpu" -v r="$ROUNDS" 'BEGIN {
	printf "challenge, 20 signed records   best %6.1f ms, median of %d %6.1f ms, cpu %s s: %s (target < 50 ms)\n",
	    b * 1000, r, m * 1000, c, (b < 0.050 ? "PASS" : "FAIL") }'
awk -v b="$sums_best" -v m="$sums_median" -v r="$ROUNDS" 'BEGIN {
	printf "peer: sha256sum -c, 2 artifacts best %6.1f ms, median of %d %6.1f ms\n", b * 1000, r, m * 1000 }'
echo "challenge is $ch_sums_pair times faster than sha256sum -c of the artifacts (median of the rounds' ratios)"
echo "machine after: $(uptime | sed 's/.*load/load/')"
