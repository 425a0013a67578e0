#!/usr/bin/env bash
# the dirHash fetch records for a tree whose file names hold a carriage
# return, a newline or a backslash equals allocbuild hash and sha256sum's.
. "$TOP/tests/lib.sh"
. "$TOP/tests/sources-lib.sh"
umask 022

python3 - <<'PY'
import io, tarfile
with tarfile.open("esc.tar.gz", "w:gz", format=tarfile.PAX_FORMAT) as t:
    for n, data in (("p/plain.txt", b"plain\n"), ("p/cr\rname", b"cr\n"), ("p/nl\nname", b"nl\n"),
                    ("p/back\\slash", b"bs\n"), ("p/d/both\r\\x", b"both\n")):
        i = tarfile.TarInfo(n); i.size = len(data); i.mode = 0o644; i.mtime = 1600000000
        t.addfile(i, io.BytesIO(data))
PY
archive_recipe r.json "$(sha esc.tar.gz)" "file://$PWD/esc.tar.gz"
expect_exit 0 "$AB" fetch --cache c -o o r.json
src=o/variants/v/src
[ -f "$src/cr"$'\r'"name" ] || fail "the file with a carriage return was not written"
got=$(json o/provenance/sources.json 'd["variants"]["v"]["dirHash"]')
expect_exit 0 "$AB" hash "$src"
[ "$(cut -d' ' -f1 out)" = "$got" ] || fail "dirHash $got differs from allocbuild hash $(cat out)"
want=$(cd "$src" && find . -type f -print0 | cut -z -c3- | LC_ALL=C sort -z | xargs -0 -r sha256sum -- | sha256sum | cut -d' ' -f1)
[ "$want" = "$got" ] || fail "dirHash $got differs from sha256sum's $want"
