# Sourced by the tests that check allocbuild's SBOM (docs/sbom.md) against
# the official CycloneDX 1.6 JSON schema: the CycloneDX project's own npm
# package @cyclonedx/cyclonedx-library ships it (res/schema/), fetched once
# into tests/.cache/npm (as t7210 fetches mermaid), each schema file
# pinned by its sha256. cdx_validate FILE checks a document with Debian's
# python3-jsonschema (Draft 7, formats checked where it can).
CDX_LIB=10.3.0
CDX_SCHEMAS=$TOP/tests/.cache/npm/cyclonedx-library-$CDX_LIB-schema
CDX_PINS="83821ba49aa366ad1f1d16c34837d05edd010f036f652e310db1c77d57b37c58  res/schema/bom-1.6.SNAPSHOT.schema.json
4b345e2329f209f34e960ae2a8e7cb46a166907e6a45e94978565925dc47b359  res/schema/spdx.SNAPSHOT.schema.json
8bae002c25e723db7ee1f26afde680ae1a2b1a8f6b4b4b0fd65dc3becb090aae  res/schema/jsf-0.82.SNAPSHOT.schema.json"

cdx_schemas() {
	npm_pinned "@cyclonedx/cyclonedx-library@$CDX_LIB" "$CDX_SCHEMAS" "$CDX_PINS"
}

# cdx_validate FILE: FILE validates against the CycloneDX 1.6 JSON schema (else the errors, exit 1)
cdx_validate() {
	cdx_schemas
	/usr/bin/python3 - "$CDX_SCHEMAS" "$1" <<'PY'
import json, os, sys
import jsonschema
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))
bom = load("bom-1.6.SNAPSHOT.schema.json")
store = {}
for n in ("spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json"):
    s = load(n)
    store[s["$id"]] = s
    store["http://cyclonedx.org/schema/" + n] = s
resolver = jsonschema.RefResolver.from_schema(bom, store=store)
v = jsonschema.Draft7Validator(bom, resolver=resolver, format_checker=jsonschema.draft7_format_checker)
errors = sorted(v.iter_errors(json.load(open(sys.argv[2]))), key=lambda e: list(e.absolute_path))
for e in errors[:20]:
    print("%s: %s: %s" % (sys.argv[2], "/".join(map(str, e.absolute_path)), e.message[:300]), file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}
