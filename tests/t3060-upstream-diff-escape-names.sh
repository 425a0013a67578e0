#!/usr/bin/env bash
# issue 18, item 11: a member named "src/a\n\e[31mRED.c" cannot forge the
# list of upstream-diff nor drive the terminal: every name printed (and
# written to pr.md) has its control characters escaped; --json keeps the
# exact bytes.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

python3 - <<'PY'
import io, tarfile
def tar(path, names):
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as t:
        for n in names:
            i = tarfile.TarInfo(n); data = b"int x;\n"; i.size = len(data)
            t.addfile(i, io.BytesIO(data))
tar("up.tar.gz", ["pkg/src/b.c"])
tar("cand.tar.gz", ["pkg/src/b.c", "pkg/src/a\n\x1b[31mRED.c", "pkg/src/c\u009b2J.c"])
PY
expect_exit 1 "$AB" upstream-diff cand.tar.gz up.tar.gz
esc=$(printf '\033')
csi=$(printf '\302\233')
! grep -q -e "$esc" -e "$csi" out err || fail "a control character reached the terminal"
expect_grep 'only in candidate  source     src/a\n\x1b[31mRED.c' out
expect_grep 'only in candidate  source     src/c\xc2\x9b2J.c' out
expect_grep 'verdict: differs from upstream: 2 significant differences: src/a\n\x1b[31mRED.c (source), src/c\xc2\x9b2J.c (source)' out
# one line per file: the newline in the name forged no line
[ "$(grep -c '^only in candidate' out)" = 2 ] || fail "the list was forged"
! grep -q '^RED' out || fail "a name's newline started a line"
# --json keeps the exact bytes
expect_exit 1 "$AB" upstream-diff --json cand.tar.gz up.tar.gz
python3 - out <<'PY' || fail "--json lost the exact name"
import json, sys
d = json.load(open(sys.argv[1]))
paths = [f["path"] for f in d["files"]]
assert "src/a\n\x1b[31mRED.c" in paths, paths
PY

# pr.md: what the build recorded is written with its control characters escaped
make_fakeproj_recipe r.json
python3 - r.json <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["description"] = "line one\n\x1b[31mred\x07 end"
json.dump(d, open(p, "w"))
PY
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" pr -o p bo
! grep -q -e "$esc" -e "$(printf '\007')" p/pr.md || fail "a control character went into pr.md"
expect_grep 'line one \\x1b\[31mred\\x07 end' p/pr.md
