#!/bin/sh
# Install the Debian packages allocbuild needs to build, test and run.
# python3-securesystemslib (with python3-cryptography for its ECDSA keys,
# only a recommendation of it) is the tests' independent DSSE verifier.
# Idempotent: silent and quick when everything is already installed.
set -eu

pkgs="gcc g++ make pkg-config libgit2-dev libarchive-dev libssl-dev libcjson-dev
libcurl4-openssl-dev cmake autoconf git python3 bzip2 xz-utils zstd dpkg-dev
cmark-gfm ccache libbz2-dev libjemalloc2 libjemalloc-dev libmimalloc2.0
python3-securesystemslib python3-cryptography"

missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
