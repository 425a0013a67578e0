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
environment: inherited minus MALLOC_CONF, LD_PRELOAD, MIMALLOC_*, *_MALLOC_CONF and the toolchain variables (CC, CFLAGS, LDFLAGS, CMAKE_*, ...); LC_ALL=C TZ=UTC; umask 022
compilers: through $O/ccwrap (cc gcc c++ g++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++ ar ranlib -> allocbuild): ALLOCBUILD_CCWRAP_FLAGS added, ar in deterministic mode
[1/11] fetch p: archive sha256 0000000000000000000000000000000000000000000000000000000000000000
      url: https://example.invalid/p-1.0.tar.gz
[2/11] shared: fresh tree of p
      dir: $O/variants/shared/src
[3/11] shared: configure
      run: $O/variants/shared/src/configure
      cwd: $O/variants/shared/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/shared/src=/allocbuild/src -ffile-prefix-map=$O/variants/shared/build=/allocbuild/build
      log: $O/variants/shared/logs/02-configure.log
[4/11] shared: build
      run: make all
      cwd: $O/variants/shared/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/shared/src=/allocbuild/src -ffile-prefix-map=$O/variants/shared/build=/allocbuild/build
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/shared/logs/03-build.log
[5/11] own-makeflags: fresh tree of p
      dir: $O/variants/own-makeflags/src
[6/11] own-makeflags: configure
      run: $O/variants/own-makeflags/src/configure
      cwd: $O/variants/own-makeflags/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/own-makeflags/src=/allocbuild/src -ffile-prefix-map=$O/variants/own-makeflags/build=/allocbuild/build
      env: MAKEFLAGS=CFLAGS=-O0
      log: $O/variants/own-makeflags/logs/02-configure.log
[7/11] own-makeflags: build
      run: make -j1 all
      cwd: $O/variants/own-makeflags/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/own-makeflags/src=/allocbuild/src -ffile-prefix-map=$O/variants/own-makeflags/build=/allocbuild/build
      env: MAKEFLAGS=CFLAGS=-O0
      log: $O/variants/own-makeflags/logs/03-build.log
[8/11] own-level: fresh tree of p
      dir: $O/variants/own-level/src
[9/11] own-level: configure
      run: cmake -S $O/variants/own-level/src -B $O/variants/own-level/build -G 'Unix Makefiles'
      cwd: $O/variants/own-level
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/own-level/src=/allocbuild/src -ffile-prefix-map=$O/variants/own-level/build=/allocbuild/build
      env: CMAKE_BUILD_PARALLEL_LEVEL=3
      log: $O/variants/own-level/logs/02-configure.log
[10/11] own-level: build
      run: cmake --build $O/variants/own-level/build --target prog
      cwd: $O/variants/own-level
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/own-level/src=/allocbuild/src -ffile-prefix-map=$O/variants/own-level/build=/allocbuild/build
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
