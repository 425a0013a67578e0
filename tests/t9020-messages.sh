#!/usr/bin/env bash
# issue 18, item 10: messages that say what is wrong, and never write raw
# bytes of a name to the terminal.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

# an integer out of range says so, with the range; a source id '..' is quoted in the path
cat >r.json <<'JSON'
{"recipe": 1, "name": "m",
 "sources": {"..": {"archive": {"urls": ["https://e.invalid/a.tgz"], "sha256": "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa", "strip": 2147483648}},
             "ok": {"archive": {"urls": ["https://e.invalid/b.tgz"], "sha256": "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa", "strip": 65}}},
 "variants": [{"label": "v", "source": "ok", "build": {"system": "autotools", "jobs": 1e9}}]}
JSON
expect_exit 2 "$AB" validate r.json
expect_file err <<'X'
r.json:2:14: sources[".."]: invalid source id '..': '.' and '..' are reserved
r.json:2:157: sources[".."].archive.strip: out of range: expected an integer from 0 to 64, got 2147483648
r.json:3:157: sources.ok.archive.strip: out of range: expected an integer from 0 to 64, got 65
r.json:4:87: variants[0].build.jobs: out of range: expected an integer from 1 to 1024, got 1000000000
X

# bundles: a "./" repack is accepted; a duplicate member is one; raw bytes are escaped
make_fakeproj_recipe f.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo f.json
expect_exit 0 "$AB" pr -o p bo
B=p/provenance-fk.tar.gz
mkdir x && tar -xzf $B -C x
(cd x && tar --sort=name -czf ../dot.tar.gz ./provenance-fk)
tar -tzf dot.tar.gz | grep -q '^\./provenance-fk/SHA256SUMS$' || fail "the repack has no ./ prefixes"
expect_exit 0 "$AB" verify dot.tar.gz
expect_grep "dot.tar.gz: every member matches BUNDLE-SHA256SUMS" out
expect_exit 0 "$AB" rebuild --trust-unsigned --mirror-dir mirror -o rb-dot dot.tar.gz
# tar -C x . : the archive's own "./" comes first, and is no member
(cd x && tar --sort=name -czf ../dotdir.tar.gz .)
[ "$(tar -tzf dotdir.tar.gz | head -n 1)" = ./ ] || fail "the repack has no ./ member"
expect_exit 0 "$AB" verify dotdir.tar.gz
expect_grep "dotdir.tar.gz: every member matches BUNDLE-SHA256SUMS" out
expect_exit 0 "$AB" rebuild --trust-unsigned --mirror-dir mirror -o rb dotdir.tar.gz
# the top directory's content alone: each file at the top said to be outside one, then not a bundle
(cd x/provenance-fk && tar --sort=name -czf ../../flat.tar.gz .)
expect_exit 2 "$AB" verify flat.tar.gz
tar -tzf flat.tar.gz | sed -n 's|^\./\([^/][^/]*\)$|\1: not inside a top directory|p' >want
[ -s want ] || fail "the flat repack has no file at its top"
grep ': not inside a top directory$' out >got || true
diff want got || fail "the files at the flat repack's top are not each said to be outside a top directory"
expect_grep 'BUNDLE-SHA256SUMS: not inside a top directory' out
expect_grep "has no BUNDLE-SHA256SUMS under a top directory: not an evidence bundle of allocbuild" err
! grep -q 'not a regular file' out || fail "the flat repack's messages take a file for something else"
python3 - $B <<'PY'
import gzip, io, sys, tarfile
raw = gzip.decompress(open(sys.argv[1], "rb").read())
t = tarfile.open(fileobj=io.BytesIO(raw))
mem = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
def pack(path, members, tail=b""):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as o:
        for m, d in members:
            o.addfile(m, io.BytesIO(d) if d is not None else None)
    data = out.getvalue()
    if tail:
        # junk where the next header should be, right after the last member's data block
        last = data.index(members[-1][0].name.encode())
        data = data[:last + 1024] + tail
    open(path, "wb").write(gzip.compress(data, mtime=0))
dup = []
for m, d in mem:
    dup.append((m, d))
    if m.name.endswith("/recipe.json"):
        dup.append((m, d))
pack("dup.tar.gz", dup)
odd = tarfile.TarInfo("provenance-fk/\x1b[31mRED\nline")
odd.size = 2
pack("raw.tar.gz", mem[:3] + [(odd, b"x\n")], tail=b"\x1b[2J" + bytes(range(1, 255)) * 8)
# a member cut short inside a gzip stream that is itself whole
cut = raw[:raw.index(b"provenance-fk/SHA256SUMS") + 512 + 100]
open("cut.tar.gz", "wb").write(gzip.compress(cut, mtime=0))
PY
expect_exit 1 "$AB" verify dup.tar.gz
expect_file out <<'X'
recipe.json: duplicate member
FAIL: bundle dup.tar.gz: a check failed (above); signatures not checked (--key PUB.pem)
X
expect_exit 1 "$AB" verify raw.tar.gz
expect_grep "\\x1b[31mRED\\nline" out
! grep -q "$(printf '\033')" out err || fail "an escape character reached the terminal"
expect_exit 1 "$AB" verify cut.tar.gz
expect_grep "SHA256SUMS: corrupt data: " out
expect_no_grep "(null)" out
