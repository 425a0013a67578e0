#!/usr/bin/env bash
# issue 18, item 4: state.json does not launder a tampered artifact. The
# up-to-date check trusts an earlier state only when the last run's
# manifests (SHA256SUMS, the statement, build-commands.json, ...) say the
# same; else the variant is built again.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
good=$(sha256sum bo/variants/t1/build/lib/libfake.a | cut -d' ' -f1)
# a rerun is up to date
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "t1: make: up to date" err

# bytes appended to an artifact, its new digest put into state.json
printf 'tampered' >>bo/variants/t1/build/lib/libfake.a
bad=$(sha256sum bo/variants/t1/build/lib/libfake.a | cut -d' ' -f1)
python3 - bo/variants/t1/state.json "$bad" <<'PY'
import json, sys
p, h = sys.argv[1], sys.argv[2]
d = json.load(open(p))
for a in d["artifacts"]:
    if a["artifact"] == "lib/libfake.a":
        a["sha256"] = h
        a["size"] += len("tampered")
json.dump(d, open(p, "w"), indent=2)
PY
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_no_grep "t1: make: up to date" err
expect_grep "t1: make (" err
[ "$(sha256sum bo/variants/t1/build/lib/libfake.a | cut -d' ' -f1)" = "$good" ] || fail "the artifact was not built again"
expect_no_grep "$bad" bo/provenance/provenance.intoto.json
expect_no_grep "$bad" bo/SHA256SUMS
expect_exit 0 "$AB" verify bo

# the same for a state whose steps were edited (no artifact touched)
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "t1: make: up to date" err
python3 - bo/variants/t1/state.json <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["steps"][-1]["argv"].append("FORGED=1")
json.dump(d, open(p, "w"), indent=2)
PY
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "t1: make (" err
expect_no_grep "FORGED" bo/provenance/build-commands.json

# and when the manifests themselves were tampered with: nothing is trusted
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "t1: make: up to date" err
sed -i 's/"fk"/"fK"/' bo/provenance/build-commands.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "t1: make (" err
expect_exit 0 "$AB" verify bo
