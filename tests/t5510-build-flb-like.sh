# The flb-like fixture through `allocbuild build`: two cmake variants from a
# git repository made by make-flb-like.sh (jemalloc with its default
# options, and with --with-malloc-conf baked in) and the diagnostic relink
# of the first with the second's archive, as the Fluent Bit campaign does.
# cmake-cache-provenance.json shows exactly the differing keys, the bogus
# jemalloc version is detected, upstream-diff.json says the vendored tree
# matches 5.3.0 apart from the four files Fluent Bit leaves out, and the
# relink is marked as what it is, next to its normal sibling. With
# --check, everything is built again into OUTDIR/reproducibility/check
# (longer, nested, -j4): every artifact is identical, the relink's too,
# although jemalloc is configured from inside CMake (ExternalProject) with
# CFLAGS of its own. Signed, its in-toto links (the relink's too) pass
# Debian's in-toto-verify with the layout docs/intoto-layout.py writes.
# Its third build, quantum, is of a second commit whose vendored jemalloc
# has one hand-edited file (as Redis vendors a patched jemalloc), named as
# Fluent Bit's repository is: the campaign's SBOM (allocbuild sbom,
# docs/sbom.md) validates against the official CycloneDX 1.6 schema, gives
# the untouched tree the pedigree jemalloc 5.3.0 with the tarball's sha256
# and no patch, and the edited one exactly one patch, which `patch -p1`
# applies to the release tarball's tree to give the vendored file byte for
# byte.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sbom-lib.sh"

special_opts="--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30"
URL=https://git.example.invalid/flb-like.git
commit=$("$TOP/tests/fixtures/make-flb-like.sh" --git flb-like.git "$JEMALLOC_TARBALL")

"$TOP/tests/fixtures/flb-like-recipe.sh" "$URL" "$commit" "$JEMALLOC_SHA" "$special_opts" >r.json

expect_exit 0 "$AB" build --check -j 2 --mirror "https://git.example.invalid/=$PWD/" --mirror-dir "$MIRROR" r.json
cp out build.out
OUT=allocbuild-out/flb-like
P=$OUT/provenance
# --- reproducible: the second build gave the same bytes
sed -n '/^reproducibility:/,$p' out | sed -E -e 's/ +[0-9a-f]{12}$//' -e 's/ +/ /g' >report
cat >want <<X
reproducibility: built again in $PWD/$OUT/reproducibility/check with -j 4
identical stock variants/stock/build/bin/fluent-bit
identical stock variants/stock/build/lib/libjemalloc_pic.a
identical special variants/special/build/bin/fluent-bit
identical special variants/special/build/lib/libjemalloc_pic.a
identical stock-relink-special variants/stock/build/bin/fluent-bit-relink-special
5/5 artifacts identical
X
expect_file report <want
grep -E '  variants/[^/]+/build/' $OUT/SHA256SUMS >a1
grep -E '  variants/[^/]+/build/' $OUT/reproducibility/check/SHA256SUMS >a2
diff -u a1 a2 || fail "the artifacts depend on the OUTDIR"
! grep -aqF "$PWD" $OUT/variants/stock/build/bin/fluent-bit || fail "bin/fluent-bit names the OUTDIR"
# the ExternalProject's configure found the wrapper through PATH, as CMake did
expect_grep "/ccwrap/gcc" "$OUT/variants/stock/build/jemalloc-prefix/src/jemalloc-build/config.log"
[ "$(json $P/cmake-cache-provenance.json '[L["stock"]["compilers"][l]["path"] for l in ("C", "CXX")]')" = "['/usr/bin/cc', '/usr/bin/c++']" ]
[ "$(json $P/binary-provenance.json '[v["host_probes"]["header"] for v in d["variants"]][0]')" = \
  jemalloc-prefix/src/jemalloc-build/include/jemalloc/internal/jemalloc_internal_defs.h ]
# jemalloc's host probes, unpinned: as this machine measures them (a relink's, its from variant's)
page=$(getconf PAGESIZE)
huge=$(awk '/^Hugepagesize:/ { print $2 * 1024 }' /proc/meminfo)
vaddr=$(awk '/^address sizes/ { for (i = 1; i <= NF; i++) if ($i == "virtual") print $(i - 2); exit }' /proc/cpuinfo)
lg() { python3 -c "import sys; n = int(sys.argv[1]); print(n.bit_length() - 1)" "$1"; }
[ "$(json $P/binary-provenance.json '[(v["label"], v["host_probes"]["LG_PAGE"], v["host_probes"]["LG_HUGEPAGE"], v["host_probes"]["LG_VADDR"], v["host_probes"]["pinned"]) for v in d["variants"] if v.get("host_probes")]')" = \
  "[('stock', $(lg $page), $(lg $huge), $vaddr, []), ('special', $(lg $page), $(lg $huge), $vaddr, []), ('stock-relink-special', $(lg $page), $(lg $huge), $vaddr, [])]" ] ||
	fail "host probes: $(json $P/binary-provenance.json '[v.get("host_probes") for v in d["variants"]]')"
# --- the fixture's build, as Fluent Bit's: archive, headers, binary, link.txt
for v in stock special; do
	B=$OUT/variants/$v/build
	[ -x "$B/bin/fluent-bit" ] || fail "no fluent-bit for $v"
	[ -f "$B/lib/libjemalloc_pic.a" ] || fail "no lib/libjemalloc_pic.a for $v"
	[ -f "$B/include/jemalloc/jemalloc.h" ] || fail "no include/jemalloc/jemalloc.h for $v"
	expect_grep '#define FLB_INFO_FLAGS " FLB_HAVE_JEMALLOC JEMALLOC_MANGLE"' "$OUT/variants/$v/src/include/fluent-bit/flb_info.h"
	expect_exit 0 "$B/bin/fluent-bit" -h
	expect_grep " Build Flags = FLB_HAVE_JEMALLOC JEMALLOC_MANGLE" out
	# jemalloc's configure saw no VERSION and no git tags (the build sets
	# GIT_CEILING_DIRECTORIES): the bogus version
	expect_grep " Allocator = 0.0.0-0-g000000missing_version_try_git_fetch_tags" out
	echo 0.0.0-0-g000000missing_version_try_git_fetch_tags |
		expect_file "$B/jemalloc-prefix/src/jemalloc-build/VERSION"
	link=$B/src/CMakeFiles/fluent-bit-bin.dir/link.txt
	[ "$(grep -o '\.\./lib/libjemalloc_pic\.a' "$link" | wc -l)" = 2 ] || fail "$link: $(cat "$link")"
done

# --- cmake-cache-provenance.json: exactly the configured difference
C=$P/cmake-cache-provenance.json
[ "$(json $C 'd["baseline"]')" = stock ] || fail "baseline: $(json $C 'd["baseline"]')"
json $C '[L[v]["keys"]["FLB_JEMALLOC_OPTIONS"] for v in ("stock", "special")]' >k
echo "[{'type': None, 'value': None, 'defaulted': True}, {'type': 'UNINITIALIZED', 'value': '$special_opts'}]" |
	expect_file k
json $C '[(v, L[v]["build_type"]["effective"], L[v]["build_type"]["shadowed"]) for v in ("stock", "special")]' >k
echo "[('stock', 'Debug', True), ('special', 'Debug', True)]" | expect_file k
[ "$(json $C 'L["stock"]["cache"]["sha256"]')" = "$(sha256sum $OUT/variants/stock/build/CMakeCache.txt | cut -c1-64)" ] ||
	fail "cache sha256"
python3 - $C >diff <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
(x,) = d["diffs"]
print(x["a"], x["b"])
for e in x["differences"]:
    print("%s %s: %s | %s" % (e["section"], e["key"], e["a"], e["b"]))
PY
expect_file diff <<X
stock special
keys FLB_JEMALLOC_OPTIONS: absent | UNINITIALIZED=$special_opts
jemalloc configure: <source>/lib/jemalloc-5.3.0/configure --with-lg-quantum=3 '--prefix=<INSTALL_DIR>' 'CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops' | <source>/lib/jemalloc-5.3.0/configure --with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30 '--prefix=<INSTALL_DIR>' 'CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'
X
json $C '[L[v]["jemalloc"]["bogus_version"] for v in ("stock", "special")]' >k
echo "[True, True]" | expect_file k

# --- the bogus version, in the binary and in the probes
python3 - "$P" >versions <<'PY'
import json, sys
def walk(o, key, acc):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == key:
                acc.append(v)
            walk(v, key, acc)
    elif isinstance(o, list):
        for v in o:
            walk(v, key, acc)
    return acc
b = json.load(open(sys.argv[1] + "/binary-provenance.json"))
for v in b["variants"]:
    for a in v["artifacts"]:
        print(v["label"], a["artifact"], a.get("allocator_version"), a.get("bogus_version"))
p = json.load(open(sys.argv[1] + "/allocator-probes.json"))
print("probes", sorted(set(x for x in walk(p, "version", []) if isinstance(x, str))), sorted(set(walk(p, "bogus_version", []))))
PY
expect_file versions <<'X'
stock bin/fluent-bit 0.0.0-0-g000000missing_version_try_git_fetch_tags True
stock lib/libjemalloc_pic.a 0.0.0-0-g000000missing_version_try_git_fetch_tags True
special bin/fluent-bit 0.0.0-0-g000000missing_version_try_git_fetch_tags True
special lib/libjemalloc_pic.a 0.0.0-0-g000000missing_version_try_git_fetch_tags True
stock-relink-special bin/fluent-bit-relink-special 0.0.0-0-g000000missing_version_try_git_fetch_tags True
probes ['0.0.0-0-g000000missing_version_try_git_fetch_tags'] [True]
X
# the baked-in option is effective in special only
env MALLOC_CONF=stats_print:true "$OUT/variants/stock/build/bin/fluent-bit" -n 10 2>stats >/dev/null
expect_grep '  config.malloc_conf: ""' stats
expect_grep "  opt.lg_extent_max_active_fit: 6" stats
expect_grep "Quantum size: 8" stats
env MALLOC_CONF=stats_print:true "$OUT/variants/special/build/bin/fluent-bit" -n 10 2>stats >/dev/null
expect_grep '  config.malloc_conf: "lg_extent_max_active_fit:30"' stats
expect_grep "  opt.lg_extent_max_active_fit: 30" stats
expect_grep "Quantum size: 8" stats

# --- the diagnostic relink of stock with special's archive: marked as one
# in the table and in binary-provenance.json, next to its normal sibling,
# with special's archive as the allocator archive in it
sha_of() { sha256sum "$1" | cut -c1-64; }
stock_bin=$(sha_of $OUT/variants/stock/build/bin/fluent-bit)
stock_arch=$(sha_of $OUT/variants/stock/build/lib/libjemalloc_pic.a)
special_arch=$(sha_of $OUT/variants/special/build/lib/libjemalloc_pic.a)
[ "$stock_arch" != "$special_arch" ] || fail "the two archives are the same"
grep '^stock-relink-special ' build.out | awk '{ print $2, $3, $4, $5, $NF }' >row
echo "diagnostic relink jemalloc 0.0.0-0-g000000missing_version_try_git_fetch_tags ${special_arch:0:12}" | expect_file row
python3 - $P/binary-provenance.json "$PWD/$OUT" >rel <<'PY'
import json, sys
b = {v["label"]: v for v in json.load(open(sys.argv[1]))["variants"]}
r, out = b["stock-relink-special"], sys.argv[2] + "/"
m = r["diagnostic_relink"]
print(r["kind"], m["kind"], r["allocator"]["archive_sha256"])
s = m["normal_sibling"]
print(s["label"], s["binary"], s["sha256"], s["link_reproduced"])
for d in m["differing_inputs"]:
    print(d["before"]["arg"], d["before"]["sha256"], d["after"]["path"], d["after"]["sha256"])
print(m["verdict"])
assert out not in json.dumps(b), "a path of this machine is in the record"
print(b["stock"].get("diagnostic_relinks"), b["special"].get("diagnostic_relinks"))
PY
expect_file rel <<X
relink diagnostic relink $special_arch
stock OUTDIR/variants/stock/build/bin/fluent-bit $stock_bin True
../lib/libjemalloc_pic.a $stock_arch OUTDIR/variants/special/build/lib/libjemalloc_pic.a $special_arch
only these inputs differ: ../lib/libjemalloc_pic.a -> OUTDIR/variants/special/build/lib/libjemalloc_pic.a
['stock-relink-special'] None
X
# the relinked binary runs with special's baked-in option
env MALLOC_CONF=stats_print:true "$OUT/variants/stock/build/bin/fluent-bit-relink-special" -n 10 2>stats >/dev/null
expect_grep '  config.malloc_conf: "lg_extent_max_active_fit:30"' stats
expect_grep "  opt.lg_extent_max_active_fit: 30" stats

# --- upstream-diff.json: the vendored tree is 5.3.0 minus four files
json $P/upstream-diff.json '"\n".join("%s %s %s" % (l, L[l]["matches"], L[l]["summary"]) for l in ("stock", "special"))' >ud
expect_file ud <<'X'
stock True 466 files in candidate: 466 identical, 0 differ, 0 only in candidate; 4 only in upstream: .clang-format (metadata), VERSION, doc/jemalloc.3, doc/jemalloc.html (generated)
special True 466 files in candidate: 466 identical, 0 differ, 0 only in candidate; 4 only in upstream: .clang-format (metadata), VERSION, doc/jemalloc.3, doc/jemalloc.html (generated)
X

# --- verify passes, and SHA256SUMS covers cmake-cache-provenance.json
expect_exit 0 "$AB" verify "$OUT"
expect_grep "provenance/cmake-cache-provenance.json" "$OUT/SHA256SUMS"

# --- the shipped Fluent Bit policy's rules (recipes/fluent-bit-allocator-compare.policy.json),
# on this campaign's labels: the vendored tree matches 5.3.0, the special
# build's option baked in and nothing set at run time, every artifact
# reproduced; the bogus version fails the version rule, and the 64 KiB-page
# arm64 host fails the build made for this machine's pages
python3 - "$TOP/recipes/fluent-bit-allocator-compare.policy.json" >flb-policy.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {"fb-je530": "stock", "fb-je531-special": "special"}
rules = []
for r in d["rules"]:
    if "source" in r or "runtime" in r:
        continue
    v = [m[x] for x in r["variants"] if x in m] if r["variants"] != ["fb-*"] else ["*"]
    if not v:
        continue
    r["variants"] = v
    if "allocator" in r:
        r["allocator"]["version"] = "5.3.0"
    if "baked" in r and "exact" in r["baked"]:
        r["baked"]["exact"] = "lg_extent_max_active_fit:30"
    rules.append(r)
d["rules"] = rules
json.dump(d, sys.stdout, indent=1)
PY
expect_exit 1 "$AB" verify --policy flb-policy.json "$OUT"
expect_grep "FAIL: rules[2] allocator stock: expected 5.3.0, got 0.0.0-0-g000000missing_version_try_git_fetch_tags (not a version: the build could not tell) (provenance/allocator-probes.json: variants[0].probe.version)" out
expect_grep "pass: rules[0] upstream stock: 466 files in candidate: 466 identical" out
expect_grep "pass: rules[4] baked special: 'lg_extent_max_active_fit:30' (provenance/allocator-probes.json: variants[1].probe.config.malloc_conf)" out
expect_grep "pass: rules[7] reproducible stock-relink-special: 1/1 artifact identical (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
kib=$((page / 1024))
expect_grep "FAIL: rules[8] targets special on arm64-64k: expected pages of 64 KiB or larger, got LG_PAGE $(lg $page) ($kib KiB pages): jemalloc aborts there with \"<jemalloc>: Unsupported system page size\" (provenance/binary-provenance.json: variants[1].host_probes.LG_PAGE)" out
expect_grep "pass: rules[8] targets stock on x86-64: LG_PAGE $(lg $page) ($kib KiB pages) (provenance/binary-provenance.json: variants[0].host_probes.LG_PAGE)" out
tail -n 1 out | grep -qE '^FAIL: policy flb-policy.json: [0-9]+ of [0-9]+ rule checks failed on OUTDIR allocbuild-out/flb-like$' ||
	fail "the policy's line: $(tail -n 1 out)"

# --- the reviewer's page of a campaign shaped as the Fluent Bit recipe's: five variants (three
# builds, the relink, a runtime variant), runs of every label, then pr.md within GitHub's
# 65,536-character body, its verdict first, no path of this machine. The copied OUTDIR keeps
# the three built variants up to date: only the third build is built.
# the second commit: one file of the vendored tree edited by hand
git -C flb-like.git checkout -q -b patched
printf '\n/* a vendor'"'"'s local change (allocbuild t5510) */\nint flb_like_patched = 1;\n' \
	>>flb-like.git/lib/jemalloc-5.3.0/src/jemalloc.c
git -C flb-like.git commit -q -a -m "a local change to the vendored jemalloc"
commit2=$(git -C flb-like.git rev-parse HEAD)
python3 - r.json "$commit2" >r5.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["sources"]["flb-patched"] = {"git": {"url": "https://github.com/fluent/fluent-bit.git", "commit": sys.argv[2]}}
third = json.loads(json.dumps(r["variants"][1]))
third["label"] = "quantum"
third["source"] = "flb-patched"
third["build"]["defines"]["FLB_JEMALLOC_OPTIONS"] = "--with-lg-quantum=3"
r["variants"].insert(2, third)
r["variants"].append({"label": "stock-fit-runtime", "runtime_of": "stock",
                      "runtime": {"env": {"MALLOC_CONF": "lg_extent_max_active_fit:30"}}})
json.dump(r, sys.stdout, indent=1)
PY
mkdir five && cp -a "$OUT" five/flb-like && rm -rf five/flb-like/reproducibility
expect_exit 0 "$AB" build -o five/flb-like -j 2 --mirror "https://git.example.invalid/=$PWD/" \
	--mirror "https://github.com/fluent/fluent-bit.git=$PWD/flb-like.git" --mirror-dir "$MIRROR" r5.json
grep -E ': (cmake --build|relink) .*: up to date$' err | sed 's/^\[[0-9]*\/[0-9]*\] //' | sort >uptodate
expect_file uptodate <<'X'
special: cmake --build fluent-bit-bin: up to date
stock-relink-special: relink bin/fluent-bit-relink-special: up to date
stock: cmake --build fluent-bit-bin: up to date
X
[ -x five/flb-like/variants/quantum/build/bin/fluent-bit ] || fail "quantum was not built"
expect_exit 0 "$AB" run five/flb-like stock special quantum stock-relink-special stock-fit-runtime --repeat 3 --rotate \
	--name smoke -- {bin} -n 20
expect_exit 0 "$AB" pr -o pr five/flb-like
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' pr/pr.md)
[ "$chars" -lt 65536 ] || fail "pr.md has $chars characters"
expect_no_grep "pr-details.md" pr/pr.md
expect_grep "**5 variants built** (3 normal builds, 1 diagnostic relink, 1 runtime only)" pr/pr.md
expect_grep '**Benchmark** `smoke`: 15 runs of 5 labels against `stock`, paired by repetition (the comparison: Runs, below):' pr/pr.md
check "the verdict leads: the benchmark's answer before what was built" test \
	"$(grep -n '^\*\*Benchmark\*\*' pr/pr.md | cut -d: -f1)" -lt "$(grep -n '^\*\*5 variants built\*\*' pr/pr.md | cut -d: -f1)"
check "a line per label against stock" test "$(awk '/^\*\*Benchmark\*\* `smoke`/ { f = 1; next } f && /^\*\*/ { exit } f && /^- `/' pr/pr.md | wc -l)" = 4
# the relink of stock with special's archive is special's bytes, as on the real Fluent Bit campaign: an A/A
# pair by construction, said where the variants are counted and where the runs are
expect_grep '; `stock-relink-special` is the same bytes as `special` (an A/A pair by construction)' pr/pr.md
expect_grep '- `stock-relink-special` (the same bytes and runtime environment as `special`: an A/A control, below): ' pr/pr.md
expect_grep "### Runs" pr/pr.md
grep -n "$PWD" pr/pr.md && fail "pr.md names this test's directory"
echo "pr.md of the five-variant flb-like campaign: $chars characters" >&2

# --- the campaign's SBOM: CycloneDX 1.6, valid by the official schema; each vendored tree's
# pedigree from the build's upstream-diff
expect_exit 0 "$AB" sbom -o bom.json five/flb-like
check "the SBOM validates against CycloneDX 1.6's JSON schema" cdx_validate bom.json
check "pr's bundle carries the same SBOM" \
	cmp bom.json <(tar -xzOf pr/provenance-flb-like.tar.gz provenance-flb-like/sbom/bom.cdx.json)
python3 - bom.json "$commit" "$commit2" "$JEMALLOC_SHA" >bom.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c1, c2, sha = sys.argv[2:5]
comps = {c["bom-ref"]: c for c in d["components"]}
props = lambda c, n: [p["value"] for p in c.get("properties", []) if p["name"] == n]
print(d["bomFormat"], d["specVersion"], d["metadata"]["component"]["name"])
for ref, c in comps.items():
    print(ref.replace(c1, "C1").replace(c2, "C2"), c["type"], c["name"], c.get("version", "-").replace(c1, "C1").replace(c2, "C2"),
          c.get("purl", "-").replace(c1, "C1").replace(c2, "C2"), ",".join(props(c, "allocbuild:variant")) or "-",
          ",".join(props(c, "allocbuild:runtime-variant")) or "-")
for ref in ("vendored:stock:lib/jemalloc-5.3.0", "vendored:quantum:lib/jemalloc-5.3.0"):
    p = comps[ref]["pedigree"]
    (a,) = p["ancestors"]
    print(ref, "ancestor", a["name"], a["version"], a["purl"], a["hashes"] == [{"alg": "SHA-256", "content": sha}],
          "patches", len(p.get("patches", [])), [x["type"] for x in p.get("patches", [])])
    print(ref, "left out:", p["notes"].split("left out of the vendored copy, not patches: ")[1].split(";")[0])
for x in d["dependencies"]:
    print("dep", x["ref"].replace(c1, "C1").replace(c2, "C2"), sorted(x["dependsOn"]))
open("quantum.patch", "w").write(comps["vendored:quantum:lib/jemalloc-5.3.0"]["pedigree"]["patches"][0]["diff"]["text"]["content"])
PY
expect_file bom.txt <<'X'
CycloneDX 1.6 flb-like
source:flb application flb C1 pkg:generic/flb@C1?vcs_url=git%2Bhttps://git.example.invalid/flb-like.git%40C1 - -
vendored:stock:lib/jemalloc-5.3.0 library jemalloc 5.3.0 pkg:github/jemalloc/jemalloc@5.3.0 stock,special -
source:flb-patched application fluent-bit C2 pkg:github/fluent/fluent-bit@C2 - -
vendored:quantum:lib/jemalloc-5.3.0 library jemalloc 5.3.0 pkg:github/jemalloc/jemalloc@5.3.0 quantum -
artifact:variants/stock/build/bin/fluent-bit application fluent-bit - - stock stock-fit-runtime
artifact:variants/stock/build/lib/libjemalloc_pic.a library libjemalloc_pic.a - - stock stock-fit-runtime
artifact:variants/special/build/bin/fluent-bit application fluent-bit - - special -
artifact:variants/special/build/lib/libjemalloc_pic.a library libjemalloc_pic.a - - special -
artifact:variants/quantum/build/bin/fluent-bit application fluent-bit - - quantum -
artifact:variants/quantum/build/lib/libjemalloc_pic.a library libjemalloc_pic.a - - quantum -
artifact:variants/stock/build/bin/fluent-bit-relink-special application fluent-bit-relink-special - - stock-relink-special -
vendored:stock:lib/jemalloc-5.3.0 ancestor jemalloc 5.3.0 pkg:github/jemalloc/jemalloc@5.3.0 True patches 0 []
vendored:stock:lib/jemalloc-5.3.0 left out: .clang-format (metadata), VERSION (generated), doc/jemalloc.3 (generated), doc/jemalloc.html (generated)
vendored:quantum:lib/jemalloc-5.3.0 ancestor jemalloc 5.3.0 pkg:github/jemalloc/jemalloc@5.3.0 True patches 1 ['unofficial']
vendored:quantum:lib/jemalloc-5.3.0 left out: .clang-format (metadata), VERSION (generated), doc/jemalloc.3 (generated), doc/jemalloc.html (generated)
dep recipe:flb-like ['artifact:variants/quantum/build/bin/fluent-bit', 'artifact:variants/quantum/build/lib/libjemalloc_pic.a', 'artifact:variants/special/build/bin/fluent-bit', 'artifact:variants/special/build/lib/libjemalloc_pic.a', 'artifact:variants/stock/build/bin/fluent-bit', 'artifact:variants/stock/build/bin/fluent-bit-relink-special', 'artifact:variants/stock/build/lib/libjemalloc_pic.a']
dep source:flb ['vendored:stock:lib/jemalloc-5.3.0']
dep vendored:stock:lib/jemalloc-5.3.0 []
dep source:flb-patched ['vendored:quantum:lib/jemalloc-5.3.0']
dep vendored:quantum:lib/jemalloc-5.3.0 []
dep artifact:variants/stock/build/bin/fluent-bit ['artifact:variants/stock/build/lib/libjemalloc_pic.a', 'source:flb']
dep artifact:variants/stock/build/lib/libjemalloc_pic.a ['vendored:stock:lib/jemalloc-5.3.0']
dep artifact:variants/special/build/bin/fluent-bit ['artifact:variants/special/build/lib/libjemalloc_pic.a', 'source:flb']
dep artifact:variants/special/build/lib/libjemalloc_pic.a ['vendored:stock:lib/jemalloc-5.3.0']
dep artifact:variants/quantum/build/bin/fluent-bit ['artifact:variants/quantum/build/lib/libjemalloc_pic.a', 'source:flb-patched']
dep artifact:variants/quantum/build/lib/libjemalloc_pic.a ['vendored:quantum:lib/jemalloc-5.3.0']
dep artifact:variants/stock/build/bin/fluent-bit-relink-special ['artifact:variants/special/build/lib/libjemalloc_pic.a', 'source:flb']
X
# the patch, applied to the release tarball's tree, gives the vendored file byte for byte
mkdir upstream && tar -xjf "$JEMALLOC_TARBALL" -C upstream --strip-components=1
check "the SBOM's patch applies to jemalloc 5.3.0 with patch -p1" patch -s -p1 -d upstream -i "$PWD/quantum.patch"
check "the patched file is quantum's vendored file" \
	cmp upstream/src/jemalloc.c five/flb-like/variants/quantum/src/lib/jemalloc-5.3.0/src/jemalloc.c

# --- in-toto links of the cmake builds and the relink, checked by Debian's
# in-toto-verify against the layout docs/intoto-layout.py writes (docs/intoto.md):
# the relink's materials are special's archive, a product of build-special
. "$TOP/tests/sign-lib.sh"
make_keys
chmod 600 ed.pem
expect_exit 0 "$AB" sign --signing-key ed.pem "$OUT"
expect_exit 0 "$AB" sign --intoto-pubkey ed.pub.pem
mv out ed.pub.json
ls "$OUT/in-toto" | sed 's/\.[0-9a-f]\{8\}\.link$//' | LC_ALL=C sort >links.txt
printf '%s\n' build-special build-stock fetch-flb probe-special probe-stock probe-stock-relink-special \
	relink-stock-relink-special | expect_file links.txt
json "$OUT"/in-toto/relink-stock-relink-special.*.link \
	'"\n".join(sorted(d["signed"]["materials"]) + sorted(d["signed"]["products"]))' >relink.txt
expect_file relink.txt <<'X'
variants/special/build/lib/libjemalloc_pic.a
variants/stock/build/bin/fluent-bit-relink-special
X
in-toto-keygen -t ed25519 owner >/dev/null
"$SSLIB_PY" "$TOP/docs/intoto-layout.py" --recipe "$OUT/recipe.json" --functionary ed.pub.json --owner-key owner \
	-o root.layout
mkdir bin
ln -s "$AB" bin/allocbuild
top=$PWD
(cd "$OUT" && PATH="$top/bin:$PATH" in-toto-verify --layout "$top/root.layout" --layout-keys "$top/owner.pub" \
	--key-types ed25519 --link-dir in-toto) >out 2>err || { cat err >&2; fail "in-toto-verify failed"; }
