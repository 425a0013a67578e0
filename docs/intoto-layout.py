#!/usr/bin/python3
"""Write an in-toto layout for a recipe's OUTDIR (docs/intoto.md).

usage: intoto-layout.py --recipe RECIPE.json --functionary PUB.json
                        [--owner-key KEY] [--expires-days N]
                        [--verify-option OPT]... -o LAYOUT

The steps are those `allocbuild sign` writes links for, named from the
recipe (the reviewer's expectation, not the links being checked):
fetch-SOURCE for each source a variant builds from, build-LABEL for each
variant that builds, relink-LABEL for each relink, probe-LABEL for each
variant with an allocator or a runtime_of, and one inspection, verify-outdir, which runs
`allocbuild verify [OPT...] .` in the directory in-toto-verify runs in (the
OUTDIR; each --verify-option adds one OPT, e.g. --verify-option=--key=PUB.pem)
and matches each artifact there against the build step's products.

PUB.json is the builder's key as `allocbuild sign --intoto-pubkey PUB.pem`
prints it; every step trusts it alone (threshold 1). KEY, a private key of
in-toto-keygen (securesystemslib's format, unencrypted), signs the layout;
without it the layout is written unsigned, for in-toto-sign. Runs on
Debian's in-toto 1.3.1 (python3, the in-toto package).
"""
import argparse
import json
import sys

from in_toto.models.layout import Inspection, Layout, Step
from in_toto.models.metadata import Metablock
from securesystemslib import interface


def built(v):
    return "source" in v and "runtime_of" not in v


def relinked(v):
    return "relink" in v


def probed(v):
    return "allocator" in v or "runtime_of" in v


def maker(variants, label):
    """the step whose products a variant's artifacts are: its build or relink (through runtime_of)"""
    v = variants[label]
    while "runtime_of" in v:
        v = variants[v["runtime_of"]]
    return ("relink-" if relinked(v) else "build-") + v["label"]


def fetch_step(source, keyid):
    return Step(name="fetch-" + source, pubkeys=[keyid],
                expected_materials=[["DISALLOW", "*"]],
                expected_products=[["CREATE", source + "/*"], ["DISALLOW", "*"]])


def build_step(v, keyid):
    label, src = v["label"], v["source"]
    out = "variants/%s/" % label
    require = [["REQUIRE", out + "build/" + a] for a in v.get("artifacts", [])]
    build = v.get("build", {})
    # the command the link records: make's for autotools, cmake --build's for cmake (in-toto only warns on another)
    targets = build.get("targets", [])
    command = []
    if build.get("system") == "autotools":
        command = ["make"] + targets
    elif build.get("system") == "cmake":
        command = ["cmake", "--build", "/allocbuild/build"] + (["--target"] + targets if targets else [])
    return Step(name="build-" + label, pubkeys=[keyid], expected_command=command,
                expected_materials=[
                    ["MATCH", "*", "IN", out + "src", "WITH", "PRODUCTS", "IN", src, "FROM", "fetch-" + src],
                    ["DISALLOW", "*"]],
                expected_products=require + [
                    ["CREATE", out + "build/*"], ["CREATE", out + "logs/*"], ["DISALLOW", "*"]])


def relink_step(v, variants, keyid):
    label, src = v["label"], v["relink"]["from"]
    out = "variants/%s/" % src
    rules = [["MATCH", "*", "WITH", "PRODUCTS", "FROM", maker(variants, r["with"]["variant"])]
             for r in v["relink"].get("replace", [])]
    require = [["REQUIRE", out + "build/" + a] for a in v.get("artifacts", [])]
    return Step(name="relink-" + label, pubkeys=[keyid],
                expected_materials=rules + [["DISALLOW", "*"]],
                expected_products=require + [
                    ["CREATE", out + "build/*"], ["CREATE", "variants/%s/logs/*" % label], ["DISALLOW", "*"]])


def probe_command(v, variants):
    """what a probe runs: the program it writes and links against an archive, or the variant's own program
    (its first artifact, in its base's build directory for a runtime_of), with the probe's arguments"""
    base = v
    while "runtime_of" in base:
        base = variants[base["runtime_of"]]
    if "archive" in base.get("allocator", {}) or not base.get("artifacts") or relinked(base):
        return ["/allocbuild/probe/probe"]
    where = "/allocbuild/build/" if base is v else "/allocbuild/variants/%s/build/" % base["label"]
    return [where + base["artifacts"][0]] + base.get("probe", {}).get("args", [])


def probe_step(v, variants, keyid):
    label = v["label"]
    return Step(name="probe-" + label, pubkeys=[keyid], expected_command=probe_command(v, variants),
                expected_materials=[["MATCH", "*", "WITH", "PRODUCTS", "FROM", maker(variants, label)],
                                    ["DISALLOW", "*"]],
                expected_products=[["CREATE", "variants/%s/probe/*" % label], ["DISALLOW", "*"]])


def verify_inspection(variants, options):
    rules = []
    for v in variants.values():
        if built(v) or relinked(v):
            home = v["relink"]["from"] if relinked(v) else v["label"]
            for a in v.get("artifacts", []):
                path = "variants/%s/build/%s" % (home, a)
                rules += [["MATCH", path, "WITH", "PRODUCTS", "FROM", maker(variants, v["label"])],
                          ["DISALLOW", path]]
    return Inspection(name="verify-outdir", run=["allocbuild", "verify"] + options + ["."],
                      expected_materials=rules + [["ALLOW", "*"]], expected_products=[["ALLOW", "*"]])


def layout(recipe, key, days, options):
    order = recipe["variants"]
    variants = {v["label"]: v for v in order}
    keyid = key["keyid"]
    sources = []
    for v in filter(built, order):
        if v["source"] not in sources:
            sources.append(v["source"])
    steps = [fetch_step(s, keyid) for s in sources]
    steps += [build_step(v, keyid) for v in filter(built, order)]
    steps += [relink_step(v, variants, keyid) for v in filter(relinked, order)]
    steps += [probe_step(v, variants, keyid) for v in filter(probed, order)]
    lay = Layout(steps=steps, inspect=[verify_inspection(variants, options)],
                 readme="allocbuild recipe %s (docs/intoto.md)" % recipe.get("name", "?"))
    lay.add_functionary_key(key)
    lay.set_relative_expiration(days=days)
    return lay


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--functionary", required=True)
    ap.add_argument("--owner-key")
    ap.add_argument("--expires-days", type=int, default=365)
    ap.add_argument("--verify-option", action="append", default=[])
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    with open(a.recipe, encoding="utf-8") as f:
        recipe = json.load(f)
    # the key file's type is in it: ed25519 or ecdsa, as allocbuild prints it
    with open(a.functionary, encoding="utf-8") as f:
        keytype = json.load(f).get("keytype")
    if keytype == "ed25519":
        key = interface.import_ed25519_publickey_from_file(a.functionary)
    else:
        key = interface.import_ecdsa_publickey_from_file(a.functionary)
    meta = Metablock(signed=layout(recipe, key, a.expires_days, a.verify_option))
    if a.owner_key:
        meta.sign(interface.import_privatekey_from_file(a.owner_key, key_type="ed25519"))
    meta.dump(a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
