#!/usr/bin/env bash
# Benchmark of the build sandbox (docs/build.md, "Sandbox"): the default
# recipe (two jemalloc builds, -j2) built from nothing with the sandbox (A)
# and without it (B, --no-sandbox), in turn (A B A B ...) by farm-bench,
# which prints the median wall ratio A/B taken pair by pair; target: under
# 1% more (a ratio below 1.01). Also the cost of one sandboxed step alone:
# `true` run through bwrap as a build step would be, against `true`.
# Run it alone on an idle machine: a build beside it moves both sides.
# usage: bench/sandbox.sh [ALLOCBUILD]   (ROUNDS=N pairs, default 5; KEEP=1 keeps bench/.work/sandbox)
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup sandbox 0 "$@"
command -v farm-bench >/dev/null || { echo "bench: needs farm-bench" >&2; exit 2; }
mirror=$("$TOP/scripts/debian-mirror.sh" "$WORK/mirror")
recipe=$TOP/recipes/jemalloc-5.3.0-policy.json
export XDG_CACHE_HOME=$WORK/cache
unset MALLOC_CONF LD_PRELOAD
machine_line

# the sources fetched once, so that both sides only build
"$AB" fetch --mirror-dir "$mirror" "$recipe" >/dev/null 2>&1
build() { # OUTDIR [OPTION]: the whole recipe from nothing
	echo "sh -c 'exec \"$AB\" build -j 2 --force --mirror-dir \"$mirror\" -o \"$WORK/$1\" ${2:-} \"$recipe\" >>\"$WORK/$1.log\" 2>&1'"
}
echo "== the default recipe from nothing, with the sandbox (A) against --no-sandbox (B)"
echo "   (compare wall: A's cpu is allocbuild's own, the sandboxed steps' CPU does not come back through bwrap's wait)"
eval "farm-bench -n $ROUNDS --warmup 1 --timeout 3600 --vs \"$(build plain --no-sandbox)\" -- $(build boxed)"
# both sides built the same bytes (the default recipe's README digests)
for d in boxed plain; do
	(cd "$WORK/$d" && grep '  variants/[^/]*/build/' SHA256SUMS | cut -c1-12 | tr '\n' ' ')
	echo "($d)"
done

echo "== one step's sandbox alone: bwrap with a build's binds running true, against true"
"$AB" plan -o "$WORK/boxed" "$recipe" | sed -n '/^\[3\//,/^\[4\//p' | grep '      sandbox:' | head -n 3
farm-bench -n 20 --warmup 2 --vs true -- bwrap --unshare-user --unshare-pid --unshare-net --unshare-ipc \
	--unshare-uts --unshare-cgroup --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin \
	--symlink usr/lib /lib --symlink usr/lib64 /lib64 --ro-bind /etc /etc --proc /proc --dev /dev \
	--tmpfs /tmp --bind "$WORK/boxed/variants/stock53/build" /allocbuild/build -- true
