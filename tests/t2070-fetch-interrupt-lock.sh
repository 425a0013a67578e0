#!/usr/bin/env bash
# Two fetches sharing a cache: the second waits for the lock and says so.
# kill -9 and SIGINT during a download, and kill -9 while a tree is being
# written, leave the cache consistent; the next run completes.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"

mkdir -p src/pkg www good
head -c 120000 /dev/urandom >src/pkg/blob
echo hello >src/pkg/hello.txt
tar -C src -cf www/pkg.tar pkg
cp www/pkg.tar good/
H=$(sha www/pkg.tar)
C=$PWD/cache/allocbuild

# a server that trickles the file: 10 kB every 0.25 s (about 3 s)
cat >slow.py <<'PY'
import http.server, os, sys, time
root = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        data = open(os.path.join(root, self.path.lstrip("/")), "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        for i in range(0, len(data), 10000):
            self.wfile.write(data[i:i + 10000]); self.wfile.flush(); time.sleep(0.25)
    def log_message(self, fmt, *args):
        sys.stderr.write("%s\n" % (fmt % args)); sys.stderr.flush()
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 slow.py "$PORT" www 2>slow.log &
SLOW=$!
PIDS=
trap 'kill $SLOW $PIDS 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$PORT" 2>/dev/null && break
	sleep 0.1
done
archive_recipe r.json "$H" "http://127.0.0.1:$PORT/pkg.tar"

wait_for() { # what, command...: poll for up to 20 s
	local what=$1 i
	shift
	for i in $(seq 400); do
		"$@" && return 0
		sleep 0.05
	done
	fail "timed out waiting for $what"
}
tmp_has_file() { [ -n "$(ls "$C/tmp" 2>/dev/null)" ]; }

# 1. A downloads slowly; B shares the cache and waits; A finishes; B uses A's download
"$AB" fetch -o a r.json >a.out 2>a.err &
A=$!
PIDS="$A"
wait_for "A's download" tmp_has_file
"$AB" fetch -o b r.json >b.out 2>b.err &
B=$!
PIDS="$A $B"
wait_for "B to wait" grep -q "allocbuild: waiting for the cache lock held by pid $A" b.err
wait "$A" || { cat a.err; fail "A failed"; }
wait "$B" || { cat b.err; fail "B failed"; }
PIDS=
[ "$(json b/provenance/sources.json 'd["sources"]["s"]["origin_kind"]')" = cache ] || fail "B did not use the cache"
[ "$(grep -c 'GET /pkg.tar' slow.log)" = 1 ] || fail "downloaded twice"
diff -r a/variants/v/src b/variants/v/src || fail "trees differ"

# 2. kill -9 in the middle of a download, while a second fetch waits for the lock
rm -rf "$C"
"$AB" fetch -o k r.json >k.out 2>k.err &
K=$!
PIDS="$K"
wait_for "the download" tmp_has_file
"$AB" fetch -o w --mirror-dir good r.json >w.out 2>w.err &
W=$!
PIDS="$K $W"
wait_for "W to wait" grep -q "allocbuild: waiting for the cache lock held by pid $K" w.err
kill -9 "$K"
wait "$K" 2>/dev/null || true
wait "$W" || { cat w.err; fail "the waiting fetch failed after the holder was killed"; }
PIDS=
[ ! -e k/variants/v/src ] || fail "the killed fetch left a tree"
[ "$(sha "$C/archives/sha256/$H")" = "$H" ] || fail "cache"
[ -z "$(ls "$C/tmp")" ] || fail "stale temporaries were not removed"
[ "$(json w/provenance/sources.json 'd["sources"]["s"]["origin_kind"]')" = mirror-dir ] || fail "origin"

# 3. SIGINT in the middle of a download; the rerun completes
rm -rf "$C"
# (a background job of a script starts with SIGINT ignored: restore the default, as a terminal has it)
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
	"$AB" fetch -o i r.json >i.out 2>i.err &
I=$!
PIDS="$I"
wait_for "the download" tmp_has_file
kill -INT "$I"
wait "$I" 2>/dev/null && fail "SIGINT did not stop the fetch"
PIDS=
[ ! -e "$C/archives/sha256/$H" ] || fail "a partial download was cached"
expect_exit 0 "$AB" fetch -o i r.json
[ "$(sha "$C/archives/sha256/$H")" = "$H" ] || fail "cache after SIGINT"
[ -z "$(ls "$C/tmp")" ] || fail "temporaries left after SIGINT"

# 4. kill -9 while the jemalloc tree is being written; the rerun removes the debris and completes
R=$TOP/recipes/jemalloc-5.3.0-policy.json
expect_exit 0 "$AB" fetch -o j --mirror-dir "$MIRROR" "$R" jemalloc-5.3.0
rm -rf j j2
"$AB" fetch -o j2 "$R" >j.out 2>j.err &
J=$!
PIDS="$J"
wait_for "the tree" sh -c 'ls -d j2/variants/stock53/src.tmp-* >/dev/null 2>&1'
kill -9 "$J"
wait "$J" 2>/dev/null || true
PIDS=
[ ! -e j2/variants/stock53/src ] || fail "a partial tree at the destination"
expect_exit 0 "$AB" fetch -o j2 "$R"
expect_grep "removing 'j2/variants/stock53/src.tmp-$J-" err
[ -z "$(ls -d j2/variants/*/src.tmp-* 2>/dev/null)" ] || fail "debris left"
want=$(cd j2/variants/stock53/src && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1)
[ "$(json j2/provenance/sources.json 'd["variants"]["stock53"]["dirHash"]')" = "$want" ] || fail "dirHash after rerun"

# 5. kill -9 while a git repository is being fetched into the cache; the rerun completes
git init -q big.git
python3 - big.git <<'PY'
import os, random, sys
rng = random.Random(5)
for i in range(600):
    d = os.path.join(sys.argv[1], "d%02d" % (i % 30))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%04d" % i), "wb") as f:
        f.write(rng.randbytes(rng.randint(1000, 60000)))
PY
git -C big.git add -A && git -C big.git commit -qm big
BIG=$(git -C big.git rev-parse HEAD)
cat >g.json <<JSON
{"recipe": 1, "name": "g",
 "sources": {"big": {"git": {"url": "https://example.invalid/big.git", "commit": "$BIG"}}},
 "variants": [{"label": "v", "source": "big", "build": {"system": "autotools"}}]}
JSON
rm -rf "$C"
"$AB" fetch -o gk --mirror "https://example.invalid/=$PWD/" g.json >gk.out 2>gk.err &
G=$!
PIDS="$G"
wait_for "the fetch" sh -c "ls -d '$C'/git/*.git >/dev/null 2>&1 || ls '$C/tmp' 2>/dev/null | grep -q ."
# on a fast machine the fetch may have ended before the kill: then there is no process to kill
kill -9 "$G" 2>/dev/null || true
wait "$G" 2>/dev/null || true
PIDS=
# the tree is renamed into place whole: none, or (when the fetch got that far before the
# kill, or ended) all of it, never a part
git clone -q big.git bigref && rm -rf bigref/.git
[ ! -e gk/variants/v/src ] || diff -r bigref gk/variants/v/src >/dev/null || fail "a partial tree from a killed fetch"
expect_exit 0 "$AB" fetch -o gk --mirror "https://example.invalid/=$PWD/" g.json
[ "$(json gk/provenance/sources.json 'd["sources"]["big"]["commit"]')" = "$BIG" ] || fail "commit after rerun"
diff -r bigref gk/variants/v/src || fail "tree after the rerun"
[ -z "$(ls "$C/tmp")" ] || fail "temporaries left after the rerun"
