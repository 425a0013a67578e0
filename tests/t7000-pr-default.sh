# allocbuild pr on the default recipe's real build output: the markdown body
# (rendered with cmark-gfm), the deterministic evidence bundle, verify of the
# bundle, tampering, the size limit and git notes.
. "$TOP/tests/lib.sh"

default_build bo

# --- pr.md and the bundle
expect_exit 0 "$AB" pr -o pr1 bo
[ -s pr1/pr.md ] || fail "no pr.md"
[ -s pr1/provenance-jemalloc-5.3.0-policy.tar.gz ] || fail "no bundle"
expect_grep "wrote pr1/pr.md (" out
expect_grep "wrote pr1/provenance-jemalloc-5.3.0-policy.tar.gz (" out
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' pr1/pr.md)
[ "$chars" -lt 65536 ] || fail "pr.md has $chars characters"

# the verdict first: what was built, the probes, what was checked, who signed
sed -n 5,9p pr1/pr.md >verdict.txt
expect_file verdict.txt <<'X'
**7 variants built** (4 normal builds, 3 runtime only); every file matches SHA256SUMS (25 files, verified by `pr`).

- **Probes**: ✅ 4 requested settings in effect in 7 probed variants
- **Reproducibility**: ⚠ not checked (no `build --check` or `rebuild` record, no independent rebuilder's (`pr --rebuilt`))
- **Signed**: ⚠ not signed (`allocbuild sign`, or `pr --sign`)
X
# rendered as GitHub would (GFM tables): the compact variants table, then the full one in the details, cell by cell
cmark-gfm --extension table --extension autolink pr1/pr.md >pr.html
python3 - pr.html >rows.txt <<'PY'
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.tables=[]; s.cell=None; s.row=None
    def handle_starttag(s, t, a):
        if t=="table": s.tables.append([])
        elif t=="tr": s.row=[]
        elif t in("td","th"): s.cell=""
    def handle_endtag(s, t):
        if t in("td","th"): s.row.append(s.cell.strip()); s.cell=None
        elif t=="tr": s.tables[-1].append(s.row)
    def handle_data(s, d):
        if s.cell is not None: s.cell+=d
p=P(); p.feed(open(sys.argv[1]).read())
for t in p.tables:
    if t and t[0][0]=="label" and "kind" in t[0]:
        for r in t: print(" | ".join(r[:7]))
PY
expect_file rows.txt <<'X'
label | kind | allocator | built in | runtime environment | artifact
stock53 | normal build | jemalloc 5.3.0 | – | – | 0ac95f7765d9
special53 | normal build | jemalloc 5.3.0 | lg_extent_max_active_fit:30 | – | 5557da6200a5
fit-only | runtime only of stock53 | jemalloc 5.3.0 | – | MALLOC_CONF=lg_extent_max_active_fit:30 | 0ac95f7765d9
frag-stock53 | normal build | jemalloc 5.3.0 | – | – | e3328371176d
frag-special53 | normal build | jemalloc 5.3.0 | lg_extent_max_active_fit:30 | – | c7e5b994dccf
frag-fit-only | runtime only of frag-stock53 | jemalloc 5.3.0 | – | MALLOC_CONF=lg_extent_max_active_fit:30 | e3328371176d
frag-aa | runtime only of frag-stock53 | jemalloc 5.3.0 | – | – | e3328371176d
label | kind | allocator | version | configure options / defines | built in (jemalloc config.malloc_conf, mimalloc secure level) | runtime environment
stock53 | normal build | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | --with-lg-quantum=3 --with-lg-page=12 --with-lg-hugepage=21 --with-lg-vaddr=48 | "" | –
special53 | normal build | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | --with-lg-quantum=3 --with-lg-page=12 --with-lg-hugepage=21 --with-lg-vaddr=48 --with-malloc-conf=lg_extent_max_active_fit:30 | lg_extent_max_active_fit:30 | –
fit-only | runtime only of stock53 | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | --with-lg-quantum=3 --with-lg-page=12 --with-lg-hugepage=21 --with-lg-vaddr=48 | "" | MALLOC_CONF=lg_extent_max_active_fit:30
frag-stock53 | normal build | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | -DFRAG_ARCHIVE={variant:stock53:lib/libjemalloc_pic.a} | "" | –
frag-special53 | normal build | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | -DFRAG_ARCHIVE={variant:special53:lib/libjemalloc_pic.a} | lg_extent_max_active_fit:30 | –
frag-fit-only | runtime only of frag-stock53 | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | -DFRAG_ARCHIVE={variant:stock53:lib/libjemalloc_pic.a} | "" | MALLOC_CONF=lg_extent_max_active_fit:30
frag-aa | runtime only of frag-stock53 | jemalloc | 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c | -DFRAG_ARCHIVE={variant:stock53:lib/libjemalloc_pic.a} | "" | –
X
# the artifact column holds the first 12 digits of the archive's sha256
sha=$(sha256sum bo/variants/special53/build/lib/libjemalloc_pic.a | cut -c1-12)
grep -q "<td><code>special53</code></td>.*<td><code>$sha</code></td>" pr.html ||
	grep -A9 '<td><code>special53</code></td>' pr.html | grep -q "<code>$sha</code>" || fail "special53's digest $sha not in the table"
# the full digest in the folded details
expect_grep "$(sha256sum bo/variants/special53/build/lib/libjemalloc_pic.a | cut -d" " -f1)  variants/special53/build/lib/libjemalloc_pic.a (special53)" pr1/pr.md
expect_grep "<details><summary>Artifact digests (sha256)</summary>" pr1/pr.md
# the probe verdict of the runtime-only variant: requested 30, effective 30
expect_grep '| `fit-only` | ✅ in effect | `lg_extent_max_active_fit` | `30` | `30` |' pr1/pr.md
# the recipe's pin and the flowchart
expect_grep "sha256 \`2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa\`" pr1/pr.md
expect_grep '```mermaid' pr1/pr.md
expect_grep 'src_jemalloc_5_3_0 --> var_stock53' pr1/pr.md
expect_grep 'var_stock53 -. runtime env .-> var_fit_only' pr1/pr.md
# the benchmark program: from its directory, using each archive, and its runtime variants
expect_grep 'src_frag --> var_frag_stock53' pr1/pr.md
expect_grep 'var_stock53 -. uses .-> var_frag_stock53' pr1/pr.md
expect_grep 'var_special53 -. uses .-> var_frag_special53' pr1/pr.md
expect_grep 'var_frag_stock53 -. runtime env .-> var_frag_aa' pr1/pr.md

# --- the bundle is deterministic: a second run gives identical bytes
expect_exit 0 "$AB" pr -o pr2 bo
cmp pr1/provenance-jemalloc-5.3.0-policy.tar.gz pr2/provenance-jemalloc-5.3.0-policy.tar.gz ||
	fail "two runs gave different bundles"
cmp pr1/pr.md pr2/pr.md || fail "two runs gave different bodies"
tar -tzf pr1/provenance-jemalloc-5.3.0-policy.tar.gz >members.txt
for m in recipe.json SHA256SUMS BUNDLE-SHA256SUMS provenance/binary-provenance.json \
	provenance/provenance.intoto.json provenance/allocator-probes.json provenance/sources.json \
	provenance/build-commands.json; do
	expect_grep "provenance-jemalloc-5.3.0-policy/$m" members.txt
done
grep -q '^provenance-jemalloc-5.3.0-policy/variants/stock53/logs/.' members.txt || fail "no logs in the bundle"
tar -tvzf pr1/provenance-jemalloc-5.3.0-policy.tar.gz | awk '{print $2}' | sort -u >owners.txt
expect_file owners.txt <<'X'
0/0
X

# --- verify a bundle without unpacking it
expect_exit 0 "$AB" verify pr1/provenance-jemalloc-5.3.0-policy.tar.gz
# one tampered byte inside a member: verify fails and names the member
gzip -dc pr1/provenance-jemalloc-5.3.0-policy.tar.gz >b.tar
python3 - b.tar <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b'"lg_extent_max_active_fit:30"')
d[i + 1] ^= 0x01
open(sys.argv[1], "wb").write(bytes(d))
PY
gzip -n9c b.tar >tampered.tar.gz
expect_exit 1 "$AB" verify tampered.tar.gz
grep -E '^(recipe.json|provenance/[a-z-]+\.json): sha256 mismatch: expected [0-9a-f]{64}, actual [0-9a-f]{64}$' out >/dev/null ||
	{ cat out; fail "verify did not name the tampered member"; }
# a flipped byte in the compressed stream is caught too
cp pr1/provenance-jemalloc-5.3.0-policy.tar.gz raw.tar.gz
python3 -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); d[len(d)//2]^=0x40; open(p,"wb").write(bytes(d))' raw.tar.gz
rc=0
"$AB" verify raw.tar.gz >out 2>err || rc=$?
[ "$rc" = 1 ] || [ "$rc" = 2 ] || fail "verify of a corrupt bundle exited $rc"
[ -s out ] || [ -s err ] || fail "verify of a corrupt bundle said nothing"

# --- past the size limit, the details move into the bundle (the summary
# alone, with the reproducibility section and the host probes, is about 6000)
expect_exit 0 "$AB" pr --limit 7000 -o small bo
expect_grep "details moved to the bundle" out
chars=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' small/pr.md)
[ "$chars" -lt 7000 ] || fail "pr.md has $chars characters, over --limit 7000"
expect_grep "pr-details.md" small/pr.md
expect_no_grep "<details><summary>Artifact digests" small/pr.md
# the body keeps its own folded parts: the sources and how to check them
expect_grep "<details><summary>Sources, pins and how to check the evidence</summary>" small/pr.md
tar -xzOf small/provenance-jemalloc-5.3.0-policy.tar.gz provenance-jemalloc-5.3.0-policy/pr-details.md >details.md
expect_grep "<details><summary>Artifact digests (sha256)</summary>" details.md
expect_exit 0 "$AB" verify small/provenance-jemalloc-5.3.0-policy.tar.gz

# --- git notes: the in-toto statement on a commit, replaced on a rerun
git init -q repo
git -C repo commit -q --allow-empty -m "benchmark results"
expect_exit 0 "$AB" pr -o pr3 --notes repo bo
expect_grep "attached the in-toto statement to $(git -C repo rev-parse HEAD) as a note under refs/notes/provenance" out
git -C repo notes --ref=provenance show HEAD >note.json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)' \
	note.json bo/provenance/provenance.intoto.json || fail "the note is not the statement"
expect_exit 0 "$AB" pr -o pr3 --notes "repo@HEAD" bo
[ "$(git -C repo notes --ref=provenance list | wc -l)" = 1 ] || fail "a rerun added a second note"

# --- bad input: nothing written
mkdir empty
expect_exit 2 "$AB" pr -o nothing empty
expect_file err <<'X'
allocbuild: pr: 'empty' has no recipe.json: not an allocbuild output directory
X
[ ! -e nothing ] || fail "pr wrote into 'nothing' after an error"
expect_exit 2 "$AB" pr -o pr4 --notes norepo bo
expect_grep "allocbuild: --notes: cannot open repository 'norepo'" err
[ ! -e pr4 ] || fail "pr wrote pr4 although --notes was bad"
