#!/usr/bin/env bash
# plan: a variant whose build.env sets MAKEFLAGS or CMAKE_BUILD_PARALLEL_LEVEL
# keeps them exactly as written and stays out of the jobserver (so -j cannot
# change what is built): make gets the static -jK, cmake --build no -j; the
# other variant shares the jobserver.
. "$TOP/tests/lib.sh"

cat >r.json <<'JSON'
{"recipe": 1, "name": "mf",
 "sources": {"p": {"archive": {"urls": ["https://example.invalid/p-1.0.tar.gz"], "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}},
 "variants": [
  {"label": "shared", "source": "p", "build": {"system": "autotools", "targets": ["all"]}},
  {"label": "own-makeflags", "source": "p", "build": {"system": "autotools", "targets": ["all"], "env": {"MAKEFLAGS": "CFLAGS=-O0"}}},
  {"label": "own-level", "source": "p", "build": {"system": "cmake", "targets": ["prog"], "env": {"CMAKE_BUILD_PARALLEL_LEVEL": "3"}}}
 ]}
JSON
sha=$(sha256sum r.json | cut -d' ' -f1)
O=$PWD/bo
expect_exit 0 "$AB" plan -j 2 -o bo r.json
expect_file err </dev/null
cat >want <<EOT
recipe mf (r.json, sha256 $sha)
outdir $O
jobs 2: up to 2 variants at once, make-based builds share a jobserver of 2 tokens
sandbox: its own user, mount, network (loopback only), PID, IPC and UTS namespaces (bubblewrap); no capabilities, no terminal; the system read-only, a private /tmp, HOME /allocbuild/home, the variant's trees at /allocbuild/src and /allocbuild/build; the environment PATH, HOME, LC_ALL=C, TZ=UTC and what the recipe sets, nothing inherited
umask 022
compilers: through /allocbuild/ccwrap (cc gcc c++ g++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++ ar ranlib install -> allocbuild): ar in deterministic mode, every compile logged with its object's digest
[1/11] fetch p: archive sha256 0000000000000000000000000000000000000000000000000000000000000000
      url: https://example.invalid/p-1.0.tar.gz
[2/11] shared: fresh tree of p
      dir: $O/variants/shared/src
[3/11] shared: configure
      run: /allocbuild/src/configure
      cwd: /allocbuild/build
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/shared/src
      sandbox: /allocbuild/build = $O/variants/shared/build
      sandbox: /allocbuild/logs = $O/variants/shared/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/shared/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/shared/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/shared/logs/02-configure.log
[4/11] shared: build
      run: make all
      cwd: /allocbuild/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/shared/logs/03-build.log
[5/11] own-makeflags: fresh tree of p
      dir: $O/variants/own-makeflags/src
[6/11] own-makeflags: configure
      run: /allocbuild/src/configure
      cwd: /allocbuild/build
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/own-makeflags/src
      sandbox: /allocbuild/build = $O/variants/own-makeflags/build
      sandbox: /allocbuild/logs = $O/variants/own-makeflags/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/own-makeflags/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/own-makeflags/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=CFLAGS=-O0
      log: $O/variants/own-makeflags/logs/02-configure.log
[7/11] own-makeflags: build
      run: make -j1 all
      cwd: /allocbuild/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=CFLAGS=-O0
      log: $O/variants/own-makeflags/logs/03-build.log
[8/11] own-level: fresh tree of p
      dir: $O/variants/own-level/src
[9/11] own-level: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles'
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/own-level/src
      sandbox: /allocbuild/build = $O/variants/own-level/build
      sandbox: /allocbuild/logs = $O/variants/own-level/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/own-level/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/own-level/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: CMAKE_BUILD_PARALLEL_LEVEL=3
      log: $O/variants/own-level/logs/02-configure.log
[10/11] own-level: build
      run: cmake --build /allocbuild/build --target prog
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: CMAKE_BUILD_PARALLEL_LEVEL=3
      log: $O/variants/own-level/logs/03-build.log
[11/11] write manifests
      $O/recipe.json
      $O/provenance/sources.json
      $O/provenance/build-commands.json
      $O/provenance/cmake-cache-provenance.json
      $O/provenance/binary-provenance.json
      $O/provenance/allocator-probes.json
      $O/provenance/provenance.intoto.json
      $O/SHA256SUMS
EOT
expect_file out <want
