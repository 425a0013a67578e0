#!/usr/bin/env bash
# upstream-diff (c): the Fluent-Bit-like tree committed into a git
# repository, read as git:REPO@REV:PATH straight from the object database,
# against the release tarball and against the same tree on disk; plus the
# errors for a missing revision, path, repository.
. "$TOP/tests/lib.sh"

tar xjf "$JEMALLOC_TARBALL"
mv jemalloc-5.3.0 fb
rm fb/VERSION fb/.clang-format fb/doc/jemalloc.3 fb/doc/jemalloc.html
fbhash=$(cd fb && find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -d' ' -f1)

git init -q app
mkdir -p app/lib
cp -a fb app/lib/jemalloc-5.3.0
ln -s jemalloc-5.3.0 app/lib/jemalloc
# -f: jemalloc's own .gitignore would leave out configure
git -C app add -f .
git -C app commit -qm "vendor jemalloc 5.3.0"
git -C app tag v1
commit=$(git -C app rev-parse HEAD)
echo "local change" >>app/lib/jemalloc-5.3.0/README
git -C app commit -qam "touch README"
rm -rf app/lib   # nothing is read from the work tree

expect_exit 0 "$AB" upstream-diff git:app@v1:lib/jemalloc-5.3.0 "$JEMALLOC_TARBALL"
expect_grep "candidate: git:app@v1:lib/jemalloc-5.3.0 (git, commit $commit, tree $(git -C app rev-parse v1:lib/jemalloc-5.3.0)): 466 files, 3864970 bytes, dirHash $fbhash" out
expect_grep "466 files in candidate: 466 identical, 0 differ, 0 only in candidate; 4 only in upstream: .clang-format (metadata), VERSION, doc/jemalloc.3, doc/jemalloc.html (generated)" out
expect_grep "note: candidate has no VERSION file: a build from it reports jemalloc version 0.0.0-0-g000000missing_version_try_git_fetch_tags; by content it is upstream 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c (VERSION of $JEMALLOC_TARBALL)" out

# any revspec; the later commit differs in README (doc: still matches)
expect_exit 0 "$AB" upstream-diff "git:app@HEAD~0:lib/jemalloc-5.3.0" fb
expect_grep "differs            doc        README" out
expect_exit 1 "$AB" upstream-diff --strict --diff "git:app@main:lib/jemalloc-5.3.0" fb
expect_grep "+local change" out
expect_exit 0 "$AB" upstream-diff "git:app@$commit:lib/jemalloc-5.3.0" fb
expect_grep "verdict: identical to upstream" out

# the whole commit: the symlink is a link, never followed
expect_exit 1 "$AB" upstream-diff --json git:app@v1 fb
mv out whole.json
[ "$(json whole.json '[f for f in d["files"] if f["path"] == "lib/jemalloc"][0]["candidate"]')" = "{'type': 'symlink', 'target': 'jemalloc-5.3.0'}" ] || fail "symlink entry"
[ "$(json whole.json 'd["candidate"]["files"]')" = 466 ] || fail "whole files"

# the same tree from an archive made by git archive, with its own top directory
git -C app archive --prefix=jemalloc-5.3.0/ -o ../fb.tar.gz v1:lib/jemalloc-5.3.0
expect_exit 0 "$AB" upstream-diff --json fb.tar.gz git:app@v1:lib/jemalloc-5.3.0
[ "$(json out 'd["candidate"]["digest"]["dirHash"]')" = "$fbhash" ] || fail "archive dirHash"
[ "$(json out 'd["upstream"]["digest"]["dirHash"]')" = "$fbhash" ] || fail "git dirHash"
[ "$(json out 'd["identical"]')" = True ] || fail "identical"

# errors: exit 2, one clear line, nothing on stdout
expect_exit 2 "$AB" upstream-diff git:app@no-such-rev:lib/jemalloc-5.3.0 fb
[ ! -s out ] || fail "stdout written"
expect_file err <<'EOF2'
allocbuild: git:app@no-such-rev:lib/jemalloc-5.3.0: revision 'no-such-rev' not found in 'app'
EOF2
expect_exit 2 "$AB" upstream-diff git:app@v1:lib/jemalloc-9 fb
expect_file err <<'EOF2'
allocbuild: git:app@v1:lib/jemalloc-9: path 'lib/jemalloc-9' not found in revision 'v1'
EOF2
expect_exit 2 "$AB" upstream-diff git:app@v1:lib/jemalloc-5.3.0/README fb
expect_file err <<'EOF2'
allocbuild: git:app@v1:lib/jemalloc-5.3.0/README: path 'lib/jemalloc-5.3.0/README' in revision 'v1' is not a directory
EOF2
mkdir notrepo
expect_exit 2 "$AB" upstream-diff git:notrepo@HEAD fb
expect_grep "allocbuild: git:notrepo@HEAD: cannot open git repository 'notrepo': " err
expect_exit 2 "$AB" upstream-diff git:app fb
expect_file err <<'EOF2'
allocbuild: 'git:app': expected git:REPO@REV[:PATH]
EOF2
