#!/bin/sh
# Fill a local mirror directory with the upstream release bytes that Debian
# ships, so allocbuild and its tests work offline:
#   jemalloc_5.3.0.orig.tar.bz2  byte-identical to jemalloc-5.3.0.tar.bz2
#   mimalloc_2.0.9+ds.orig.tar.xz (Debian's repack of mimalloc v2.0.9)
#   google-perftools_2.10.orig.tar.gz  gperftools 2.10 (tcmalloc): GitHub's
#                                archive of the tag gperftools-2.10 (no
#                                generated configure: autoreconf -fi)
# Each file is stored under its Debian name, under the upstream URL's
# basename where the bytes are identical, and as sha256/<hex>, which is
# what `allocbuild --mirror-dir DIR` looks for. Prints DIR's absolute path.
#
# usage: scripts/debian-mirror.sh DIR
set -eu

dir=${1:?usage: debian-mirror.sh DIR}
mkdir -p "$dir/sha256"
dir=$(cd "$dir" && pwd)

JEMALLOC_SHA=2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa

have() { [ -s "$dir/$1" ]; }

if ! have jemalloc_5.3.0.orig.tar.bz2 || ! have mimalloc_2.0.9+ds.orig.tar.xz || ! have google-perftools_2.10.orig.tar.gz; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo "debian-mirror: adding a deb-src entry for bookworm" >&2
		$sudo tee /etc/apt/sources.list.d/allocbuild-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		$sudo apt-get update -qq >&2
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# apt drops privileges to _apt for the download; give it a writable place
	chmod 777 "$tmp"
	(cd "$tmp" && apt-get source --download-only jemalloc mimalloc google-perftools >/dev/null 2>&1) || {
		(cd "$tmp" && $sudo apt-get update -qq >&2 && apt-get source --download-only jemalloc mimalloc google-perftools >&2)
	}
	for f in jemalloc_5.3.0.orig.tar.bz2 mimalloc_2.0.9+ds.orig.tar.xz google-perftools_2.10.orig.tar.gz; do
		[ -s "$tmp/$f" ] || { echo "debian-mirror: apt-get source did not give $f" >&2; exit 1; }
		cp "$tmp/$f" "$dir/$f.part" && mv "$dir/$f.part" "$dir/$f"
	done
fi

got=$(sha256sum "$dir/jemalloc_5.3.0.orig.tar.bz2" | cut -d' ' -f1)
if [ "$got" != "$JEMALLOC_SHA" ]; then
	echo "debian-mirror: jemalloc_5.3.0.orig.tar.bz2 has sha256 $got, expected $JEMALLOC_SHA" >&2
	exit 1
fi
ln -f "$dir/jemalloc_5.3.0.orig.tar.bz2" "$dir/jemalloc-5.3.0.tar.bz2" 2>/dev/null ||
	cp "$dir/jemalloc_5.3.0.orig.tar.bz2" "$dir/jemalloc-5.3.0.tar.bz2"
for f in jemalloc_5.3.0.orig.tar.bz2 mimalloc_2.0.9+ds.orig.tar.xz google-perftools_2.10.orig.tar.gz; do
	h=$(sha256sum "$dir/$f" | cut -d' ' -f1)
	[ -e "$dir/sha256/$h" ] || ln -f "$dir/$f" "$dir/sha256/$h" 2>/dev/null || cp "$dir/$f" "$dir/sha256/$h"
done
echo "$dir"
