#!/usr/bin/env bash
# plan: cmake variants, patches, overlays, prepare commands, relink and
# ccache; usage errors.
. "$TOP/tests/lib.sh"

mkdir patches
echo "--- a/x" >patches/one.patch
cat >r.json <<'JSON'
{
	"recipe": 1,
	"name": "flb",
	"sources": {
		"flb": {"git": {"url": "https://github.com/fluent/fluent-bit", "commit": "6315162a8d4b1ef42b038834e639697f8cb44912"},
			"patches": ["patches/one.patch"],
			"overlay": {"lib/jemalloc-5.3.0": "je"}},
		"je": {"git": {"url": "https://github.com/jemalloc/jemalloc", "commit": "54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"},
			"prepare": [["autoconf"]]}
	},
	"variants": [
		{"label": "a", "source": "flb",
		 "build": {"system": "cmake", "defines": {"FLB_JEMALLOC": "On", "FLB_JEMALLOC_OPTIONS": "--with-lg-quantum=3 --with-version=5.3.0-0-g0"},
			"targets": ["fluent-bit-bin"], "jobs": 3},
		 "artifacts": ["bin/fluent-bit"],
		 "allocator": {"kind": "jemalloc", "archive": "lib/libjemalloc_pic.a"}},
		{"label": "b", "relink": {"from": "a", "link_txt": "src/CMakeFiles/fluent-bit-bin.dir/link.txt",
			"replace": [{"path": "../lib/libjemalloc_pic.a", "with": {"variant": "a", "artifact": "lib/libjemalloc_pic.a"}}],
			"output": "bin/fluent-bit-relinked"}}
	]
}
JSON
O=$PWD/bo
expect_exit 0 "$AB" plan -j 2 --ccache -o bo r.json b
cat >want <<EOT
recipe flb (r.json, sha256 $(sha256sum r.json | cut -d' ' -f1))
outdir $O
jobs 2: up to 1 variant at once, compiling through ccache
sandbox: its own user, mount, network (loopback only), PID, IPC and UTS namespaces (bubblewrap); no capabilities, no terminal; the system read-only, a private /tmp, HOME /allocbuild/home, the variant's trees at /allocbuild/src and /allocbuild/build; the environment PATH, HOME, LC_ALL=C, TZ=UTC and what the recipe sets, nothing inherited
umask 022
compilers: through /allocbuild/ccwrap (cc gcc c++ g++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++ ar ranlib install -> allocbuild): ar in deterministic mode, every compile logged with its object's digest
[1/9] fetch flb: git https://github.com/fluent/fluent-bit 6315162a8d4b1ef42b038834e639697f8cb44912
[2/9] fetch je: git https://github.com/jemalloc/jemalloc 54eaed1d8b56b1aa528be3bdd1877e59c56fa90c
[3/9] a: fresh tree of flb
      dir: $O/variants/a/src
      patch: $PWD/patches/one.patch
      overlay: $O/variants/a/src/lib/jemalloc-5.3.0 <- source je
        prepare: autoconf
          cwd: $O/variants/a/src/lib/jemalloc-5.3.0
[4/9] a: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DFLB_JEMALLOC=On '-DFLB_JEMALLOC_OPTIONS=--with-lg-quantum=3 --with-version=5.3.0-0-g0'
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/a/src
      sandbox: /allocbuild/build = $O/variants/a/build
      sandbox: /allocbuild/logs = $O/variants/a/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/a/logs/compiles.tsv
      sandbox: /allocbuild/logs/ccache-stats.log = $O/variants/a/logs/ccache-stats.log
      sandbox: /allocbuild/probe = $O/variants/a/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      sandbox: /allocbuild/ccache = $PWD/cache/ccache
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/lib/ccache:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: CCACHE_DIR=/allocbuild/ccache
      env: CCACHE_STATSLOG=/allocbuild/logs/ccache-stats.log
      log: $O/variants/a/logs/02-configure.log
[5/9] a: build
      run: cmake --build /allocbuild/build --target fluent-bit-bin -j 3
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/lib/ccache:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: CCACHE_DIR=/allocbuild/ccache
      env: CCACHE_STATSLOG=/allocbuild/logs/ccache-stats.log
      log: $O/variants/a/logs/03-build.log
[6/9] b: relink
      link.txt: $O/variants/a/build/src/CMakeFiles/fluent-bit-bin.dir/link.txt
      replace: ../lib/libjemalloc_pic.a <- a:lib/libjemalloc_pic.a
      output: $O/variants/a/build/bin/fluent-bit-relinked
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/build = $O/variants/a/build
      sandbox: /allocbuild/logs = $O/variants/b/logs (read-only)
      sandbox: /allocbuild/probe = $O/variants/b/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      sandbox: /allocbuild/ccache = $PWD/cache/ccache
      log: $O/variants/b/logs/01-relink.log
[7/9] a: probe jemalloc
      artifact: $O/variants/a/build/bin/fluent-bit
      artifact: $O/variants/a/build/lib/libjemalloc_pic.a
[8/9] b: probe jemalloc
      artifact: $O/variants/a/build/bin/fluent-bit-relinked
[9/9] write manifests
      $O/recipe.json
      $O/provenance/sources.json
      $O/provenance/build-commands.json
      $O/provenance/cmake-cache-provenance.json
      $O/provenance/binary-provenance.json
      $O/provenance/allocator-probes.json
      $O/provenance/relink-provenance.json
      $O/provenance/provenance.intoto.json
      $O/SHA256SUMS
EOT
expect_file out <want

# a shared compile cache: the local cache and the remote storage in every step, the password never shown
expect_exit 0 "$AB" plan -j 2 --ccache-dir cc --ccache-remote 'redis://user:s3cret@127.0.0.1:6379|connect-timeout=50' -o bo r.json a
sed -n 3,4p out >got
cat >want <<EOT
jobs 2: up to 1 variant at once, compiling through ccache
ccache: local cache $PWD/cc, remote storage redis://***@127.0.0.1:6379|connect-timeout=50
EOT
expect_file got <want
# in the sandbox: the local cache bound at a fixed path, the remote reached through a forwarded loopback port
expect_grep "      sandbox: /allocbuild/ccache = $PWD/cc" out
grep -q "^      sandbox: /allocbuild/net = /tmp/allocbuild-net\.[0-9]*\.0$" out || fail "no forwarding socket directory"
[ "$(grep -cxF "      env: CCACHE_DIR=/allocbuild/ccache" out)" = 2 ] || fail "CCACHE_DIR not in both steps"
# without the credentials: the relay outside adds them (issue 44, H4)
[ "$(grep -cxF "      env: CCACHE_REMOTE_STORAGE=redis://127.0.0.1:40000|connect-timeout=50" out)" = 2 ] ||
	fail "CCACHE_REMOTE_STORAGE not in both steps"
# without the sandbox: the caller's paths and the remote as given
expect_exit 0 "$AB" plan -j 2 --no-sandbox --ccache-dir cc --ccache-remote 'redis://user:s3cret@127.0.0.1:6379|connect-timeout=50' -o bo r.json a
[ "$(grep -cxF "      env: CCACHE_DIR=$PWD/cc" out)" = 2 ] || fail "CCACHE_DIR not in both steps"
[ "$(grep -cxF "      env: CCACHE_REMOTE_STORAGE=redis://***@127.0.0.1:6379|connect-timeout=50" out)" = 2 ] ||
	fail "CCACHE_REMOTE_STORAGE not in both steps"
expect_no_grep "sandbox:" out
expect_no_grep s3cret out
expect_exit 0 "$AB" plan --ccache-remote redis://s3cret@cache.example:6379 -o bo r.json a
expect_grep "remote storage redis://***@cache.example:6379" out
expect_no_grep s3cret out
expect_exit 0 "$AB" plan --ccache-remote http://cache.example:8080/ccache -o bo r.json a
grep -qxF "ccache: local cache (ccache's own), remote storage http://cache.example:8080/ccache" out || fail "http remote"
expect_exit 2 "$AB" plan --ccache-remote https://cache.example/ccache r.json
cat <<EOT | expect_file err
allocbuild: plan: --ccache-remote 'https://cache.example/ccache': https is not supported: Debian 12's ccache 4.7 speaks plain http only
Try 'allocbuild help plan'.
EOT
expect_exit 2 "$AB" plan --ccache-remote memcached://cache.example r.json
expect_grep "plan: --ccache-remote 'memcached://cache.example': not a remote storage ccache knows" err
expect_exit 2 "$AB" plan --ccache-remote redis:// r.json
expect_grep "plan: --ccache-remote 'redis://': nothing after 'redis://'" err
expect_exit 2 "$AB" plan --ccache-dir '' r.json
expect_grep "plan: --ccache-dir: an empty directory name" err

# ninja has no jobserver client: the Ninja generator keeps the static -j
sed -e 's/"system": "cmake",/"system": "cmake", "generator": "Ninja",/' -e 's/, "jobs": 3//' r.json >ninja.json
expect_exit 0 "$AB" plan -j 4 -o bo ninja.json a
expect_grep "jobs 4: up to 1 variant at once" out
expect_grep "      run: cmake --build /allocbuild/build --target fluent-bit-bin -j 4" out
expect_no_grep MAKEFLAGS out
expect_no_grep "jobserver:" out
expect_no_grep "share a jobserver" out

expect_exit 2 "$AB" plan
cat <<EOT | expect_file err
allocbuild: plan: missing recipe
Try 'allocbuild help plan'.
EOT
expect_exit 2 "$AB" plan -j 0 r.json
cat <<EOT | expect_file err
allocbuild: plan: invalid job count '0'
Try 'allocbuild help plan'.
EOT
expect_exit 2 "$AB" plan --frobnicate r.json
cat <<EOT | expect_file err
allocbuild: plan: unknown option '--frobnicate'
Try 'allocbuild help plan'.
EOT
expect_exit 2 "$AB" plan r.json nosuch
expect_grep "nosuch" err
expect_file out </dev/null
