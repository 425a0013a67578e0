#!/usr/bin/env bash
# Run numbers past 9999: "%04d" writes 10000 with five digits, and every
# reader of the names takes it as a record. Here a placeholder record
# 9998 (removed after) makes the next runs of a name 9999, 10000 and
# 10001, each with its own files (none overwritten); verify passes, sign
# signs them after 0001 in number order (9999 before 10000, which is not
# bytewise order), verify --key checks them, and pr lists them. A name whose numbers would pass AB_RUN_NUMBER_MAX is refused,
# exit 2, nothing written.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build nums bin/fake
expect_exit 0 "$AB" run bo a --name p -- {bin}
[ -f bo/runs/p/0001-a.intoto.json ] || fail "no first record"
# the highest record decides the next number
: >bo/runs/p/9998-a.intoto.json
expect_exit 0 "$AB" run bo a --name p -- {bin} zero
expect_exit 0 "$AB" run bo a --name p -- {bin} one
expect_exit 0 "$AB" run bo a --name p -- {bin} two
rm bo/runs/p/9998-a.intoto.json
for n in 9999 10000 10001; do
	for f in intoto.json log; do
		[ -f "bo/runs/p/$n-a.$f" ] || fail "run $n has no $f"
		grep -q "  runs/p/$n-a.$f\$" bo/SHA256SUMS || fail "runs/p/$n-a.$f not in SHA256SUMS"
	done
done
[ "$(json bo/runs/p/10000-a.intoto.json 'd["predicate"]["number"]')" = 10000 ]
[ "$(json bo/runs/p/10001-a.intoto.json 'd["predicate"]["number"]')" = 10001 ]
[ "$(json bo/runs/p/10000-a.intoto.json 'd["predicate"]["argv"][1]')" = one ]
[ "$(json bo/runs/p/10001-a.intoto.json 'd["predicate"]["argv"][1]')" = two ]
[ "$(json bo/runs/p/9999-a.intoto.json 'd["predicate"]["argv"][1]')" = zero ]
[ "$(ls bo/runs/p | grep -c 'intoto.json$')" = 4 ]
expect_exit 0 "$AB" verify bo
expect_grep "verified " out

# signed in number order, after the build's statement (then the runs' test result and the SBOM's)
expect_exit 0 "$AB" sign --signing-key ed.pem bo
python3 - bo/provenance/provenance.intoto.jsonl >order <<'PY'
import base64, json, sys
for line in open(sys.argv[1]):
    st = json.loads(base64.b64decode(json.loads(line)["payload"]))
    print(st["predicate"].get("number", {"https://in-toto.io/attestation/test-result/v0.1": "result",
                                         "https://allocbuild.dev/sbom/v1": "sbom"}.get(st["predicateType"], "build")))
PY
[ "$(tr '\n' ' ' <order)" = "build 1 9999 10000 10001 result sbom " ] || fail "signed in the order: $(tr '\n' ' ' <order)"
expect_exit 0 "$AB" verify --key ed.pub.pem bo
expect_exit 0 "$AB" pr -o pr bo
grep -q '10001' pr/pr.md || fail "pr.md does not list run 10001"

# numbers beyond the last one: refused before anything is written
mkdir -p bo/runs/q && : >bo/runs/q/999999999-a.intoto.json
expect_exit 2 "$AB" run bo a --name q -- {bin}
expect_grep "would number runs beyond 999999999: use another --name" err
[ "$(ls bo/runs/q)" = 999999999-a.intoto.json ] || fail "a refused run wrote: $(ls bo/runs/q)"
