#!/usr/bin/env bash
# What a benchmark prints is untrusted text on the reviewer's page. A
# driver's units (<script>, a Markdown link, a Mermaid directive, a quote)
# and cells (<img onerror>, backticks) land in pr.md's tables, warnings
# and Mermaid charts, pr-details.md and the SVG charts of the bundle: each
# context escapes them (provenance/compare/pagetext.h), so that GitHub's
# Markdown (cmark-gfm here, raw HTML let through as GitHub's sanitizer
# would), mermaid 10.9.8 in headless chromium and an XML parser find text
# where the driver put markup. A record whose metric name could not be a
# file name (it names an SVG file of the bundle) is refused.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
cat >drive <<'SH'
#!/bin/sh
if [ "$ALLOCBUILD_LABEL" = a ]; then
	echo 'ALLOCBUILD_METRIC lat=1 <script>alert(1)</script>'
else
	echo 'ALLOCBUILD_METRIC lat=2 <b>bold</b>'
fi
echo 'ALLOCBUILD_METRIC ops=2 [x](https://evil.invalid/)'
echo "ALLOCBUILD_METRIC dir=3 %%{init:{'theme':'dark'}}%%"
echo 'ALLOCBUILD_METRIC q=4 a"];x cell=<img/src=x/onerror=alert(1)>'
echo 'ALLOCBUILD_METRIC tick=5 www.evil.invalid cell=a``|b'
SH
chmod +x drive
expect_exit 0 "$AB" run bo a a2 --repeat 2 --rotate --name t --sample-ms 0 -- ./drive
expect_exit 0 "$AB" pr -o pr bo

# --- Markdown: rendered as GitHub does (raw HTML kept, to see any), no element or link of the driver's
cat pr/pr.md >page.md
[ ! -e bo/pr-details.md ] || cat bo/pr-details.md >>page.md
cmark-gfm --unsafe --extension table --extension autolink --extension strikethrough page.md >page.html
for bad in '<script' '<img' '<b>' 'href="https://evil' 'href="http://www.evil'; do
	check "no '$bad' in the rendered page" not grep -qiF "$bad" page.html
done
check "the unit shown as text" grep -qF '(&lt;script&gt;alert(1)&lt;/script&gt;)' page.html
check "the link's unit shown as text" grep -qF '([x](https://evil.invalid/))' page.html
check "a bare host shown as text" grep -qF '(www.evil.invalid)' page.html
check "the warning quotes the unit as text" grep -qF "reports it in '&lt;b&gt;bold&lt;/b&gt;', not '&lt;script&gt;alert(1)&lt;/script&gt;'" page.html
check "a cell with backticks is one code span" grep -qF '<code>a``|b</code>' page.html
check "pr.md's unit cell, escaped" grep -qF '| `lat` (&lt;script&gt;alert(1)&lt;/script&gt;) |  | `a` |' pr/pr.md

# --- Mermaid: each string stays one string; no directive, no HTML; every chart draws
blocks=$(grep -c '^xychart-beta$' pr/pr.md)
check "a chart for each metric" test "$blocks" -ge 5
sed -n '/^```mermaid$/,/^```$/p' pr/pr.md >mermaid.txt
check "no directive but allocbuild's own" test "$(grep -c '%%' mermaid.txt)" = "$(grep -c '^%%{init: {"xyChart": {' mermaid.txt)"
check "the directive as entity codes" grep -qF '    y-axis "#37;#37;#123;init:#123;'"'"'theme'"'"':'"'"'dark'"'"'#125;#125;#37;#37;"' pr/pr.md
check "the quote as an entity code" grep -qF '    y-axis "a#34;#93;#59;x"' pr/pr.md
. "$TOP/tests/charts-lib.sh"
need_mermaid
cat >charts.py <<'PY'
# charts.py MD JS HTML: MD's mermaid blocks on a page; its title says how many drew a plot
import html, re, sys
blocks = re.findall(r"^```mermaid\n(.*?)^```$", open(sys.argv[1]).read(), re.S | re.M)
with open(sys.argv[3], "w") as f:
    f.write('<!doctype html><html><head><meta charset="utf-8"></head><body>\n')
    for b in blocks:
        f.write('<pre class="mermaid">\n%s</pre>\n' % html.escape(b))
    f.write('<script src="file://%s"></script>\n<script>\n' % sys.argv[2])
    f.write("mermaid.initialize({startOnLoad: false});\n"
            "mermaid.run().then(() => { const svgs = [...document.querySelectorAll('pre.mermaid svg')];\n"
            "  const plots = svgs.filter(s => s.querySelector('.line-plot-0 path, .bar-plot-0 rect'));\n"
            "  document.title = 'rendered ' + svgs.length + ' of %d, ' + plots.length + ' with plots'; },\n"
            "  e => { document.title = 'error: ' + e; });\n</script></body></html>\n" % len(blocks))
PY
python3 charts.py pr/pr.md "$MERMAID_JS" charts.html
chrome --dump-dom "file://$PWD/charts.html" >dom.html || true
all=$(grep -c '^```mermaid$' pr/pr.md)
check "every chart drew, each xychart its plot (the flow chart has none)" \
	grep -qF "<title>rendered $all of $all, $blocks with plots</title>" dom.html
# the drawn text is the driver's text, characters and all, and no element of it
python3 - dom.html <<'PY'
import html, re, sys
dom = open(sys.argv[1]).read()
svgs = "".join(re.findall(r"<svg.*?</svg>", dom, re.S))
texts = [html.unescape(t) for t in re.findall(r">([^<>]+)<", svgs)]
for want in ("lat, <script>alert(1)</script>", "%%{init:{'theme':'dark'}}%%", 'a"];x', "q in <img/src=x/onerror=alert(1)>, a\"];x"):
    if want not in texts:
        sys.exit("not drawn as text: %r (texts: %r)" % (want, texts))
for bad in ("<script", "<img", "<b>"):
    if bad in svgs:
        sys.exit("an element in a chart: %r" % bad)
PY

# --- the SVG files of the bundle: well-formed XML, the units as text
tar -xzf pr/provenance-fk.tar.gz
python3 - provenance-fk/pr-charts/t/metric <<'PY'
import os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
texts = []
for n in sorted(os.listdir(d)):
    root = ET.parse(os.path.join(d, n)).getroot()
    texts += ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]
    if root.iter("{http://www.w3.org/2000/svg}script") and list(root.iter("{http://www.w3.org/2000/svg}script")):
        sys.exit("a script element in " + n)
for want in ("lat, <script>alert(1)</script>", "<script>alert(1)</script>", "q in <img/src=x/onerror=alert(1)>, a\"];x"):
    if want not in texts:
        sys.exit("not in the SVG text: %r" % want)
PY

# --- a record naming a metric that is no metric name (it would name a file outside pr-charts/) is refused
python3 - bo <<'PY'
import hashlib, sys
o, rel = sys.argv[1], "runs/t/0001-a.intoto.json"
b = open(o + "/" + rel, "rb").read()
assert b'"name":\t"ops"' in b
b = b.replace(b'"name":\t"ops"', b'"name":\t"../../../../escape"', 1)
open(o + "/" + rel, "wb").write(b)
sums = [hashlib.sha256(b).hexdigest() + "  " + rel if l.endswith("  " + rel) else l
        for l in open(o + "/SHA256SUMS").read().splitlines()]
open(o + "/SHA256SUMS", "w").write("\n".join(sums) + "\n")
PY
expect_exit 2 "$AB" compare bo
echo "allocbuild: 'bo/runs/t/0001-a.intoto.json': predicate.metrics: the figure '../../../../escape' has a name, unit or cell that run does not record (a name is 1 to 64 of [A-Za-z0-9_.-], a unit 1 to 32 printable characters without a space or '=', a cell 1 to 64 without a space)" |
	expect_file err
expect_exit 2 "$AB" pr -o pr2 bo
check "nothing written outside" test ! -e escape.svg -a ! -e ../escape.svg -a ! -e bo/escape.svg
