#!/usr/bin/env bash
# The remote compile cache's credentials never enter the build sandbox,
# and a step cannot speak raw Redis or HTTP through allocbuild's relay
# (issue 44, H4). A real redis-server that requires a password and an
# HTTP cache that requires Basic authentication (a small Python server),
# both on loopback, started and stopped by pid here, serve a build of a
# CMake project whose compiles go through ccache, beside a hostile
# variant whose configure prints its environment and then, through the
# relay's loopback ports, tries what ccache never sends: CONFIG GET, AUTH
# with a guess, SET of a key of its own, an inline command; an HTTP POST,
# a path that climbs, a request with an Authorization of its own. The
# relay adds the credentials itself (the compiles are stored, and a second
# build with an empty local cache takes them back), ends every hostile
# connection, and no file of the build, its logs or its bundle holds a
# secret.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
RP=$(free_port)
redis-server --bind 127.0.0.1 --port "$RP" --save '' --appendonly no --requirepass 'PWredis1' >redis.log 2>&1 &
REDIS_PID=$!
HP=$(free_port)
cat >httpcache.py <<'PY'
import base64, http.server, sys
store = {}
WANT = "Basic " + base64.b64encode(b"u:PWhttp2").decode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def note(self, code):
        print(self.command, self.path, "auth-ok" if self.headers.get("Authorization") == WANT else "auth-bad",
              self.headers.get("Host"), code, flush=True)
    def reply(self, code, body=b""):
        self.note(code)
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
    def authorized(self):
        if self.headers.get("Authorization") == WANT:
            return True
        self.reply(401)
        return False
    def do_GET(self):
        if self.authorized():
            self.reply(200, store[self.path]) if self.path in store else self.reply(404)
    def do_HEAD(self):
        if self.authorized():
            self.reply(200 if self.path in store else 404)
    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.authorized():
            store[self.path] = body
            self.reply(201)
    def do_DELETE(self):
        if self.authorized():
            store.pop(self.path, None)
            self.reply(200)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
python3 httpcache.py "$HP" >http.log 2>&1 &
HTTP_PID=$!
trap 'kill $REDIS_PID $HTTP_PID 2>/dev/null || true; wait $REDIS_PID $HTTP_PID 2>/dev/null || true' EXIT
rcli() { redis-cli --no-auth-warning -a PWredis1 -h 127.0.0.1 -p "$RP" "$@"; }
for _ in $(seq 100); do
	[ "$(rcli ping 2>/dev/null)" = PONG ] && curl -s -o /dev/null "http://127.0.0.1:$HP/" && break
	sleep 0.1
done
check "redis-server answers" test "$(rcli ping)" = PONG

# the hostile variant: its configure prints its environment, then tries the relay's ports
mkdir -p p/hostile
cat >p/hostile/try.py <<'PY'
import socket
def talk(port, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(data)
    got = b""
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
    except socket.timeout:
        got += b"<timeout>"
    s.close()
    return got
def resp(*words):
    return b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)
for name, port, data in [
        ("config", 40000, resp(b"CONFIG", b"GET", b"requirepass")),
        ("auth", 40000, resp(b"AUTH", b"guess")),
        ("set-evil", 40000, resp(b"SET", b"evil", b"1")),
        ("get-evil", 40000, resp(b"GET", b"evil")),
        ("inline", 40000, b"PING\r\n"),
        ("post", 40001, b"POST /c/x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
        ("climb", 40001, b"GET /c/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("outside", 40001, b"GET /other/x HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("own-auth", 40001, b"GET /c/x HTTP/1.1\r\nHost: x\r\nAuthorization: Basic Z3Vlc3M6Z3Vlc3M=\r\nConnection: close\r\n\r\n")]:
    try:
        print("try %s: %r" % (name, talk(port, data)[:200]))
    except OSError as e:
        print("try %s: %s" % (name, e.strerror))
PY
cat >p/hostile/configure <<'CFG'
#!/bin/sh
echo "environment:"; env | sort
python3 "$(dirname "$0")/try.py"
printf 'all:\n\techo done >done\n' >Makefile
CFG
chmod +x p/hostile/configure
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C p -czf hostile.tar.gz hostile
hsha=$(sha256sum hostile.tar.gz | cut -c1-64)
make_fakecmake_relink_recipe r.json >/dev/null
cp hostile.tar.gz mirror/sha256/$hsha
python3 - r.json "$hsha" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["sources"]["hostile"] = {"archive": {"urls": ["https://example.invalid/hostile.tar.gz"], "sha256": sys.argv[2], "strip": 1}}
d["variants"] = [d["variants"][0], {"label": "hostile", "source": "hostile", "build": {"system": "autotools"}, "artifacts": ["done"]}]
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
REMOTE="redis://:PWredis1@127.0.0.1:$RP http://u:PWhttp2@127.0.0.1:$HP/c?token=PWquery3"

# ---- the first build fills both remotes through the relay, which authenticates
expect_exit 0 "$AB" build -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-1" --mirror-dir mirror -o o r.json
log=o/variants/hostile/logs/02-configure.log
check "the step saw the remotes at the relay, without credentials" \
	grep -qx "CCACHE_REMOTE_STORAGE=redis://127.0.0.1:40000 http://127.0.0.1:40001/c" "$log"
check "ccache's entries reached Redis" test "$(rcli --scan --pattern 'ccache:*' | wc -l)" -gt 0
check "ccache's entries reached the HTTP cache, authenticated" grep -q "^PUT /c/.* auth-ok 127.0.0.1:$HP 201$" http.log
# (the one without is this test's own readiness probe, GET /)
check "no request reached the HTTP cache without the relay's credentials" not sh -c "grep -v '^GET / ' http.log | grep -q auth-bad"
# every hostile attempt ended by the relay, none reached a server
for t in config auth set-evil get-evil inline post climb outside; do
	check "the relay ended '$t'" grep -qx "try $t: b''" "$log"
done
check "no key of the step's own in Redis" test "$(rcli exists evil)" = 0
# a request of ccache's shape with an Authorization of the step's own: the relay's is what the server sees
check "the step's own Authorization was replaced" grep -q "^try own-auth: b'HTTP/1.1 404 Not Found" "$log"
check "the server saw the relay's credentials" grep -q "^GET /c/x auth-ok 127.0.0.1:$HP 404$" http.log
check "no POST reached the HTTP cache" not grep -q '^POST' http.log
for w in "a Redis command 'CONFIG' that ccache does not send" "a Redis command 'AUTH' that ccache does not send" \
	"a Redis key 'evil' that is not ccache's" "a Redis request 'PING' that is not an array of 2 or 3 words" \
	"an HTTP request 'POST /c/x HTTP/1.1' that ccache does not send" \
	"an HTTP request line 'GET /c/../../etc/passwd HTTP/1.1' that is not ccache's" \
	"an HTTP request 'GET /other/x HTTP/1.1' outside the remote's path"; do
	check "allocbuild warned: $w" grep -qF "allocbuild: warning: the remote compile cache's relay ended a connection of a build step: $w" err
done

# ---- a second build with an empty local cache: its compiles come back from the remotes
expect_exit 0 "$AB" build -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-2" --mirror-dir mirror -o o2 r.json a
check "the second build's compiles were remote hits" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["variants"][0]["ccache"]
assert c["remote_hits"] >= 2 and c["remote_hits"] == c["cacheable"] and c["remote_errors"] == 0, c' o2/provenance/build-commands.json
# and from the HTTP cache alone
expect_exit 0 "$AB" build -j 2 --ccache-remote "http://u:PWhttp2@127.0.0.1:$HP/c" --ccache-dir "$PWD/cache-3" \
	--mirror-dir mirror -o o3 r.json a
check "the third build's compiles were remote hits" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["variants"][0]["ccache"]
assert c["remote_hits"] >= 2 and c["remote_hits"] == c["cacheable"] and c["remote_errors"] == 0, c' o3/provenance/build-commands.json
check "the HTTP cache served GETs" grep -q "^GET /c/.* auth-ok 127.0.0.1:$HP 200$" http.log

# ---- outside the sandbox the step has the credentials (ccache talks to the remotes itself): what it prints of them is redacted in its log
expect_exit 0 "$AB" build --no-sandbox -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-4" --mirror-dir mirror -o o4 r.json hostile
check "the step's environment is in its log, redacted" \
	grep -qx 'CCACHE_REMOTE_STORAGE=redis://\*\*\*@127.0.0.1:'"$RP"' http://\*\*\*@127.0.0.1:'"$HP"'/c?token=\*\*\*' o4/variants/hostile/logs/02-configure.log
expect_exit 0 "$AB" verify o4

# ---- pr refuses an OUTDIR whose recorded files hold a credential, naming the file and line, and writes nothing
expect_exit 0 "$AB" run o a --name leak -- sh -c 'echo start; echo "fetching https://u:PWrun4@example.invalid/x"'
expect_exit 1 "$AB" pr -o p0 o
check "pr names the file and line" grep -qF "allocbuild: pr: 'runs/leak/0001-a.log', line 2, holds a credential (a URL's password or a token): the bundle would publish it; nothing written" err
check "pr wrote nothing" not test -e p0
rm -rf o/runs o/pr-details.md
expect_exit 0 "$AB" build -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-1" --mirror-dir mirror -o o r.json

# ---- no secret in any file of the builds, nor in their bundles
expect_exit 0 "$AB" pr -o p1 o
expect_exit 0 "$AB" pr -o p4 o4
for s in PWredis1 PWhttp2 PWquery3 "$(printf 'u:PWhttp2' | base64)"; do
	check "no '$s' in the builds or their caches" not grep -rqaF "$s" o o2 o3 o4 p1 p4 cache-1 cache-2 cache-3 err out
	for b in p1/*.tar.gz p4/*.tar.gz; do
		check "no '$s' in the bundle $b" not bundle_has "$b" "$s"
	done
done
