#!/bin/sh
# Install the Debian packages allocbuild needs: `install-deps.sh run` those
# of the main job (`make run`: build allocbuild, fetch the pinned tarball
# from Debian's archive, build the default recipe in the sandbox), with no
# argument or `all` those of the tests too (`make check`).
#
# The main job: the compiler and libraries allocbuild is built with
# (libgit2, libarchive, libcrypto, cJSON, libcurl, zlib, libbz2 through
# pkg-config); what the default recipe's variants build with (gcc and
# g++: jemalloc's configure builds its C++ operators when it finds one,
# so the archive's bytes depend on it; make, autoconf, cmake for the frag
# benchmark); bubblewrap, the build sandbox every build uses (bwrap:
# docs/build.md, "Sandbox"); dpkg-dev, for `apt-get source` of the
# pinned tarball (scripts/debian-mirror.sh).
#
# The tests add: git, python3, bzip2, xz-utils and zstd, with which they
# make their fixtures; cmark-gfm (pr.md's HTML); ccache; Debian's
# jemalloc and mimalloc packages (the probes' system allocators);
# python3-securesystemslib (with python3-cryptography for its ECDSA keys,
# only a recommendation of it), the tests' independent DSSE verifier.
# cargo, rustc and librust-jemalloc-sys-dev build the Rust fixture offline
# (recipes/rust-jemalloc-tuning.json, t4300). redis-server is the shared
# compile cache of the ccache test (t7340).
# python3-scipy is the reference implementation compare's statistics are
# checked against (mannwhitneyu and bootstrap, t7210); chromium renders
# pr.md's Mermaid charts there, headless, with the mermaid package npm
# fetches (Debian's npm, unless an npm is already installed, as nodejs
# from elsewhere brings one).
# slurm-wlm (slurmctld, slurmd, sbatch) and munge are the single-node
# Slurm cluster, and parallel GNU parallel, that t7370 starts and runs
# docs/scale.md's array job, merge job and parallel run on.
# in-toto (1.3.1: in-toto-verify, on python3-securesystemslib) checks the
# in-toto links `sign` writes against a layout (docs/intoto.md, t8070).
# reprotest builds the default recipe twice under every variation it
# knows (t4130), with faketime (its time variation) and disorderfs (its
# file-ordering variation, on FUSE); diffoscope-minimal explains an
# artifact that `build --check` or `rebuild` finds differing (t4110).
# python3-jsonschema validates the SBOM against CycloneDX's schema (t5510).
# automake and libtool (with autoconf) make gperftools' configure, which
# Debian's google-perftools source (GitHub's archive of the tag) lacks
# (recipes/tcmalloc-glibc-baseline.json, t5250).
# Idempotent: silent and quick when everything is already installed.
# Otherwise quiet: one line naming the packages and the log that gets
# apt's and dpkg's output; the log's last lines only when the install fails.
set -eu

run_pkgs="gcc g++ make pkg-config libgit2-dev libarchive-dev libssl-dev libcjson-dev
libcurl4-openssl-dev zlib1g-dev libbz2-dev autoconf cmake bubblewrap dpkg-dev"
test_pkgs="git python3 bzip2 xz-utils zstd cmark-gfm ccache libjemalloc2 libjemalloc-dev libmimalloc2.0
python3-securesystemslib python3-cryptography cargo rustc librust-jemalloc-sys-dev redis-server
python3-scipy chromium automake libtool
slurm-wlm munge parallel in-toto
reprotest faketime disorderfs diffoscope-minimal python3-jsonschema"

case ${1:-all} in
run) pkgs=$run_pkgs ;;
all)
	pkgs="$run_pkgs $test_pkgs"
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
	;;
*)
	echo "usage: install-deps.sh [run|all]" >&2
	exit 2
	;;
esac

missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

log=$(mktemp "${TMPDIR:-/tmp}/allocbuild-install-deps.XXXXXX.log")
echo "install-deps: installing$missing (apt and dpkg output in $log)" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends $missing; } \
	>"$log" 2>&1 </dev/null; then
	echo "install-deps: the install failed; the last lines of $log:" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
	exit 1
fi
