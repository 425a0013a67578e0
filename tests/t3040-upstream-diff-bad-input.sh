#!/usr/bin/env bash
# upstream-diff: bad input. Hostile archive members (same rules as
# extraction for fetch), missing paths, unreadable files and directories, truncated
# and non-archives, symlinks never followed, a huge file streamed in
# constant memory, usage errors: one clear message, exit 2, nothing on stdout.
. "$TOP/tests/lib.sh"

mkdir tree
echo 'int x;' >tree/a.c

no_stdout() { [ ! -s out ] || { cat out; fail "stdout written"; }; }

# hostile archives: every member extraction for fetch refuses (lib/member.c),
# refused with its words, naming the archive and the member
python3 - <<'PY'
import io, tarfile
def mk(name, members):
    with tarfile.open(name, "w", format=tarfile.GNU_FORMAT) as t:
        for m, kind, arg, *mode in members:
            ti = tarfile.TarInfo(m)
            ti.mode = mode[0] if mode else 0o644
            if kind == "file":
                ti.size = len(arg)
                t.addfile(ti, io.BytesIO(arg))
                continue
            if kind == "dir":
                ti.type = tarfile.DIRTYPE
            elif kind == "link":
                ti.type = tarfile.LNKTYPE
                ti.linkname = arg
            elif kind == "sym":
                ti.type = tarfile.SYMTYPE
                ti.linkname = arg
            elif kind == "chr":
                ti.type = tarfile.CHRTYPE
                ti.devmajor, ti.devminor = 1, 3
            elif kind == "blk":
                ti.type = tarfile.BLKTYPE
                ti.devmajor, ti.devminor = 8, 0
            elif kind == "fifo":
                ti.type = tarfile.FIFOTYPE
            t.addfile(ti)
A = ("top/a.c", "file", b"int x;\n")
mk("dotdot.tar", [A, ("top/../../evil.c", "file", b"x")])
mk("abs.tar", [("/etc/evil.c", "file", b"x")])
mk("hardlink.tar", [A, ("top/b.c", "link", "../../etc/passwd")])
mk("hardlink-later.tar", [("top/b.c", "link", "top/a.c"), A])
mk("hardlink-symlink.tar", [A, ("top/s", "sym", "a.c"), ("top/b.c", "link", "top/s")])
mk("through.tar", [("top/sub", "dir", None, 0o755), ("top/etc", "sym", "sub"), ("top/etc/passwd", "file", b"x\n")])
mk("through-file.tar", [A, ("top/a.c/x", "file", b"x\n")])
mk("symlink-abs.tar", [A, ("top/etc", "sym", "/etc")])
mk("symlink-out.tar", [A, ("top/sub/up", "sym", "../../../etc")])
mk("symlink-empty.tar", [A, ("top/nothing", "sym", "")])
mk("chr.tar", [A, ("top/null", "chr", None)])
mk("blk.tar", [A, ("top/sda", "blk", None)])
mk("fifo.tar", [A, ("top/pipe", "fifo", None)])
mk("setuid.tar", [A, ("top/run", "file", b"#!/bin/sh\n", 0o4755)])
mk("setgid.tar", [("top/shared", "dir", None, 0o2775), A])
mk("dup.tar", [A, ("top/a.c", "file", b"int y;\n")])
mk("dup-dir.tar", [("top/a.c", "dir", None, 0o755), A])
mk("noname.tar", [("", "file", b"x")])
# a member where earlier members have a directory, and the reverse order
mk("over-dir.tar", [A, ("top/d/x.c", "file", b"x\n"), ("top/d", "file", b"d\n")])
mk("over-dir-symlink.tar", [A, ("top/d/x.c", "file", b"x\n"), ("top/d", "sym", "x.c")])
mk("over-dir-hardlink.tar", [A, ("top/d/x.c", "file", b"x\n"), ("top/d", "link", "top/a.c")])
mk("dir-over-file.tar", [A, ("top/a.c", "dir", None, 0o755)])
mk("ok.tar", [("top/sub", "dir", None, 0o755), ("top/sub", "dir", None, 0o755), A,
              ("top/b.c", "link", "top/a.c"), ("top/sub/up", "sym", "../a.c")])
mk("stripped.tar", [("top/l", "sym", "/etc"), ("top/d/a.c", "file", b"int x;\n")])
PY
hostile() {
	expect_exit 2 "$AB" upstream-diff tree "$1"
	no_stdout
	echo "allocbuild: archive '$1': $2" | expect_file err
}
hostile dotdot.tar "member 'top/../../evil.c': '..' in path"
hostile abs.tar "member '/etc/evil.c': absolute path"
hostile hardlink.tar "member 'top/b.c': hard link to '../../etc/passwd' outside the tree"
hostile hardlink-later.tar "member 'top/b.c': hard link to 'top/a.c', which is not an earlier file"
hostile hardlink-symlink.tar "member 'top/b.c': hard link to 'top/s', which is not an earlier file"
# the symlink as extraction names it: after the strip
hostile through.tar "member 'top/etc/passwd': path goes through symlink 'etc'"
hostile through-file.tar "member 'top/a.c/x': path goes through file 'a.c'"
hostile symlink-abs.tar "member 'top/etc': symlink to absolute path '/etc'"
hostile symlink-out.tar "member 'top/sub/up': symlink points outside the tree ('../../../etc')"
hostile symlink-empty.tar "member 'top/nothing': symlink without a target"
hostile chr.tar "member 'top/null': device node"
hostile blk.tar "member 'top/sda': device node"
hostile fifo.tar "member 'top/pipe': fifo"
hostile setuid.tar "member 'top/run': setuid or setgid bit"
hostile setgid.tar "member 'top/shared/': setuid or setgid bit"
hostile dup.tar "member 'top/a.c': duplicate member"
hostile dup-dir.tar "member 'top/a.c': duplicate member"
hostile noname.tar "a member has no name"
hostile over-dir.tar "member 'top/d': earlier members use it as a directory"
hostile over-dir-symlink.tar "member 'top/d': earlier members use it as a directory"
hostile over-dir-hardlink.tar "member 'top/d': earlier members use it as a directory"
hostile dir-over-file.tar "member 'top/a.c/': duplicate member"
# either side, and identify too
expect_exit 2 "$AB" upstream-diff fifo.tar tree
no_stdout
echo "allocbuild: archive 'fifo.tar': member 'top/pipe': fifo" | expect_file err
expect_exit 2 "$AB" identify tree ok.tar setuid.tar
no_stdout
echo "allocbuild: archive 'setuid.tar': member 'top/run': setuid or setgid bit" | expect_file err
# a directory may repeat; a hard link has the content it names; a relative
# symlink inside the tree is compared as a link
expect_exit 0 "$AB" upstream-diff --diff tree ok.tar
expect_grep "upstream:  ok.tar (archive, sha256 $(sha256sum ok.tar | cut -d' ' -f1), 1 component stripped): 2 files and 1 symlink or special file, 14 bytes, dirHash " out
expect_grep "1 file in candidate: 1 identical, 0 differ, 0 only in candidate; 2 only in upstream: b.c (source), sub/up (other)" out
# members with nothing left after the strip are skipped, as extraction skips them
expect_exit 0 "$AB" upstream-diff --strip 2 stripped.tar tree
expect_grep "verdict: identical to upstream" out

# missing paths, not an archive, a truncated archive
expect_exit 2 "$AB" upstream-diff tree no-such-dir
no_stdout
expect_file err <<'EOF2'
allocbuild: cannot read 'no-such-dir': No such file or directory
EOF2
echo "just text" >notes.txt
expect_exit 2 "$AB" upstream-diff tree notes.txt
expect_file err <<'EOF2'
allocbuild: cannot read archive 'notes.txt': Unrecognized archive format
EOF2
# a damaged zip for which libarchive gives no message (found by fuzz_tree)
cp "$TOP/tests/fuzz/corpus/tree/zip-huge-size.zip" damaged.zip
expect_exit 2 "$AB" upstream-diff damaged.zip tree
no_stdout
expect_file err <<'EOF2'
allocbuild: cannot read archive 'damaged.zip': damaged archive
EOF2
head -c 100000 "$JEMALLOC_TARBALL" >truncated.tar.bz2
expect_exit 2 "$AB" upstream-diff truncated.tar.bz2 tree
no_stdout
expect_grep "allocbuild: cannot read archive 'truncated.tar.bz2': " err

# unreadable file and directory (as an unprivileged user when run as root)
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}
mkdir -p locked/sub
echo 'int y;' >locked/b.c
echo 'int z;' >locked/sub/c.c
chmod -R a+rX . 2>/dev/null || true
chmod 000 locked/b.c
expect_exit 2 as_user "$AB" upstream-diff locked tree
no_stdout
expect_file err <<'EOF2'
allocbuild: cannot open 'locked/b.c': Permission denied
EOF2
chmod 644 locked/b.c
chmod 000 locked/sub
expect_exit 2 as_user "$AB" upstream-diff tree locked
expect_file err <<'EOF2'
allocbuild: cannot open directory 'locked/sub': Permission denied
EOF2
chmod 755 locked/sub

# symlinks are compared as links and never followed, even to directories
mkdir links
echo 'int x;' >links/a.c
ln -s /etc links/etc
ln -s a.c links/alias.c
expect_exit 1 "$AB" upstream-diff --json links tree
[ "$(json out '[(f["path"], f["status"], f["candidate"]["type"]) for f in d["files"] if f["candidate"]]')" = \
  "[('a.c', 'identical', 'file'), ('alias.c', 'only-in-candidate', 'symlink'), ('etc', 'only-in-candidate', 'symlink')]" ] || fail "symlinks"
[ "$(json out 'd["candidate"]["files"]')" = 1 ] || fail "symlinks are not files"
rm links/alias.c && cp links/a.c links/alias.c
mkdir links2 && echo 'int x;' >links2/a.c && ln -s /etc links2/etc && ln -s a.c links2/alias.c
expect_exit 1 "$AB" upstream-diff links links2
expect_grep "differs            source     alias.c (regular file in candidate, symbolic link in upstream)" out

# a huge file is hashed while it is read, in constant memory; --diff does not load it
mkdir big1 big2
truncate -s 300M big1/blob.bin big2/blob.bin
printf x | dd of=big2/blob.bin bs=1 seek=$((300 * 1024 * 1024 - 1)) conv=notrunc status=none
tar -S -cf big.tar -C big1 blob.bin
# maxrss CODE CMD...: like expect_exit, and the peak RSS in KiB in ./rss
maxrss() {
	local want=$1
	shift
	python3 -c '
import resource, subprocess, sys
with open("out", "w") as o, open("err", "w") as e:
    rc = subprocess.run(sys.argv[2:], stdout=o, stderr=e).returncode
open("rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(0 if rc == int(sys.argv[1]) else 1)' "$want" "$@" || { cat out err; fail "expected exit $want: $*"; }
}
maxrss 1 "$AB" upstream-diff --strict --diff big1 big2
expect_grep "Files upstream/blob.bin and candidate/blob.bin differ (too large to diff: 314572800 and 314572800 bytes)" out
[ "$(cat rss)" -lt 65536 ] || fail "huge files took $(cat rss) KiB"
maxrss 0 "$AB" upstream-diff big.tar big1
expect_grep "verdict: identical to upstream" out
[ "$(cat rss)" -lt 65536 ] || fail "huge archive member took $(cat rss) KiB"

# usage errors
expect_exit 2 "$AB" upstream-diff tree
expect_file err <<'EOF2'
allocbuild: upstream-diff: expected CANDIDATE and UPSTREAM
Try 'allocbuild help upstream-diff'.
EOF2
expect_exit 2 "$AB" upstream-diff --strip x tree tree
expect_file err <<'EOF2'
allocbuild: upstream-diff: --strip: expected a number of components, got 'x'
Try 'allocbuild help upstream-diff'.
EOF2
# -j is parsed as by every command: 1 to 1024, the same message
for bad in 0 x 1025; do
	expect_exit 2 "$AB" upstream-diff -j "$bad" tree tree
	expect_file err <<EOF2
allocbuild: upstream-diff: invalid job count '$bad'
Try 'allocbuild help upstream-diff'.
EOF2
	expect_exit 2 "$AB" identify -j "$bad" tree tree
	expect_file err <<EOF2
allocbuild: identify: invalid job count '$bad'
Try 'allocbuild help identify'.
EOF2
done
# a count that would wrap around as an int is refused, not read as 1
expect_exit 2 "$AB" identify --strip 4294967296 tree tree
expect_file err <<'EOF2'
allocbuild: identify: --strip: expected a number of components, got '4294967296'
Try 'allocbuild help identify'.
EOF2
expect_exit 2 "$AB" upstream-diff --frobnicate tree tree
expect_file err <<'EOF2'
allocbuild: upstream-diff: unknown option '--frobnicate'
Try 'allocbuild help upstream-diff'.
EOF2

# an empty candidate: nothing differs or is extra, but the verdict says what is missing
mkdir empty
expect_exit 0 "$AB" upstream-diff empty tree
expect_grep "0 files in candidate: 0 identical, 0 differ, 0 only in candidate; 1 only in upstream: a.c (source)" out
expect_grep "verdict: matches upstream: no source, header, template or build file differs or is extra (but 1 of them is missing from the candidate)" out
expect_exit 1 "$AB" upstream-diff --strict empty tree

# a sparse member whose holes would take minutes to hash is refused
mkdir huge
truncate -s 17G huge/holes.bin
tar -S -cf huge.tar -C huge holes.bin
rm -rf huge
expect_exit 2 "$AB" upstream-diff huge.tar tree
no_stdout
expect_file err <<'EOF2'
allocbuild: archive 'huge.tar': member 'holes.bin': sparse holes larger than 16 GiB
EOF2
