#!/usr/bin/env bash
# upstream-diff: .tar.bz2 archives are decoded block by block in parallel
# (lib/bz2.c); the result must be exactly libarchive's. Multi-stream
# files, single-block files, other compressions of the same tar, and a
# corrupt block (the sequential decoder then reports it).
. "$TOP/tests/lib.sh"

bzcat "$JEMALLOC_TARBALL" >r.tar
xz -0 -T1 -c r.tar >r.tar.xz
gzip -1 -c r.tar >r.tar.gz
# two bzip2 streams, split in the middle of a member, with small blocks
head -c 2000000 r.tar | bzip2 -1 >multi.tar.bz2
tail -c +2000001 r.tar | bzip2 -3 >>multi.tar.bz2

for a in r.tar r.tar.gz multi.tar.bz2; do
	expect_exit 0 "$AB" upstream-diff --json "$a" "$JEMALLOC_TARBALL"
	[ "$(json out 'd["identical"]')" = True ] || fail "$a: not identical"
	[ "$(json out 'd["candidate"]["digest"]["dirHash"] == d["upstream"]["digest"]["dirHash"]')" = True ] || fail "$a: dirHash"
	[ "$(json out 'd["candidate"]["archive_sha256"]')" = "$(sha256sum "$a" | cut -d' ' -f1)" ] || fail "$a: archive sha256"
done
expect_exit 0 "$AB" upstream-diff r.tar.xz multi.tar.bz2
expect_grep "verdict: identical to upstream" out

# a single-block file goes the sequential way
mkdir small && echo 'int x;' >small/a.c
tar cjf small.tar.bz2 small
expect_exit 0 "$AB" upstream-diff small.tar.bz2 small
expect_grep "verdict: identical to upstream" out

# a damaged block in the middle: exit 2 with libarchive's message, nothing on stdout
python3 - "$JEMALLOC_TARBALL" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[len(d) // 2] ^= 0x55
open("bad.tar.bz2", "wb").write(d)
PY
expect_exit 2 "$AB" upstream-diff bad.tar.bz2 small
[ ! -s out ] || fail "stdout written"
expect_grep "allocbuild: cannot read " err
[ "$(wc -l <err)" = 1 ] || { cat err; fail "more than one error line"; }
