#!/usr/bin/env bash
# identify (d): rank upstreams derived from the real 5.3.0 release for
# candidates that lack VERSION: the release itself, a "5.3.1-like" archive
# (new VERSION and ChangeLog, a few changed sources) and a "dev-like" git
# tree (no release files, more changes, one added and one removed file).
. "$TOP/tests/lib.sh"

tar xjf "$JEMALLOC_TARBALL"
mv jemalloc-5.3.0 r530

# 5.3.1-like, as a .tar.gz with its own top-level directory
cp -a r530 jemalloc-5.3.1
echo 5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8 >jemalloc-5.3.1/VERSION
sed -i '1i * 5.3.1 (June 1, 2025)\n' jemalloc-5.3.1/ChangeLog
echo '/* 5.3.1 */' >>jemalloc-5.3.1/src/arena.c
echo '/* 5.3.1 */' >>jemalloc-5.3.1/src/tcache.c
echo '/* 5.3.1 */' >>jemalloc-5.3.1/include/jemalloc/internal/tcache_structs.h
tar czf up531.tar.gz jemalloc-5.3.1

# dev-like, as a git repository without the files a release generates
git init -q dev
cp -r jemalloc-5.3.1/. dev/
rm dev/VERSION dev/configure dev/doc/jemalloc.3 dev/doc/jemalloc.html
for f in src/extent.c src/hpa.c src/sec.c src/pac.c include/jemalloc/internal/hpa.h; do
	echo '/* dev */' >>"dev/$f"
done
echo 'int dev_only;' >dev/src/dev_only.c
rm dev/src/ticker.py
git -C dev add -f .
git -C dev commit -qm dev

# candidates: the three trees without VERSION, .clang-format and the generated docs
mkcand() { # dir from
	cp -a "$2" "$1"
	rm -f "$1/VERSION" "$1/.clang-format" "$1/doc/jemalloc.3" "$1/doc/jemalloc.html"
}
mkcand c530 r530
mkcand c531 jemalloc-5.3.1
git -C dev archive --prefix=cdev/ HEAD | tar xf -
rm -f cdev/.clang-format

ups=("$JEMALLOC_TARBALL" up531.tar.gz git:dev@main)

expect_exit 0 "$AB" identify c530 "${ups[@]}"
[ ! -s err ] || { cat err; fail "unexpected stderr"; }
sed -n '2,$p' out >body
expect_file body <<EOF2
1. $JEMALLOC_TARBALL (VERSION 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c): 466 of 466 files identical (3864970 of 3864970 bytes), 0 differ, 0 only in candidate, 4 only in upstream
2. up531.tar.gz (VERSION 5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8): 462 of 466 files identical (3693828 of 3864970 bytes), 4 differ, 0 only in candidate, 4 only in upstream [does not match]
3. git:dev@main (no VERSION): 455 of 466 files identical (3166983 of 3864970 bytes), 9 differ, 2 only in candidate, 2 only in upstream [does not match]
best match: $JEMALLOC_TARBALL (VERSION 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c): every candidate file is identical in it
evidence: 466 files in candidate: 466 identical, 0 differ, 0 only in candidate; 4 only in upstream: .clang-format (metadata), VERSION, doc/jemalloc.3, doc/jemalloc.html (generated)
note: candidate has no VERSION file: a build from it reports jemalloc version 0.0.0-0-g000000missing_version_try_git_fetch_tags; by content it is upstream 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c (VERSION of $JEMALLOC_TARBALL)
note: configure it with --with-version=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c to report the real version
EOF2

# the order of the upstreams on the command line does not matter
expect_exit 0 "$AB" identify c531 git:dev@main "$JEMALLOC_TARBALL" up531.tar.gz
grep '^[0-9]\.' out | cut -d' ' -f1,2 >ranking
expect_file ranking <<EOF2
1. up531.tar.gz
2. $JEMALLOC_TARBALL
3. git:dev@main
EOF2
expect_grep "best match: up531.tar.gz (VERSION 5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8): every candidate file is identical in it" out
expect_grep "by content it is upstream 5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8 (VERSION of up531.tar.gz)" out

expect_exit 0 "$AB" identify --json cdev up531.tar.gz "$JEMALLOC_TARBALL" git:dev@main
mv out dev.json
[ "$(json dev.json '[r["upstream"]["spec"] for r in d["ranking"]]')" = "['git:dev@main', 'up531.tar.gz', '$JEMALLOC_TARBALL']" ] || fail "dev ranking"
[ "$(json dev.json 'd["best"]')" = git:dev@main ] || fail "dev best"
[ "$(json dev.json '[r["matches"] for r in d["ranking"]]')" = "[True, False, False]" ] || fail "dev matches"
[ "$(json dev.json 'd["ranking"][0]["notes"][0]')" = "note: candidate has no VERSION file: a build from it reports jemalloc version 0.0.0-0-g000000missing_version_try_git_fetch_tags; by content it matches git:dev@main, which has no usable VERSION either" ] || fail "dev note"

# a local change matches no upstream exactly: say so, exit 1
echo '/* local */' >>c530/src/jemalloc.c
expect_exit 1 "$AB" identify c530 "${ups[@]}"
expect_grep "no upstream matches exactly; the closest is $JEMALLOC_TARBALL (VERSION 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c): 1 significant difference: src/jemalloc.c (source)" out
expect_grep "note: candidate has no VERSION file: a build from it reports jemalloc version 0.0.0-0-g000000missing_version_try_git_fetch_tags; by content it is not $JEMALLOC_TARBALL 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c: 1 significant file differs" out

# two upstreams with the same content cannot be told apart: said plainly
expect_exit 0 "$AB" identify c531 up531.tar.gz jemalloc-5.3.1
expect_grep "note: jemalloc-5.3.1 matches exactly as well as up531.tar.gz: they cannot be told apart by this candidate" out

expect_exit 2 "$AB" identify c531
expect_file err <<'EOF2'
allocbuild: identify: expected CANDIDATE and at least one UPSTREAM
Try 'allocbuild help identify'.
EOF2
expect_exit 2 "$AB" identify c531 up531.tar.gz missing.tar.xz
expect_file err <<'EOF2'
allocbuild: cannot read 'missing.tar.xz': No such file or directory
EOF2
[ ! -s out ] || fail "stdout written"
