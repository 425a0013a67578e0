#!/usr/bin/env bash
# upstream-diff (a): a tree made like Fluent Bit's lib/jemalloc-5.3.0 (the
# 5.3.0 release tarball minus VERSION, .clang-format, doc/jemalloc.3 and
# doc/jemalloc.html) against the real release tarball.
. "$TOP/tests/lib.sh"

tar xjf "$JEMALLOC_TARBALL"
mv jemalloc-5.3.0 fb
rm fb/VERSION fb/.clang-format fb/doc/jemalloc.3 fb/doc/jemalloc.html
dirhash() { (cd "$1" && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1); }
fbhash=$(dirhash fb)
tar xjf "$JEMALLOC_TARBALL"
uphash=$(dirhash jemalloc-5.3.0)

expect_exit 0 "$AB" upstream-diff fb "$JEMALLOC_TARBALL"
[ ! -s err ] || { cat err; fail "unexpected stderr"; }
expect_file out <<EOF2
candidate: fb (directory): 466 files, 3864970 bytes, dirHash $fbhash
upstream:  $JEMALLOC_TARBALL (archive, sha256 $JEMALLOC_SHA, 1 component stripped): 470 files, 4147052 bytes, dirHash $uphash

only in upstream   metadata   .clang-format
only in upstream   generated  VERSION
only in upstream   generated  doc/jemalloc.3
only in upstream   generated  doc/jemalloc.html

class      identical  differ only in candidate only in upstream
source            66       0                 0                0
header           124       0                 0                0
template          17       0                 0                0
build             34       0                 0                0
test             209       0                 0                0
doc                9       0                 0                0
metadata           6       0                 0                1
generated          1       0                 0                3

466 files in candidate: 466 identical, 0 differ, 0 only in candidate; 4 only in upstream: .clang-format (metadata), VERSION, doc/jemalloc.3, doc/jemalloc.html (generated)
verdict: matches upstream: no source, header, template or build file differs or is extra
note: candidate has no VERSION file: a build from it reports jemalloc version 0.0.0-0-g000000missing_version_try_git_fetch_tags; by content it is upstream 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c (VERSION of $JEMALLOC_TARBALL)
note: configure it with --with-version=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c to report the real version
EOF2

# the dirHash of each side is `allocbuild hash` of the tree on disk
expect_exit 0 "$AB" hash fb jemalloc-5.3.0
expect_file out <<EOF2
$fbhash  fb
$uphash  jemalloc-5.3.0
EOF2

# the same as JSON: the per-file table and the summary
expect_exit 0 "$AB" upstream-diff --json fb "$JEMALLOC_TARBALL"
mv out report.json
[ "$(json report.json 'd["matches"]')" = True ] || fail "matches"
[ "$(json report.json 'd["identical"]')" = False ] || fail "identical"
[ "$(json report.json 'd["summary"]')" = "466 files in candidate: 466 identical, 0 differ, 0 only in candidate; 4 only in upstream: .clang-format (metadata), VERSION, doc/jemalloc.3, doc/jemalloc.html (generated)" ] || fail "summary"
[ "$(json report.json 'len(d["files"])')" = 470 ] || fail "files"
[ "$(json report.json 'd["candidate"]["digest"]["dirHash"]')" = "$fbhash" ] || fail "candidate dirHash"
[ "$(json report.json 'd["upstream"]["digest"]["dirHash"]')" = "$uphash" ] || fail "upstream dirHash"
[ "$(json report.json 'd["upstream"]["archive_sha256"]')" = "$JEMALLOC_SHA" ] || fail "archive sha256"
[ "$(json report.json 'd["upstream"]["version"]')" = "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c" ] || fail "upstream version"
[ "$(json report.json 'd["candidate"]["version"]')" = None ] || fail "candidate version"
[ "$(json report.json '[f for f in d["files"] if f["path"]=="VERSION"][0]')" = "{'path': 'VERSION', 'status': 'only-in-upstream', 'class': 'generated', 'significant': False, 'candidate': None, 'upstream': {'type': 'file', 'size': 50, 'sha256': '$(tar xjOf "$JEMALLOC_TARBALL" jemalloc-5.3.0/VERSION | sha256sum | cut -d' ' -f1)'}}" ] || fail "VERSION entry"
[ "$(json report.json 'd["classes"]["generated"]')" = "{'identical': 1, 'differ': 0, 'only_in_candidate': 0, 'only_in_upstream': 3}" ] || fail "classes"
[ "$(json report.json 'len(d["notes"])')" = 2 ] || fail "notes"

# --strict: any difference fails, with the same summary
expect_exit 1 "$AB" upstream-diff --strict fb "$JEMALLOC_TARBALL"
expect_grep "verdict: differs from upstream (--strict): 4 significant differences: .clang-format (metadata), VERSION (generated), doc/jemalloc.3 (generated), doc/jemalloc.html (generated)" out

# the other way round and the extracted tree: identical
expect_exit 0 "$AB" upstream-diff jemalloc-5.3.0 "$JEMALLOC_TARBALL"
expect_grep "470 files in candidate: 470 identical, 0 differ, 0 only in candidate; 0 only in upstream" out
expect_grep "verdict: identical to upstream" out
expect_no_grep "note:" out
expect_exit 0 "$AB" upstream-diff "$JEMALLOC_TARBALL" fb
expect_grep "470 files in candidate: 466 identical, 0 differ, 4 only in candidate; 0 only in upstream" out
expect_exit 1 "$AB" upstream-diff --strict "$JEMALLOC_TARBALL" fb

# a VERSION holding configure's bogus version is called out too
echo 0.0.0-0-g000000missing_version_try_git_fetch_tags >fb/VERSION
expect_exit 1 "$AB" upstream-diff fb "$JEMALLOC_TARBALL"
expect_grep "differs            generated  VERSION" out
expect_grep "verdict: differs from upstream: 1 significant difference: VERSION (generated)" out
expect_grep "note: candidate's VERSION holds the bogus version 0.0.0-0-g000000missing_version_try_git_fetch_tags, which a build from it reports; by content it is upstream 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c (VERSION of $JEMALLOC_TARBALL)" out

# --strip 0 keeps the top-level directory: nothing matches by path
expect_exit 1 "$AB" upstream-diff --strip 0 fb "$JEMALLOC_TARBALL"
expect_grep "467 files in candidate: 0 identical, 0 differ, 467 only in candidate; 470 only in upstream: jemalloc-5.3.0/.appveyor.yml" out
