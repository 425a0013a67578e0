#!/usr/bin/env bash
# One quiet and one JSON convention that hold (issue 48, item 6): -q before
# or after the command silences what a success says, not what failed nor
# the data asked for; --json on build, fetch, merge, pr and sign prints
# one document on stdout while progress stays on stderr; stdout is out
# before anything goes to stderr, so 2>&1 keeps lines whole; repeated
# verify failures (a wrong key on every envelope) are said once; a typo of
# a command, an option or a label gets a "did you mean".
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json >/dev/null
# one_json FILE: FILE holds exactly one JSON document
one_json() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"; }

# ---- -q: nothing on stdout for a success, wherever -q stands
expect_exit 0 "$AB" -q validate r.json
check "-q validate says nothing" test ! -s out
expect_exit 0 "$AB" -q build --mirror-dir mirror -o o r.json
check "-q build says nothing on stdout" test ! -s out
check "-q build says nothing on stderr" test ! -s err
expect_exit 0 "$AB" build --json --mirror-dir mirror -o o r.json
check "build --json is one document" one_json out
check "build --json names the variants" test "$(json out '[(v["label"], v["built"]) for v in d["variants"]]')" = "[('a', True), ('a2', True)]"
expect_exit 0 "$AB" verify -q o
check "-q verify says nothing" test ! -s out
openssl genpkey -algorithm ed25519 -out k.pem 2>/dev/null
openssl pkey -in k.pem -pubout -out k.pub
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
openssl pkey -in other.pem -pubout -out other.pub

# runs: three records, so six statements to sign (with the runs' test result and the SBOM's)
for i in 1 2; do
	expect_exit 0 "$AB" -q run o a --name q -- true
	check "-q run $i says nothing on stdout" test ! -s out
	check "-q run $i has no progress lines" not grep -q '^\[' err
done
expect_exit 0 "$AB" run --json o a --name q -- sh -c 'echo the-command-says-this'
check "run --json is one document" one_json out
check "run --json names the record" test "$(json out '[(r["record"], r["label"], r["exit_code"]) for r in d["runs"]]')" = \
	"[('runs/q/0003-a.intoto.json', 'a', 0)]"
check "run --json keeps the command's output in its log" grep -qx the-command-says-this o/runs/q/0003-a.log

expect_exit 0 "$AB" sign --json --signing-key k.pem o
check "sign --json is one document" one_json out
check "sign --json counts the statements" test "$(json out 'd["statements"]')" = 6
expect_exit 0 "$AB" -q sign --signing-key k.pem o
check "-q sign says nothing" test ! -s out

# verify --key: one line for a success; a wrong key's failure once, with its lines
expect_exit 0 "$AB" verify --key k.pub o
check "verify --key says no line per envelope" not grep -q ': ok: ' out
expect_grep "verified 6 signed statements in the OUTDIR" out
expect_exit 1 "$AB" verify --key other.pub o
check "a wrong key's failure is said once for its lines" grep -q '^provenance/provenance.intoto.jsonl:1-6: unknown keyid .* (6 lines alike)$' out
expect_exit 1 "$AB" -q verify --key other.pub o
check "-q verify still says what failed" grep -q '^FAIL: OUTDIR o' out
expect_exit 0 "$AB" -v verify --key k.pub o
check "-v verify --key says each envelope" test "$(grep -c ': ok: ' out)" = 6

expect_exit 0 "$AB" pr --json -o p o
check "pr --json is one document" one_json out
check "pr --json names pr.md" test "$(json out 'd["pr_md"]')" = p/pr.md
expect_exit 0 "$AB" pr -q -o p2 o
check "-q pr says nothing" test ! -s out

expect_exit 0 "$AB" fetch --json --mirror-dir mirror -o f r.json
check "fetch --json is one document" one_json out
check "fetch --json names the tree" test "$(json out '[t["label"] for t in d["trees"]]')" = "['a']"

# two variants that do not depend on each other: a shard each
python3 - r.json r2.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = dict(d["variants"][0], label="b")
d["variants"] = [d["variants"][0], b]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 "$AB" -q build --shard 1/2 --mirror-dir mirror -o s1 r2.json
expect_exit 0 "$AB" -q build --shard 2/2 --mirror-dir mirror -o s2 r2.json
expect_exit 0 "$AB" merge --json -o m s1 s2
check "merge --json is one document" one_json out
check "merge --json names the variants" test "$(json out 'd["variants"]')" = "['a', 'b']"

# ---- stdout first: under 2>&1 a run's line of data comes before the warning said after it
"$AB" run o a --name w -- true >both 2>&1 || fail "run failed: $(cat both)"
check "the run's line comes before the warning" test "$(grep -n -e '^runs/w/0001-a.intoto.json: a 1/1 exit 0' -e "^allocbuild: warning: run: 'o' is signed" both | cut -d: -f1 | tr '\n' ' ')" = \
	"$(($(wc -l <both) - 1)) $(wc -l <both) "

# ---- did you mean
expect_exit 2 "$AB" verfy o
expect_grep "allocbuild: unknown command 'verfy' (did you mean 'verify'?)" err
expect_exit 2 "$AB" verify --kye k.pub o
expect_grep "allocbuild: verify: unknown option '--kye' (did you mean '--key'?)" err
expect_exit 2 "$AB" env o a3
expect_grep "allocbuild: 'o' has no built variant 'a3' (did you mean 'a2'?)" err
expect_exit 2 "$AB" build --mirror-dir mirror -o o r.json a22
expect_grep "allocbuild: unknown variant 'a22' (did you mean 'a2'?)" err

# ---- --no-sandbox is said
expect_exit 0 "$AB" build --no-sandbox --mirror-dir mirror -o ns r.json
expect_grep "allocbuild: warning: build --no-sandbox: every step runs with your files" err
