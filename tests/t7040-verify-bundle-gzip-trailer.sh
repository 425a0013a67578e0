#!/usr/bin/env bash
# issue 18, item 8: verify BUNDLE checks the gzip stream's trailer (CRC-32
# and length) and refuses data after it: a flipped trailer byte, trailing
# garbage, a second gzip member, a stream cut before its trailer all fail
# (exit 1, naming the bundle); the pristine bundle verifies.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" pr -o p bo
B=p/provenance-fk.tar.gz
expect_exit 0 "$AB" verify $B
python3 - $B <<'PY'
import gzip, sys
d = open(sys.argv[1], "rb").read()
def put(name, data):
    open(name, "wb").write(data)
crc = bytearray(d); crc[-8] ^= 0x01; put("crc.tar.gz", crc)
size = bytearray(d); size[-1] ^= 0x01; put("size.tar.gz", size)
put("garbage.tar.gz", d + b"garbage")
put("second.tar.gz", d + gzip.compress(b"x", mtime=0))
put("cut.tar.gz", d[:-4])
PY
check() { # file message
	expect_exit 1 "$AB" verify "$1"
	expect_file out <<X
$1: $2
FAIL: bundle $1: a check failed (above); signatures not checked (--key PUB.pem)
X
}
check crc.tar.gz "corrupt gzip stream: incorrect data check"
check size.tar.gz "corrupt gzip stream: incorrect length check"
check garbage.tar.gz "7 bytes of trailing data after the gzip stream"
check second.tar.gz "21 bytes of trailing data after the gzip stream"
check cut.tar.gz "corrupt gzip stream: it ends before its trailer"
