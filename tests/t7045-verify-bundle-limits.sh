#!/usr/bin/env bash
# verify BUNDLE takes time linear in its members (an index, not a scan per
# member: 150,000 empty members take well under a second where a scan took
# minutes) and bounds what it reads: more than 200,000 members, a
# manifest, statement or envelopes member larger than 64 MiB (a gzip bomb:
# a few hundred KB inflating to 160 MiB), or 256 MiB of them together,
# each fail with exit 1, printed, without reading further.
. "$TOP/tests/lib.sh"

# gen OUT N [NAME:MIB]...: a bundle (ustar, gzip, written by hand: fast) with a
# BUNDLE-SHA256SUMS listing N empty members m/0000000..., then members NAME of MIB MiB of zeros
cat >gen.py <<'PY'
import hashlib, sys, zlib
out, n, big = sys.argv[1], int(sys.argv[2]), [a.rsplit(":", 1) for a in sys.argv[3:]]
def header(name, size):
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = b"0000644\0"; h[108:116] = b"0000000\0"; h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size; h[136:148] = b"00000000000\0"
    h[156:157] = b"0"; h[257:263] = b"ustar\0"; h[263:265] = b"00"
    h[148:156] = b"        "
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)
empty = hashlib.sha256(b"").hexdigest()
names = ["m/%07d" % i for i in range(n)]
idx = "".join("%s  %s\n" % (empty, x) for x in names).encode()
z = zlib.compressobj(6, zlib.DEFLATED, 31)
f = open(out, "wb")
f.write(z.compress(header("top/BUNDLE-SHA256SUMS", len(idx)) + idx + b"\0" * (-len(idx) % 512)))
chunk = []
for x in names:
    chunk.append(header("top/" + x, 0))
    if len(chunk) == 4096:
        f.write(z.compress(b"".join(chunk)))
        chunk = []
f.write(z.compress(b"".join(chunk)))
zeros = b"\0" * (1 << 20)
for name, mib in big:
    f.write(z.compress(header("top/" + name, int(mib) << 20)))
    for _ in range(int(mib)):
        f.write(z.compress(zeros))
f.write(z.compress(b"\0" * 1024))
f.write(z.flush())
PY

# --- 150,000 members: linear (a scan per member took minutes here)
python3 gen.py many.tar.gz 150000
expect_exit 1 timeout 30 "$AB" verify many.tar.gz
expect_file out <<X
SHA256SUMS: missing from the bundle
FAIL: bundle many.tar.gz: a check failed (above); signatures not checked (--key PUB.pem)
X

# --- one member past the limit of members
python3 gen.py toomany.tar.gz 200001
expect_exit 1 timeout 30 "$AB" verify toomany.tar.gz
expect_file out <<X
toomany.tar.gz: more than 200000 members, the most verify reads of a bundle
FAIL: bundle toomany.tar.gz: a check failed (above); signatures not checked (--key PUB.pem)
X

# --- a gzip bomb: a statement (kept with or without --key) of 160 MiB in a few hundred KB
python3 gen.py bomb.tar.gz 0 runs/r/0001-a.intoto.json:160
[ "$(stat -c %s bomb.tar.gz)" -lt 1000000 ] || fail "the bomb is not small"
expect_exit 1 timeout 30 "$AB" verify bomb.tar.gz
expect_file out <<X
runs/r/0001-a.intoto.json: larger than 67108864 bytes, the most verify holds of a manifest, statement or envelopes
FAIL: bundle bomb.tar.gz: a check failed (above); signatures not checked (--key PUB.pem)
X
python3 gen.py bomb2.tar.gz 0 provenance/provenance.intoto.json:70
expect_exit 1 timeout 30 "$AB" verify bomb2.tar.gz
expect_grep "provenance/provenance.intoto.json: larger than 67108864 bytes" out
# --- five statements of 60 MiB: each within the limit, together past 256 MiB
python3 gen.py bombs.tar.gz 0 runs/r/0001-a.intoto.json:60 runs/r/0002-a.intoto.json:60 \
	runs/r/0003-a.intoto.json:60 runs/r/0004-a.intoto.json:60 runs/r/0005-a.intoto.json:60
expect_exit 1 timeout 30 "$AB" verify bombs.tar.gz
expect_file out <<X
runs/r/0005-a.intoto.json: the manifests, statements and envelopes read so far hold more than 268435456 bytes together
FAIL: bundle bombs.tar.gz: a check failed (above); signatures not checked (--key PUB.pem)
X
