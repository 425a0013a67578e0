#!/usr/bin/env bash
# fetch of archive sources in every format (tar, tar.gz, tar.bz2, tar.xz,
# tar.zst, zip), through file:// URLs and mirror directories, with strip;
# modes, symlinks and hard links survive; the cache is content-addressed.
. "$TOP/tests/lib.sh"
umask 022

mkdir arch
python3 - arch <<'PY'
import io, os, sys, tarfile, zipfile
out = sys.argv[1]
files = [("pkg-1.0/a.txt", b"alpha\n", 0o644), ("pkg-1.0/bin/run.sh", b"#!/bin/sh\necho run\n", 0o755),
         ("pkg-1.0/sub/deep/c.h", b"#define C 1\n", 0o644)]
def tar(name, mode):
    with tarfile.open(os.path.join(out, name), mode, format=tarfile.PAX_FORMAT) as t:
        for d in ("pkg-1.0", "pkg-1.0/bin", "pkg-1.0/sub", "pkg-1.0/sub/deep"):
            i = tarfile.TarInfo(d); i.type = tarfile.DIRTYPE; i.mode = 0o755; i.mtime = 1600000000; t.addfile(i)
        for n, data, m in files:
            i = tarfile.TarInfo(n); i.size = len(data); i.mode = m; i.mtime = 1600000000
            t.addfile(i, io.BytesIO(data))
        i = tarfile.TarInfo("pkg-1.0/sub/link"); i.type = tarfile.SYMTYPE; i.linkname = "../a.txt"; t.addfile(i)
        i = tarfile.TarInfo("pkg-1.0/hard.txt"); i.type = tarfile.LNKTYPE; i.linkname = "pkg-1.0/a.txt"; t.addfile(i)
tar("pkg.tar", "w")
tar("pkg.tar.gz", "w:gz")
tar("pkg.tar.bz2", "w:bz2")
tar("pkg.tar.xz", "w:xz")
with zipfile.ZipFile(os.path.join(out, "pkg.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for n, data, m in files:
        i = zipfile.ZipInfo(n, (2020, 9, 13, 12, 26, 40)); i.external_attr = (0o100000 | m) << 16
        i.create_system = 3
        z.writestr(i, data)
    i = zipfile.ZipInfo("pkg-1.0/sub/link", (2020, 9, 13, 12, 26, 40)); i.external_attr = (0o120777) << 16
    i.create_system = 3
    z.writestr(i, "../a.txt")
    # zip has no hard links: a copy stands for hard.txt
    i = zipfile.ZipInfo("pkg-1.0/hard.txt", (2020, 9, 13, 12, 26, 40)); i.external_attr = (0o100644) << 16
    i.create_system = 3
    z.writestr(i, b"alpha\n")
PY
zstd -q arch/pkg.tar -o arch/pkg.tar.zst
sha() { sha256sum "$1" | cut -d' ' -f1; }

# gz and zst by file:// URL, the others from a mirror directory (by name or by sha256/<hex>)
mkdir -p mirror/sha256
cp arch/pkg.tar arch/pkg.tar.bz2 arch/pkg.zip mirror/
cp arch/pkg.tar.xz "mirror/sha256/$(sha arch/pkg.tar.xz)"
cat >r.json <<JSON
{"recipe": 1, "name": "fmt",
 "sources": {
  "tar": {"archive": {"urls": ["https://dl.example.invalid/pkg.tar"], "sha256": "$(sha arch/pkg.tar)", "strip": 1}},
  "gz":  {"archive": {"urls": ["file://$PWD/arch/pkg.tar.gz"], "sha256": "$(sha arch/pkg.tar.gz)", "strip": 1}},
  "bz2": {"archive": {"urls": ["https://dl.example.invalid/pkg.tar.bz2"], "sha256": "$(sha arch/pkg.tar.bz2)", "strip": 1}},
  "xz":  {"archive": {"urls": ["https://dl.example.invalid/renamed.tar.xz"], "sha256": "$(sha arch/pkg.tar.xz)", "strip": 1}},
  "zst": {"archive": {"urls": ["file://$PWD/arch/pkg.tar.zst"], "sha256": "$(sha arch/pkg.tar.zst)", "strip": 1}},
  "zip": {"archive": {"urls": ["https://dl.example.invalid/pkg.zip"], "sha256": "$(sha arch/pkg.zip)", "strip": 1}},
  "nostrip": {"archive": {"urls": ["file://$PWD/arch/pkg.tar.gz"], "sha256": "$(sha arch/pkg.tar.gz)"}}
 },
 "variants": [
  {"label": "tar", "source": "tar", "build": {"system": "autotools"}},
  {"label": "gz", "source": "gz", "build": {"system": "autotools"}},
  {"label": "bz2", "source": "bz2", "build": {"system": "autotools"}},
  {"label": "xz", "source": "xz", "build": {"system": "autotools"}},
  {"label": "zst", "source": "zst", "build": {"system": "autotools"}},
  {"label": "zip", "source": "zip", "build": {"system": "autotools"}},
  {"label": "nostrip", "source": "nostrip", "build": {"system": "autotools"}}
 ]}
JSON
expect_exit 0 "$AB" fetch --mirror-dir mirror r.json
M=allocbuild-out/fmt/provenance/sources.json
listing() { (cd "$1" && find . -mindepth 1 -printf '%y %m %p %l\n' | LC_ALL=C sort); }
for v in tar gz bz2 xz zst zip; do
	listing "allocbuild-out/fmt/variants/$v/src" >tree
	expect_file tree <<'EOF2'
d 755 ./bin 
d 755 ./sub 
d 755 ./sub/deep 
f 644 ./a.txt 
f 644 ./hard.txt 
f 644 ./sub/deep/c.h 
f 755 ./bin/run.sh 
l 777 ./sub/link ../a.txt
EOF2
	[ "$(cat "allocbuild-out/fmt/variants/$v/src/sub/link")" = alpha ] || fail "link of $v"
done
[ "$(stat -c %h allocbuild-out/fmt/variants/tar/src/hard.txt)" = 2 ] || fail "hard link"
[ -f allocbuild-out/fmt/variants/nostrip/src/pkg-1.0/a.txt ] || fail "strip 0"
# archive times are kept (generated files stay newer than their inputs)
[ "$(stat -c %Y allocbuild-out/fmt/variants/gz/src/a.txt)" = 1600000000 ] || fail "mtime"

# where the bytes came from
[ "$(json $M 'd["sources"]["gz"]["origin"]')" = "file://$PWD/arch/pkg.tar.gz" ] || fail "origin gz"
[ "$(json $M 'd["sources"]["gz"]["origin_kind"]')" = url ] || fail "kind gz"
[ "$(json $M 'd["sources"]["tar"]["origin"]')" = "$PWD/mirror/pkg.tar" ] || fail "origin tar"
[ "$(json $M 'd["sources"]["xz"]["origin"]')" = "$PWD/mirror/sha256/$(sha arch/pkg.tar.xz)" ] || fail "origin xz"
[ "$(json $M 'd["sources"]["xz"]["origin_kind"]')" = mirror-dir ] || fail "kind xz"
[ "$(json $M 'd["sources"]["zip"]["size"]')" = "$(stat -c %s arch/pkg.zip)" ] || fail "size"
for s in tar gz bz2 xz zst zip; do
	h=$(json $M "d['sources']['$s']['sha256']")
	[ "$(sha "cache/allocbuild/archives/sha256/$h")" = "$h" ] || fail "cache of $s"
done
want=$(cd allocbuild-out/fmt/variants/zip/src && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1)
[ "$(json $M 'd["variants"]["zip"]["dirHash"]')" = "$want" ] || fail "dirHash"

# second run: everything from the cache, offline, no mirror dir needed
expect_exit 0 "$AB" fetch r.json
[ "$(json $M 'd["sources"]["gz"]["origin_kind"]')" = cache ] || fail "cache kind"
[ "$(json $M 'd["sources"]["gz"]["cached_from"]')" = "file://$PWD/arch/pkg.tar.gz" ] || fail "cached_from"
[ "$(json $M 'd["variants"]["zst"]["reused"]')" = True ] || fail "reused"

# one source only: its variants, nothing else
expect_exit 0 "$AB" fetch -o one r.json zip
[ -d one/variants/zip/src ] && [ ! -e one/variants/gz ] || fail "only the zip variant"
[ "$(json one/provenance/sources.json 'sorted(d["sources"])')" = "['zip']" ] || fail "only the zip source"
