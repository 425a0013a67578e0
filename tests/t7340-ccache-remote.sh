# A compile cache shared through a real Redis server (redis-server, on a
# free loopback port, stopped by pid). The flb-like fixture's three
# variants are built in OUTDIR A with local cache A, then in OUTDIR B at
# another, longer path with an empty local cache B: B's compiles are
# served from the remote (at least 90% of the cacheable ones), A's and B's artifacts
# have the same digests, and each variant's counts are in the summary,
# build-commands.json, state.json and the statement (as the annotations of
# its statistics log, a byproduct). The builds run in the build sandbox,
# which has no network: ccache reaches Redis through allocbuild's relay.
# A build without ccache gives the same bytes. With Redis stopped, a
# build (of a small CMake project) with an empty local cache succeeds and
# says that the remote was unreachable.
#
# Under the sanitizers (make asan) it is skipped: its four minutes are the
# compilers' (three jemalloc builds), and the code of allocbuild it runs,
# the relay between the sandbox and the remote, runs under them in t7365
# (a real Redis with a password and an HTTP cache, entries stored and hit,
# hostile requests ended) and test_cacheproto (the filter, byte by byte).
. "$TOP/tests/lib.sh"
skip_under_sanitizers "its time is three jemalloc builds; the relay it goes through runs under them in t7365 and test_cacheproto"
. "$TOP/tests/fakeproj.sh"

REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no >redis.log 2>&1 &
REDIS_PID=$!
stop_redis() {
	if [ -n "${REDIS_PID:-}" ]; then
		kill "$REDIS_PID" 2>/dev/null || true
		wait "$REDIS_PID" 2>/dev/null || true
		REDIS_PID=
	fi
}
trap stop_redis EXIT
for _ in $(seq 100); do
	[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
	sleep 0.1
done
[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping)" = PONG ] || fail "redis-server did not start: $(cat redis.log)"
REMOTE=redis://127.0.0.1:$REDIS_PORT

special_opts="--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30"
URL=https://git.example.invalid/flb-like.git
commit=$("$TOP/tests/fixtures/make-flb-like.sh" --git flb-like.git "$JEMALLOC_TARBALL")
"$TOP/tests/fixtures/flb-like-recipe.sh" "$URL" "$commit" "$JEMALLOC_SHA" "$special_opts" >r.json
src=(--mirror "https://git.example.invalid/=$PWD/" --mirror-dir "$MIRROR")

# --- A: cold caches, the remote filled
expect_exit 0 "$AB" build -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-a" "${src[@]}" -o A r.json
cp out a.out
[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" dbsize)" -gt 100 ] || fail "the remote cache got nothing"

# --- B: another, longer path, an empty local cache
B=$PWD/a/much/longer/path/to/the/second/machine/B
mkdir -p "${B%/B}"
expect_exit 0 "$AB" build -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-b" "${src[@]}" -o "$B" r.json
cp out b.out
grep -E '  variants/[^/]+/build/' A/SHA256SUMS >sums-a
grep -E '  variants/[^/]+/build/' "$B/SHA256SUMS" >sums-b
[ "$(wc -l <sums-a)" = 5 ] || fail "expected 5 artifacts: $(cat sums-a)"
diff -u sums-a sums-b || fail "the artifacts differ between A and B"
expect_exit 0 "$AB" verify "$B"

# at least 90% of B's cacheable compiles were served from A's entries in
# the remote: B's local cache began empty, so a local hit in B is an entry
# B itself took from the remote (or compiled) earlier in the build (stock
# and special share most objects): hits >= 90% per variant, and no more
# local hits than entries B brought in
python3 - "$B/provenance/build-commands.json" A/provenance/build-commands.json <<'PY' || fail "B's compiles were not remote hits"
import json, sys
d = json.load(open(sys.argv[1]))
# B compiled exactly what A compiled (the fixture's jemalloc builds only
# its pic archive: about 190 cacheable compiles a variant)
a = {v["label"]: v.get("ccache") for v in json.load(open(sys.argv[2]))["variants"]}
seen = 0
tot = {"cacheable": 0, "local_hits": 0, "remote_hits": 0, "misses": 0}
for v in d["variants"]:
    c = v.get("ccache")
    if v["kind"] == "relink":
        assert c is None, v
        continue
    seen += 1
    assert c["log"] == "variants/%s/logs/ccache-stats.log" % v["label"], c
    assert c["cacheable"] == c["local_hits"] + c["remote_hits"] + c["misses"], c
    assert c["cacheable"] > 150 and c["cacheable"] == a[v["label"]]["cacheable"], (c, a[v["label"]])
    assert c["local_hits"] + c["remote_hits"] >= 0.9 * c["cacheable"], c
    assert c["remote_errors"] == 0 and c["remote_timeouts"] == 0, c
    for k in tot:
        tot[k] += c[k]
assert seen == 2, seen
assert tot["remote_hits"] >= 0.5 * tot["cacheable"], tot
assert tot["local_hits"] <= tot["remote_hits"] + tot["misses"], tot
assert tot["misses"] <= 0.05 * tot["cacheable"], tot
PY
[ "$(json "$B/provenance/build-commands.json" 'd["options"]["ccache_remote"]')" = "$REMOTE" ]
[ "$(json "$B/provenance/build-commands.json" 'd["options"]["ccache_dir"]')" = "./cache-b" ]
# inside the build sandbox ccache reaches the remote through allocbuild's relay on a loopback port
[ "$(json "$B/provenance/build-commands.json" '[s["env_set"]["CCACHE_REMOTE_STORAGE"] for s in d["variants"][0]["steps"] if s["step"] == "build"][0]')" = "redis://127.0.0.1:40000" ]
[ "$(json "$B/provenance/build-commands.json" 'd["variants"][0]["sandbox"]["network"]')" = \
	"none but loopback, where ccache reaches the remote compile cache through allocbuild" ]
# the summary: one line per variant compiled, the figures of build-commands.json
for l in stock special; do
	want=$(python3 - "$B/provenance/build-commands.json" $l <<'PY'
import json, sys
c = [v for v in json.load(open(sys.argv[1]))["variants"] if v["label"] == sys.argv[2]][0]["ccache"]
pl = lambda n, w, s="s": "%d %s%s" % (n, w, "" if n == 1 else s)
print("ccache %s: %s: %s (%d from earlier variants of this build), %s, %s (%d%% hits)" % (sys.argv[2],
      pl(c["cacheable"], "compile"), pl(c["local_hits"], "local hit"), c["from_earlier_variants"],
      pl(c["remote_hits"], "remote hit"), pl(c["misses"], "miss", "es"),
      100 * (c["local_hits"] + c["remote_hits"]) // c["cacheable"]))
PY
)
	grep -qxF "$want" b.out || fail "summary: '$want' not in: $(grep ccache b.out)"
done
[ "$(grep -c '^ccache ' b.out)" = 2 ] || fail "a summary line for each compiled variant: $(grep ccache b.out)"
# the record of each variant and the statement carry the same counts
python3 - "$B" <<'PY' || fail "state.json or the statement lacks the counts"
import json, sys
b = sys.argv[1]
cmds = {v["label"]: v.get("ccache") for v in json.load(open(b + "/provenance/build-commands.json"))["variants"]}
st = json.load(open(b + "/provenance/provenance.intoto.json"))
by = {p["name"]: p for p in st["predicate"]["runDetails"]["byproducts"]}
for label in ("stock", "special"):
    c = cmds[label]
    assert json.load(open("%s/variants/%s/state.json" % (b, label)))["ccache"] == c
    p = by[c["log"]]
    want = dict(c); del want["log"]
    assert p["annotations"] == want, (p, want)
opts = st["predicate"]["buildDefinition"]["externalParameters"]["options"]
assert opts["ccache"] is True and opts["ccache_remote"].startswith("redis://127.0.0.1:"), opts
PY

# --- D: no ccache at all: the same bytes as the builds through the caches (the build sandbox's fixed paths)
expect_exit 0 "$AB" build -j 2 "${src[@]}" -o D r.json stock
grep -E '  variants/stock/build/(bin/fluent-bit|lib/libjemalloc_pic.a)$' D/SHA256SUMS >sums-d
[ "$(wc -l <sums-d)" = 2 ] || fail "D's artifacts: $(cat sums-d)"
grep -E '  variants/stock/build/(bin/fluent-bit|lib/libjemalloc_pic.a)$' A/SHA256SUMS | diff -u - sums-d ||
	fail "the build without ccache differs from the builds through it"

# --- C: Redis stopped, an empty local cache: built all the same, and said. A small CMake
# project: what is checked is the warning and the counts (D compared the bytes)
stop_redis
mkdir cm
(cd cm && make_fakecmake_relink_recipe r.json)
expect_exit 0 "$AB" build -j 2 --ccache-remote "$REMOTE" --ccache-dir "$PWD/cache-c" --mirror-dir cm/mirror -o C cm/r.json a
expect_grep "allocbuild: warning: a: the remote cache $REMOTE was unreachable (" err
expect_grep "ccache calls could not use it): built with the local cache only" err
[ -x C/variants/a/build/prog ] || fail "C was not built"
python3 - C/provenance/build-commands.json <<'PY' || fail "C's counts"
import json, sys
c = json.load(open(sys.argv[1]))["variants"][0]["ccache"]
assert c["cacheable"] >= 2 and c["remote_hits"] == 0 and c["remote_errors"] > 0 and c["misses"] >= 0.9 * c["cacheable"], c
PY
expect_grep "; the remote storage failed for " out
