#!/usr/bin/env bash
# allocbuild sbom on a small real build (docs/sbom.md): the document on
# standard output and with -o the same bytes, every time; valid by the
# official CycloneDX 1.6 schema; the archive source's purl is a generic
# one with its checksum and download URL, the artifacts carry their
# digests, the program depends on its source. Refusals: an OUTDIR that
# does not verify (exit 1, each problem named, nothing written), an
# unknown format and no OUTDIR (exit 2).
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"
. "$TOP/tests/sbom-lib.sh"

fake_build sb lib/libfake.a bin/fake
sha=$(sed -n 's/^\([0-9a-f]\{64\}\)  variants\/a\/build\/bin\/fake$/\1/p' bo/SHA256SUMS)
src=$(json bo/provenance/sources.json 'd["sources"]["fake"]["sha256"]')

expect_exit 0 "$AB" sbom bo
cp out bom.json
expect_exit 0 "$AB" sbom -o bom2.json bo
[ ! -s out ] || fail "sbom -o printed: $(cat out)"
check "sbom -o writes what sbom prints" cmp bom.json bom2.json
expect_exit 0 "$AB" sbom bo
check "the same OUTDIR gives the same bytes" cmp bom.json out
check "the SBOM validates against CycloneDX 1.6's JSON schema" cdx_validate bom.json
python3 - bom.json >got <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["specVersion"], d["metadata"]["component"]["name"], d["serialNumber"].startswith("urn:uuid:"))
for c in d["components"]:
    print(c["bom-ref"], c["type"], c["name"], c.get("purl", "-"), [h["content"][:12] for h in c.get("hashes", [])])
for x in d["dependencies"]:
    print("dep", x["ref"], x["dependsOn"])
PY
cat >want <<X
1.6 sb True
source:fake application fake pkg:generic/fake?checksum=sha256:$src&download_url=https://example.invalid/fakeproj-1.0.tar.gz ['${src:0:12}']
artifact:variants/a/build/lib/libfake.a library libfake.a - ['$(sha256sum <bo/variants/a/build/lib/libfake.a | cut -c1-12)']
artifact:variants/a/build/bin/fake application fake - ['${sha:0:12}']
dep recipe:sb ['artifact:variants/a/build/lib/libfake.a', 'artifact:variants/a/build/bin/fake']
dep artifact:variants/a/build/lib/libfake.a ['source:fake']
dep artifact:variants/a/build/bin/fake ['source:fake']
dep source:fake []
X
expect_file got <want

# refused: an OUTDIR that does not verify, an unknown format, no OUTDIR
cp -a bo t
printf 'x' >>t/variants/a/build/bin/fake
expect_exit 1 "$AB" sbom -o t.json t
expect_grep "allocbuild: sbom: variants/a/build/bin/fake: expected $sha, actual " err
expect_grep "allocbuild: sbom: 't' does not verify ('allocbuild verify t'): no SBOM" err
[ ! -e t.json ] && [ ! -s out ] || fail "an SBOM of an OUTDIR that does not verify was written"
expect_exit 2 "$AB" sbom --format spdx bo
expect_grep "sbom: unknown format 'spdx': cyclonedx" err
[ ! -s out ] || fail "a refused format printed: $(cat out)"
expect_exit 2 "$AB" sbom
expect_grep "sbom: missing OUTDIR" err
mkdir empty
expect_exit 2 "$AB" sbom empty
expect_grep "allocbuild: sbom: 'empty' has no recipe.json: not an allocbuild output directory" err
