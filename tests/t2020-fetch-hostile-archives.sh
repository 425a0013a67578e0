#!/usr/bin/env bash
# Hostile archives: each is refused with a message naming the archive and
# the member, and leaves nothing behind: no source tree, no variant
# directory, no sources.json, nothing outside the tree.
. "$TOP/tests/lib.sh"

mkdir h
python3 - h <<'PY'
import io, os, stat, sys, tarfile, zipfile
out = sys.argv[1]
def tar(name, members, comp=""):
    with tarfile.open(os.path.join(out, name), "w" + (":" + comp if comp else ""), format=tarfile.GNU_FORMAT) as t:
        d = tarfile.TarInfo("pkg"); d.type = tarfile.DIRTYPE; d.mode = 0o755; t.addfile(d)
        f = tarfile.TarInfo("pkg/ok.txt"); f.size = 3; t.addfile(f, io.BytesIO(b"ok\n"))
        for m in members:
            i = tarfile.TarInfo(m["name"])
            i.type = m.get("type", tarfile.REGTYPE)
            i.mode = m.get("mode", 0o644)
            i.linkname = m.get("link", "")
            data = m.get("data", b"x\n") if i.type == tarfile.REGTYPE else b""
            i.size = len(data)
            if i.type in (tarfile.CHRTYPE, tarfile.BLKTYPE):
                i.devmajor, i.devminor = 1, 3
            t.addfile(i, io.BytesIO(data) if data else None)
def zip_(name, members):
    with zipfile.ZipFile(os.path.join(out, name), "w") as z:
        z.writestr("pkg/ok.txt", b"ok\n")
        for n, data, mode in members:
            i = zipfile.ZipInfo(n); i.create_system = 3; i.external_attr = mode << 16
            z.writestr(i, data)
R, S, L, C, B, F = tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE
tar("h01-absolute.tar", [{"name": "/tmp/allocbuild-evil-abs"}])
tar("h02-dotdot.tar.gz", [{"name": "pkg/../../evil-dotdot"}], "gz")
tar("h03-symlink-absolute.tar", [{"name": "pkg/etc", "type": S, "link": "/etc"}])
tar("h04-symlink-up.tar", [{"name": "pkg/up", "type": S, "link": "../../evil"}])
tar("h05-symlink-deep.tar.bz2", [{"name": "pkg/a/b/up", "type": S, "link": "../../../evil"}], "bz2")
tar("h06-symlink-name-dotdot.tar", [{"name": "pkg/self", "type": S, "link": "."},
                                     {"name": "pkg/x", "type": S, "link": "self/../../evil"}])
tar("h07-through-symlink.tar.xz", [{"name": "pkg/d", "type": S, "link": "."}, {"name": "pkg/d/evil"}], "xz")
tar("h08-hardlink-up.tar", [{"name": "pkg/h", "type": L, "link": "../../etc/passwd"}])
tar("h09-hardlink-absolute.tar", [{"name": "pkg/h", "type": L, "link": "/etc/passwd"}])
tar("h10-hardlink-missing.tar", [{"name": "pkg/h", "type": L, "link": "pkg/missing"}])
tar("h11-chardev.tar", [{"name": "pkg/null", "type": C, "mode": 0o666}])
tar("h12-blockdev.tar", [{"name": "pkg/sda", "type": B, "mode": 0o660}])
tar("h13-fifo.tar", [{"name": "pkg/pipe", "type": F}])
tar("h14-setuid.tar", [{"name": "pkg/su", "mode": 0o4755}])
tar("h15-setgid.tar", [{"name": "pkg/sg", "mode": 0o2755}])
tar("h16-duplicate.tar", [{"name": "pkg/ok.txt", "type": S, "link": "/etc/passwd"}])
zip_("h17-zip-dotdot.zip", [("pkg/../../evil-zip", b"x", 0o100644)])
zip_("h18-zip-absolute.zip", [("/tmp/allocbuild-evil-zip", b"x", 0o100644)])
zip_("h19-zip-symlink.zip", [("pkg/up", b"../../evil", 0o120777)])
# a member where earlier members have a directory (it used to be dropped
# silently: the directory was there), and the reverse orders
D = tarfile.DIRTYPE
tar("h20-file-over-dir.tar", [{"name": "pkg/a/b/c"}, {"name": "pkg/a/b"}])
tar("h21-symlink-over-dir.tar.gz", [{"name": "pkg/a/b/c"}, {"name": "pkg/a/b", "type": S, "link": "c"}], "gz")
tar("h22-hardlink-over-dir.tar", [{"name": "pkg/a/b/c"}, {"name": "pkg/a/b", "type": L, "link": "pkg/ok.txt"}])
tar("h23-through-file.tar", [{"name": "pkg/a/b"}, {"name": "pkg/a/b/c"}])
tar("h24-dir-over-file.tar", [{"name": "pkg/a/b"}, {"name": "pkg/a/b", "type": D, "mode": 0o755}])
zip_("h25-zip-file-over-dir.zip", [("pkg/a/b/c", b"c", 0o100644), ("pkg/a/b", b"b", 0o100644)])
PY

# archive name | the message after "allocbuild: archive 'NAME': "
cat >cases <<'EOF2'
h01-absolute.tar|member '/tmp/allocbuild-evil-abs': absolute path
h02-dotdot.tar.gz|member 'pkg/../../evil-dotdot': '..' in path
h03-symlink-absolute.tar|member 'pkg/etc': symlink to absolute path '/etc'
h04-symlink-up.tar|member 'pkg/up': symlink points outside the tree ('../../evil')
h05-symlink-deep.tar.bz2|member 'pkg/a/b/up': symlink points outside the tree ('../../../evil')
h06-symlink-name-dotdot.tar|member 'pkg/x': symlink points outside the tree ('self/../../evil')
h07-through-symlink.tar.xz|member 'pkg/d/evil': path goes through symlink 'd'
h08-hardlink-up.tar|member 'pkg/h': hard link to '../../etc/passwd' outside the tree
h09-hardlink-absolute.tar|member 'pkg/h': hard link to '/etc/passwd' outside the tree
h10-hardlink-missing.tar|member 'pkg/h': hard link to 'pkg/missing', which is not an earlier file
h11-chardev.tar|member 'pkg/null': device node
h12-blockdev.tar|member 'pkg/sda': device node
h13-fifo.tar|member 'pkg/pipe': fifo
h14-setuid.tar|member 'pkg/su': setuid or setgid bit
h15-setgid.tar|member 'pkg/sg': setuid or setgid bit
h16-duplicate.tar|member 'pkg/ok.txt': duplicate member
h17-zip-dotdot.zip|member 'pkg/../../evil-zip': '..' in path
h18-zip-absolute.zip|member '/tmp/allocbuild-evil-zip': absolute path
h19-zip-symlink.zip|member 'pkg/up': symlink points outside the tree ('../../evil')
h20-file-over-dir.tar|member 'pkg/a/b': earlier members use it as a directory
h21-symlink-over-dir.tar.gz|member 'pkg/a/b': earlier members use it as a directory
h22-hardlink-over-dir.tar|member 'pkg/a/b': earlier members use it as a directory
h23-through-file.tar|member 'pkg/a/b/c': path goes through file 'a/b'
h24-dir-over-file.tar|member 'pkg/a/b/': duplicate member
h25-zip-file-over-dir.zip|member 'pkg/a/b': earlier members use it as a directory
EOF2
[ "$(wc -l <cases)" -ge 25 ] || fail "too few cases"
n=0
while IFS='|' read -r name msg; do
	n=$((n + 1))
	sha=$(sha256sum "h/$name" | cut -d' ' -f1)
	cat >r.json <<JSON
{"recipe": 1, "name": "hostile",
 "sources": {"h": {"archive": {"urls": ["file://$PWD/h/$name"], "sha256": "$sha", "strip": 1}}},
 "variants": [{"label": "v", "source": "h", "build": {"system": "autotools"}}]}
JSON
	expect_exit 1 "$AB" fetch -o "out$n" r.json
	expect_grep "allocbuild: archive '$name': $msg" err
	expect_grep "allocbuild: source 'h': cannot write its tree" err
	[ ! -e "out$n" ] || { find "out$n" >&2; fail "$name left output behind"; }
	# the extraction stayed inside its temporary directory
	[ -z "$(find . -maxdepth 1 -name 'evil*')" ] && [ ! -e ../evil ] && [ ! -e ../evil-dotdot ] ||
		fail "$name escaped"
	[ ! -e /tmp/allocbuild-evil-abs ] && [ ! -e /tmp/allocbuild-evil-zip ] || fail "$name wrote to /tmp"
done <cases
echo "$n hostile archives refused"

# an existing materialization is kept intact when the new archive is hostile
good_sha=$(sha256sum h/h01-absolute.tar | cut -d' ' -f1)
mkdir -p good/pkg && echo fine >good/pkg/f && tar -C good -cf good.tar pkg
sha=$(sha256sum good.tar | cut -d' ' -f1)
sed -i "s|\"urls\": \[[^]]*\], \"sha256\": \"[0-9a-f]*\"|\"urls\": [\"file://$PWD/good.tar\"], \"sha256\": \"$sha\"|" r.json
expect_exit 0 "$AB" fetch -o keep r.json
cp -a keep/variants/v/src before
sed -i "s|\"urls\": \[[^]]*\], \"sha256\": \"[0-9a-f]*\"|\"urls\": [\"file://$PWD/h/h01-absolute.tar\"], \"sha256\": \"$good_sha\"|" r.json
expect_exit 1 "$AB" fetch -o keep r.json
expect_grep "absolute path" err
diff -r before keep/variants/v/src || fail "the earlier tree was changed"
[ -z "$(ls -d keep/variants/v/src.* 2>/dev/null | grep -v 'src.stamp$')" ] || fail "temporaries left"
