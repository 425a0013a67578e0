# Helpers for the fetch tests (t2000-t2999), sourced after tests/lib.sh.

# start_http DIR: serve DIR on a free loopback port with python3's
# http.server; sets HTTP_PORT, HTTP_PID and HTTP_LOG; stopped on exit
start_http() {
	HTTP_LOG=$PWD/http.log
	HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 --directory "$1" "$HTTP_PORT" >"$HTTP_LOG" 2>&1 &
	HTTP_PID=$!
	trap stop_http EXIT
	for _ in $(seq 100); do
		python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$HTTP_PORT" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "the HTTP server did not start"
}

stop_http() {
	if [ -n "${HTTP_PID:-}" ]; then
		kill "$HTTP_PID" 2>/dev/null || true
		wait "$HTTP_PID" 2>/dev/null || true
		HTTP_PID=
	fi
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# archive_recipe FILE SHA256 URL...: a recipe with one archive source "s" (strip 1) and one variant "v"
archive_recipe() {
	local file=$1 sum=$2 urls= u
	shift 2
	for u in "$@"; do urls="$urls${urls:+, }\"$u\""; done
	cat >"$file" <<JSON
{"recipe": 1, "name": "a",
 "sources": {"s": {"archive": {"urls": [$urls], "sha256": "$sum", "strip": 1}}},
 "variants": [{"label": "v", "source": "s", "build": {"system": "autotools"}}]}
JSON
}
