# Helpers for the tests of pr.md's charts (t7210, t7240, t7280), sourced
# after tests/lib.sh: mermaid 10.9.8 from the npm registry (fetched once
# into tests/.cache/npm, its script's digest pinned), headless chromium,
# and a check of what a reader sees in the rendered charts.
#
#   need_mermaid                 sets MERMAID_JS
#   chrome ARGS...               chromium, headless, on this scratch directory
#   charts_check MD OUT [SVG...] renders MD's mermaid blocks and the SVG
#                                files in chromium, and writes into OUT one
#                                line per problem a reader would see, then
#                                "drawn N of M" (the Mermaid charts that
#                                drew a plot; alone when nothing is wrong):
#     - a text clipped by its picture, or two texts that overlap (the
#       boxes of turned texts as drawn, not their upright bounds);
#     - an axis' ticks that are not round and in engineering notation:
#       evenly spaced by 1, 2, 2.5 or 5 times a power of ten, each under
#       1000 in size (the power a multiple of 3, named on the axis) (the
#       SVG files' ticks are their class "tick" texts; in a file of an
#       earlier allocbuild, its right-aligned and its centred labels);
#     - a line of an SVG file that drops to its axis' 0 at its end.

MERMAID_SHA=8d607d7ef1d077a8aa202e18e62212bfa992c68bfeabc5cf45d51a128fe6675d

need_mermaid() {
	local dir=$TOP/tests/.cache/npm/mermaid-10.9.8
	npm_pinned mermaid@10.9.8 "$dir" "$MERMAID_SHA  dist/mermaid.min.js"
	MERMAID_JS=$dir/mermaid.min.js
}

chrome() {
	command -v chromium >/dev/null || fail "no chromium (scripts/install-deps.sh)"
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --allow-file-access-from-files \
		--user-data-dir="$PWD/chrome" --virtual-time-budget=15000 "$@" 2>/dev/null
}

charts_check() {
	local md=$1 out=$2
	shift 2
	need_mermaid
	python3 - "$md" "$MERMAID_JS" charts-check.html "$@" <<'PY'
import html, re, sys
blocks = re.findall(r"^```mermaid\n(.*?)^```$", open(sys.argv[1]).read(), re.S | re.M)
with open(sys.argv[3], "w") as f:
    f.write('<!doctype html><html><head><meta charset="utf-8"></head><body style="background: white">\n')
    # each chart at the width GitHub gives a comment's body
    for b in blocks:
        f.write('<div style="width: 880px"><pre class="mermaid">\n%s</pre></div>\n' % html.escape(b))
    for s in sys.argv[4:]:
        f.write('<div class="file" data-name="%s">%s</div>\n' % (html.escape(s), open(s).read()))
    f.write('<script src="file://%s"></script>\n<script>\n' % sys.argv[2])
    f.write(r"""
// a text's box as drawn: its four corners on the screen
function corners(t) {
  const b = t.getBBox(), m = t.getScreenCTM();
  return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
    .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
}
// do two convex polygons overlap by more than a pixel (separating axes)?
function overlap(p, q) {
  for (const poly of [p, q])
    for (let i = 0; i < poly.length; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % poly.length];
      let nx = y1 - y2, ny = x2 - x1;
      const len = Math.hypot(nx, ny);
      if (!len) continue;
      nx /= len; ny /= len;
      const pr = poly => poly.map(([x, y]) => x * nx + y * ny);
      const a = pr(p), b = pr(q);
      if (Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)) <= 1) return false;
    }
  return true;
}
// round ticks in engineering notation: numbers under 1000, evenly spaced by 1, 2, 2.5 or 5 times a power of ten
function ticks(labels, what) {
  const v = labels.map(Number);
  if (v.length < 2) return [what + ': ' + v.length + ' ticks'];
  const out = [];
  if (v.some(isNaN)) return [what + ': ticks that are not plain numbers: ' + labels.join(' ')];
  if (v.some(x => Math.abs(x) >= 1000)) out.push(what + ': ticks of 1000 or more (no engineering notation): ' + labels.join(' '));
  v.sort((a, b) => a - b);
  const step = v[1] - v[0], mag = Math.pow(10, Math.floor(Math.log10(step) + 1e-9)), m = step / mag;
  if (![1, 2, 2.5, 5].some(r => Math.abs(m - r) < 1e-6)) out.push(what + ': ticks not round: ' + labels.join(' '));
  for (let i = 1; i < v.length; i++)
    if (Math.abs(v[i] - v[i - 1] - step) > step * 1e-6) { out.push(what + ': ticks unevenly spaced: ' + labels.join(' ')); break; }
  for (const x of v)
    if (Math.abs(x / step - Math.round(x / step)) > 1e-6) { out.push(what + ': a tick off its step: ' + labels.join(' ')); break; }
  return out;
}
function texts(svg, name) {
  const out = [], box = svg.getBoundingClientRect();
  const t = [...svg.querySelectorAll('text')].filter(x => x.textContent.trim() !== '');
  const c = t.map(corners);
  for (let i = 0; i < t.length; i++) {
    if (c[i].some(([x, y]) => x < box.left - 0.5 || x > box.right + 0.5 || y < box.top - 0.5 || y > box.bottom + 0.5))
      out.push(name + ': clipped: "' + t[i].textContent + '"');
    for (let j = i + 1; j < t.length; j++)
      if (overlap(c[i], c[j]))
        out.push(name + ': "' + t[i].textContent + '" overlaps "' + t[j].textContent + '"');
  }
  return out;
}
mermaid.initialize({startOnLoad: false});
mermaid.run().then(() => {
  let all = [], drawn = 0;
  const charts = [...document.querySelectorAll('pre.mermaid svg')];
  charts.forEach((s, k) => {
    const name = 'mermaid ' + (k + 1) + ' (' + (s.querySelector('.chart-title text') || {textContent: '?'}).textContent + ')';
    drawn += !!s.querySelector('.line-plot-0 path, .bar-plot-0 rect');
    all = all.concat(texts(s, name));
    for (const axis of ['left-axis', 'bottom-axis']) {
      const l = [...s.querySelectorAll('.' + axis + ' .label text')].map(x => x.textContent);
      if (l.length && l.every(x => !isNaN(Number(x)))) all = all.concat(ticks(l, name + ' ' + axis));
    }
  });
  document.querySelectorAll('div.file').forEach(d => {
    const s = d.querySelector('svg'), name = d.dataset.name, all_t = [...s.querySelectorAll('text')];
    all = all.concat(texts(s, name));
    // the ticks: the texts of class "tick", else (a file of an earlier allocbuild) the y axis' right-aligned
    // labels, and the x axis' centred labels on the line where most are
    const ty = s.querySelectorAll('text.tick').length ? [...s.querySelectorAll('text.tick.y')] :
      all_t.filter(x => x.getAttribute('text-anchor') === 'end');
    let tx = [...s.querySelectorAll('text.tick.x')];
    if (!s.querySelectorAll('text.tick').length) {
      const mid = all_t.filter(x => x.getAttribute('text-anchor') === 'middle' && !x.getAttribute('font-size'));
      const count = {};
      mid.forEach(x => { count[x.getAttribute('y')] = (count[x.getAttribute('y')] || 0) + 1; });
      const line = Object.keys(count).sort((a, b) => count[b] - count[a])[0];
      tx = mid.filter(x => x.getAttribute('y') === line);
    }
    all = all.concat(ticks(ty.map(x => x.textContent), name + ' y axis'));
    if (s.querySelector('polyline')) all = all.concat(ticks(tx.map(x => x.textContent), name + ' x axis'));
    // the plot's bottom is its axis line ("M X0 Y0 V BOTTOM H ..."); a line ends where its run did, not at 0 below it
    const axis = [...s.querySelectorAll('path')].map(p => /^M[\d.]+ [\d.]+V([\d.]+)H/.exec(p.getAttribute('d'))).find(m => m);
    const base = axis ? Number(axis[1]) : NaN;
    s.querySelectorAll('polyline').forEach((p, k) => {
      const pts = p.getAttribute('points').trim().split(/\s+/).map(x => Number(x.split(',')[1]));
      if (pts.length > 1 && Math.abs(pts[pts.length - 1] - base) < 0.5 && pts.some(y => Math.abs(y - base) >= 0.5))
        all.push(name + ': line ' + (k + 1) + ' drops to 0 at its end');
    });
  });
  all.push('drawn ' + drawn + ' of ' + charts.length);
  document.title = all.join(' | ');
}, e => { document.title = 'error: ' + e; });
</script></body></html>
""")
PY
	chrome --dump-dom "file://$PWD/charts-check.html" | sed -n 's|.*<title>\(.*\)</title>.*|\1|p' |
		python3 -c 'import html, sys; [print(x) for x in html.unescape(sys.stdin.read().strip()).split(" | ")]' >"$out"
}
