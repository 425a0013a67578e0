#!/usr/bin/env bash
# A download has a limit per source (archive.max_size_mib, default 4096):
# past it the transfer stops, whatever the channel (file://, http with a
# Content-Length, an endless http body, a --mirror-dir file), its partial
# file is removed, the cache's lock is released, and fetch exits 2 naming
# the source and the limit. A file:// URL or a mirror file that is not a
# regular file (/dev/zero, a fifo) is never read. The key is validated
# like the others.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

truncate -s 3M big.tar.gz
Z=0000000000000000000000000000000000000000000000000000000000000000
# limited FILE URL...: archive_recipe with max_size_mib 1
limited() {
	archive_recipe "$@"
	sed -i 's/"strip": 1}/"strip": 1, "max_size_mib": 1}/' "$1"
}
# clean: nothing left in the cache's temporaries, and its lock free
clean() {
	[ -z "$(ls cache/tmp 2>/dev/null)" ] || fail "$1: a partial download was left: $(ls -l cache/tmp)"
	[ ! -e cache/archives/sha256/$Z ] || fail "$1: the archive was stored"
	flock -n cache/lock true || fail "$1: the cache's lock is still held"
}

# --- file://
limited r.json $Z "file://$PWD/big.tar.gz"
expect_exit 2 timeout 60 "$AB" fetch --cache cache -o bo r.json
expect_grep "allocbuild: source 's': url 'file://$PWD/big.tar.gz' holds more than the source's limit of 1 MiB: not used (a larger archive needs sources.s.archive.max_size_mib in the recipe)" err
clean file

# --- http: a Content-Length past the limit, then an endless body without one
start_http "$PWD"
limited r.json $Z "http://127.0.0.1:$HTTP_PORT/big.tar.gz"
expect_exit 2 timeout 60 "$AB" fetch --cache cache -o bo r.json
expect_grep "source 's': url 'http://127.0.0.1:$HTTP_PORT/big.tar.gz' holds more than the source's limit of 1 MiB" err
clean "http with a length"
stop_http
cat >endless.py <<'PY'
import http.server, socket, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        try:
            for _ in range(1 << 16):  # at most 4 GiB, bounded even if nobody stops it
                self.wfile.write(b"\0" * 65536)
        except OSError:
            pass
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.handle_request()
PY
python3 endless.py >port.txt &
endless=$!
for _ in $(seq 100); do [ -s port.txt ] && break; sleep 0.05; done
port=$(cat port.txt)
limited r.json $Z "http://127.0.0.1:$port/endless.tar.gz"
expect_exit 2 timeout 60 "$AB" fetch --cache cache -o bo r.json
expect_grep "source 's': url 'http://127.0.0.1:$port/endless.tar.gz' holds more than the source's limit of 1 MiB" err
clean "an endless http body"
kill $endless 2>/dev/null || true
wait $endless 2>/dev/null || true

# --- a --mirror-dir file
mkdir -p mirror/sha256 && cp --sparse=always big.tar.gz mirror/sha256/$Z
limited r.json $Z "https://example.invalid/big.tar.gz"
expect_exit 2 timeout 60 "$AB" fetch --cache cache --mirror-dir mirror -o bo r.json
expect_grep "source 's': mirror dir file '$PWD/mirror/sha256/$Z' holds more than the source's limit of 1 MiB" err
clean "a mirror file"
rm mirror/sha256/$Z

# --- not a regular file: /dev/zero and a fifo are never read (the default limit would stop them at 4 GiB)
archive_recipe r.json $Z "file:///dev/zero"
expect_exit 1 timeout 60 "$AB" fetch --cache cache -o bo r.json
expect_grep "cannot download 'file:///dev/zero': not a regular file" err
mkfifo mirror/sha256/$Z
archive_recipe r.json $Z "https://example.invalid/x.tar.gz"
expect_exit 1 timeout 60 "$AB" fetch --cache cache --mirror-dir mirror -o bo r.json
expect_grep "'$PWD/mirror/sha256/$Z' is not a regular file" err
clean "not regular"

# --- the key, validated as the others
archive_recipe r.json $Z "https://example.invalid/x.tar.gz"
sed -i 's/"strip": 1}/"strip": 1, "max_size_mib": 0}/' r.json
expect_exit 2 "$AB" validate r.json
expect_grep "r.json:2:184: sources.s.archive.max_size_mib: must be a positive integer, got 0" err
sed -i 's/"max_size_mib": 0}/"max_size_mib": "8G"}/' r.json
expect_exit 2 "$AB" validate r.json
expect_grep "r.json:2:184: sources.s.archive.max_size_mib: expected an integer, got a string" err

sed -i 's/"max_size_mib": "8G"}/"max_size_mib": 2000000}/' r.json
expect_exit 2 "$AB" validate r.json
expect_grep "r.json:2:184: sources.s.archive.max_size_mib: out of range: expected an integer from 1 to 1048576, got 2000000" err
