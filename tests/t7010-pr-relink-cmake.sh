# allocbuild pr on cmake variants and a diagnostic relink: the kind column,
# the cache-key difference and the relink verdict, as GitHub would render them.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakecmake_relink_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" pr bo
[ -s bo/pr.md ] && [ -s bo/provenance-cm.tar.gz ] || fail "pr wrote nothing into OUTDIR"

cmark-gfm --extension table bo/pr.md >pr.html
python3 - pr.html >rows.txt <<'PY'
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.rows=[]; s.cell=None; s.row=None
    def handle_starttag(s, t, a):
        if t=="tr": s.row=[]
        elif t in("td","th"): s.cell=""
    def handle_endtag(s, t):
        if t in("td","th"): s.row.append(s.cell.strip()); s.cell=None
        elif t=="tr": s.rows.append(s.row)
    def handle_data(s, d):
        if s.cell is not None: s.cell+=d
p=P(); p.feed(open(sys.argv[1]).read())
for r in p.rows:
    if r and r[0] in ("a", "b", "a-with-b") and len(r) == 8: print(" | ".join(r[:5]))
PY
expect_file rows.txt <<'X'
a | normal build | – | 2.0.0-0-g0123456789abcdef | -DFLB_FAKE_TAG=A
b | normal build | – | 2.0.0-0-g0123456789abcdef | -DFLB_FAKE_TAG=B
a-with-b | diagnostic relink | – | 2.0.0-0-g0123456789abcdef | relink of a, libfakealloc.a → b
X
expect_grep '<li><code>b</code> against <code>a</code>: <code>FLB_FAKE_TAG</code>: <code>STRING=A</code> → <code>STRING=B</code>; objects: 1 identical, 2 differ (<code>.</code>: 1, <code>CMakeFiles/fakealloc.dir</code>: 1)</li>' pr.html
expect_grep "<li><code>a-with-b</code>: <strong>diagnostic relink</strong> of <code>a</code> (not a normal build): only these inputs differ: libfakealloc.a -&gt; OUTDIR/variants/b/build/libfakealloc.a; the unchanged link command, run again, reproduces the normal binary byte for byte</li>" pr.html
expect_grep 'var_a -- relink --> var_a_with_b' bo/pr.md
expect_grep 'var_b -. archive .-> var_a_with_b' bo/pr.md
tar -tzf bo/provenance-cm.tar.gz | grep -qx 'provenance-cm/provenance/relink-provenance.json' || fail "no relink provenance in the bundle"
tar -tzf bo/provenance-cm.tar.gz | grep -qx 'provenance-cm/provenance/cmake-cache-provenance.json' || fail "no cmake provenance in the bundle"
expect_grep '| `a` → `b` | keys | `FLB_FAKE_TAG` | `STRING=A` | `STRING=B` |' bo/pr.md
expect_exit 0 "$AB" verify bo/provenance-cm.tar.gz
