#!/usr/bin/env bash
# libgit2 and libarchive are loaded when first used (lib/lazy.h), not at
# start: hash, validate and plan run with both broken; a command that needs one that cannot
# be loaded stops naming the library, why, and the Debian package, exit 2
# (the environment failed), before doing anything. A libcurl that cannot be
# loaded fails that download only, in its context (builder/download.c).
. "$TOP/tests/lib.sh"

soname() { # PKG FILE: as the Makefile finds it
	readelf -d "$(pkg-config --variable=libdir "$1")/$2" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'
}
git2=$(soname libgit2 libgit2.so)
arch=$(soname libarchive libarchive.so)
[ -n "$git2" ] && [ -n "$arch" ] || fail "no SONAME for libgit2 or libarchive"

# a libgit2 that is no library, a libarchive without its functions
mkdir fake
printf 'not a shared library\n' >"fake/$git2"
printf 'int ab_not_libarchive;\n' >empty.c
cc -shared -fPIC -Wl,-soname,"$arch" -o "fake/$arch" empty.c
export LD_LIBRARY_PATH=$PWD/fake

mkdir -p tree/d
printf 'one\n' >tree/a
printf 'two\n' >tree/d/b
expect_exit 0 "$AB" hash tree/a tree
[ ! -s err ] || fail "hash wrote to stderr: $(cat err)"
[ "$(head -n 1 out)" = "$(cd tree && sha256sum a | sed 's| a$| tree/a|')" ] || fail "hash of a file: $(cat out)"

# a command that never reads a repository does not start libgit2, even
# for a recipe with a git source
cat >r.json <<'JSON'
{"recipe": 1, "name": "n",
 "sources": {"s": {"git": {"url": "https://git.example.invalid/x.git", "commit": "0123456789012345678901234567890123456789"}}},
 "variants": [{"label": "a", "source": "s", "build": {"system": "autotools"}}]}
JSON
expect_exit 0 "$AB" validate r.json
[ ! -s err ] || fail "validate wrote to stderr: $(cat err)"
expect_exit 0 "$AB" plan r.json

# one that reads a repository stops at its first libgit2 call
git init -q repo
cp -r tree/. repo/
git -C repo add -A
git -C repo -c user.name=t -c user.email=t@example.invalid commit -q -m one
expect_exit 2 "$AB" upstream-diff tree git:repo@HEAD
[ ! -s out ] || fail "upstream-diff wrote to stdout"
expect_grep "allocbuild: cannot load $git2 (" err
expect_grep "; Debian: apt-get install libgit2-1.5)" err
[ "$(wc -l <err)" = 1 ] || fail "more than one line: $(cat err)"

# the loader starts libgit2 (git_libgit2_init) once loaded, and main ends
# it (git_libgit2_shutdown): a library whose start fails, or that lacks
# either function, is reported so, and one without the end is not started
names=$(sed -n 's/^\t"\(git_[a-z0-9_]*\)",$/\1/p' "$TOP/lib/lazy_git2.c")
[ "$(echo "$names" | wc -l)" -gt 50 ] || fail "no names in lib/lazy_git2.c"
mkdir fakeinit fakenoinit fakenofini
for n in $names; do printf 'int %s(void) { return 0; }\n' "$n"; done >stubs.c
printf 'int git_libgit2_init(void) { return -1; }\n' >init.c
printf '#include <unistd.h>\nint git_libgit2_init(void) { write(2, "started\\n", 8); return 1; }\n' >start.c
printf 'int git_libgit2_shutdown(void) { return 0; }\n' >fini.c
cc -shared -fPIC -Wl,-soname,"$git2" -o "fakeinit/$git2" stubs.c init.c fini.c
cc -shared -fPIC -Wl,-soname,"$git2" -o "fakenoinit/$git2" stubs.c fini.c
cc -shared -fPIC -Wl,-soname,"$git2" -o "fakenofini/$git2" stubs.c start.c
LD_LIBRARY_PATH=$PWD/fakeinit expect_exit 2 "$AB" upstream-diff tree git:repo@HEAD
expect_file err <<EOT
allocbuild: cannot start $git2: git_libgit2_init failed (-1)
EOT
LD_LIBRARY_PATH=$PWD/fakenoinit expect_exit 2 "$AB" upstream-diff tree git:repo@HEAD
expect_file err <<EOT
allocbuild: cannot load $git2: it has no git_libgit2_init (a version other than the one allocbuild was built with?)
EOT
LD_LIBRARY_PATH=$PWD/fakenofini expect_exit 2 "$AB" upstream-diff tree git:repo@HEAD
expect_file err <<EOT
allocbuild: cannot load $git2: it has no git_libgit2_shutdown (a version other than the one allocbuild was built with?)
EOT

# an archive side of upstream-diff needs libarchive; the two sides are read
# in parallel, so the failure comes in a pool's worker, with the other side's
# thread running (one side) or failing too (two archives): one report, exit
# 2 and nothing else, every time
tar -czf up.tar.gz tree
for i in 1 2 3 4 5 6 7 8 9 10; do
	for sides in "tree up.tar.gz" "up.tar.gz up.tar.gz"; do
		# shellcheck disable=SC2086 # two words
		expect_exit 2 "$AB" upstream-diff $sides
		[ ! -s out ] || fail "upstream-diff wrote to stdout: $(cat out)"
		expect_file err <<EOT
allocbuild: cannot load $arch: it has no archive_entry_filetype (a version other than the one allocbuild was built with?)
EOT
	done
done

# libcurl: that download fails, named in its context; the fetch goes on to report
mkdir fakecurl
printf 'short\n' >fakecurl/libcurl.so.4
export LD_LIBRARY_PATH=$PWD/fakecurl
G=$(sha256sum up.tar.gz | cut -c1-64)
cat >a.json <<JSON
{"recipe": 1, "name": "n",
 "sources": {"s": {"archive": {"urls": ["file://$PWD/up.tar.gz"], "sha256": "$G"}}},
 "variants": [{"label": "a", "source": "s", "build": {"system": "autotools"}}]}
JSON
export XDG_CACHE_HOME=$PWD/cache
expect_exit 1 "$AB" fetch -o d a.json
expect_grep "allocbuild: cannot download 'file://$PWD/up.tar.gz': cannot load libcurl.so.4 ($PWD/fakecurl/libcurl.so.4: file too short; Debian: apt-get install libcurl4)" err
expect_grep "allocbuild: source 's': no candidate has sha256 $G (tried the cache, 'file://$PWD/up.tar.gz')" err
[ ! -e d ] || fail "output written"

# with the real libraries all three work
unset LD_LIBRARY_PATH
expect_exit 0 "$AB" upstream-diff tree git:repo@HEAD
expect_exit 0 "$AB" upstream-diff tree up.tar.gz
expect_exit 0 "$AB" fetch -o d a.json
[ "$(cat d/variants/a/src/tree/d/b)" = two ] || fail "fetched tree: $(ls -R d)"
