#!/usr/bin/env bash
# The shipped Fluent Bit campaign (issue 6) validates and plans exactly:
# the pinned v5.1.1 commit twice (one tree overlaid by jemalloc 5.3.1), the
# 5.3.0 release tarball, three cmake builds with their FLB_JEMALLOC_OPTIONS,
# the relink of fb-je531 with fb-je530's archive, every binary probed with
# -h (fluent-bit without arguments runs until stopped) and the runtime-only
# variant probed through its base. Tests cannot download Fluent Bit, so the
# build itself is checked by hand (docs/relink.md).
. "$TOP/tests/lib.sh"

cp "$TOP/recipes/fluent-bit-allocator-compare.json" r.json
sha=$(sha256sum r.json | cut -d' ' -f1)
O=$PWD/bo
expect_exit 0 "$AB" validate r.json
expect_file out <<EOT
r.json: recipe 'fluent-bit-allocator-compare': 4 sources, 5 variants (3 builds, 1 relink, 1 runtime)
EOT
expect_exit 0 "$AB" plan -j 2 -o bo r.json
expect_file err </dev/null
[ ! -e bo ] || fail "plan created the OUTDIR"
cat >want <<EOT
recipe fluent-bit-allocator-compare (r.json, sha256 $sha)
outdir $O
jobs 2: up to 2 variants at once, make-based builds share a jobserver of 2 tokens
sandbox: its own user, mount, network (loopback only), PID, IPC and UTS namespaces (bubblewrap); no capabilities, no terminal; the system read-only, a private /tmp, HOME /allocbuild/home, the variant's trees at /allocbuild/src and /allocbuild/build; the environment PATH, HOME, LC_ALL=C, TZ=UTC and what the recipe sets, nothing inherited
umask 022
compilers: through /allocbuild/ccwrap (cc gcc c++ g++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++ ar ranlib install -> allocbuild): ar in deterministic mode, every compile logged with its object's digest
[1/25] fetch fluent-bit: git https://github.com/fluent/fluent-bit.git 6315162a8d4b1ef42b038834e639697f8cb44912
[2/25] fetch jemalloc-5.3.0: archive sha256 2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa strip 1
      url: https://github.com/jemalloc/jemalloc/releases/download/5.3.0/jemalloc-5.3.0.tar.bz2
[3/25] fetch fluent-bit-je531: git https://github.com/fluent/fluent-bit.git 6315162a8d4b1ef42b038834e639697f8cb44912
[4/25] fetch jemalloc-5.3.1: git https://github.com/jemalloc/jemalloc.git 81034ce1f1373e37dc865038e1bc8eeecf559ce8
[5/25] upstream tree of jemalloc-5.3.0
      dir: $O/upstream/jemalloc-5.3.0
[6/25] upstream tree of jemalloc-5.3.1
      dir: $O/upstream/jemalloc-5.3.1
      prepare: autoconf
        cwd: $O/upstream/jemalloc-5.3.1
[7/25] fb-je530: fresh tree of fluent-bit
      dir: $O/variants/fb-je530/src
[8/25] fb-je530: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DFLB_RELEASE=On -DFLB_JEMALLOC=On '-DFLB_JEMALLOC_OPTIONS=--with-lg-quantum=3 --with-version=5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c'
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/fb-je530/src
      sandbox: /allocbuild/build = $O/variants/fb-je530/build
      sandbox: /allocbuild/logs = $O/variants/fb-je530/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/fb-je530/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/fb-je530/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/fb-je530/logs/02-configure.log
[9/25] fb-je530: build
      run: cmake --build /allocbuild/build --target fluent-bit-bin
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      unset: CMAKE_BUILD_PARALLEL_LEVEL
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/fb-je530/logs/03-build.log
[10/25] fb-je531: fresh tree of fluent-bit-je531
      dir: $O/variants/fb-je531/src
      overlay: $O/variants/fb-je531/src/lib/jemalloc-5.3.0 <- source jemalloc-5.3.1
        prepare: autoconf
          cwd: $O/variants/fb-je531/src/lib/jemalloc-5.3.0
[11/25] fb-je531: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DFLB_RELEASE=On -DFLB_JEMALLOC=On '-DFLB_JEMALLOC_OPTIONS=--with-lg-quantum=3 --with-version=5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8'
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/fb-je531/src
      sandbox: /allocbuild/build = $O/variants/fb-je531/build
      sandbox: /allocbuild/logs = $O/variants/fb-je531/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/fb-je531/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/fb-je531/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/fb-je531/logs/02-configure.log
[12/25] fb-je531: build
      run: cmake --build /allocbuild/build --target fluent-bit-bin
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      unset: CMAKE_BUILD_PARALLEL_LEVEL
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/fb-je531/logs/03-build.log
[13/25] fb-je531-special: fresh tree of fluent-bit-je531
      dir: $O/variants/fb-je531-special/src
      overlay: $O/variants/fb-je531-special/src/lib/jemalloc-5.3.0 <- source jemalloc-5.3.1
        prepare: autoconf
          cwd: $O/variants/fb-je531-special/src/lib/jemalloc-5.3.0
[14/25] fb-je531-special: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DFLB_RELEASE=On -DFLB_JEMALLOC=On '-DFLB_JEMALLOC_OPTIONS=--with-lg-quantum=3 --with-malloc-conf=disable_large_size_classes:false,lg_extent_max_active_fit:30 --with-version=5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8'
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/fb-je531-special/src
      sandbox: /allocbuild/build = $O/variants/fb-je531-special/build
      sandbox: /allocbuild/logs = $O/variants/fb-je531-special/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/fb-je531-special/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/fb-je531-special/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/fb-je531-special/logs/02-configure.log
[15/25] fb-je531-special: build
      run: cmake --build /allocbuild/build --target fluent-bit-bin
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      unset: CMAKE_BUILD_PARALLEL_LEVEL
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/fb-je531-special/logs/03-build.log
[16/25] fb-je531-relink-je530: relink
      link.txt: $O/variants/fb-je531/build/src/CMakeFiles/fluent-bit-bin.dir/link.txt
      replace: ../lib/libjemalloc_pic.a <- fb-je530:lib/libjemalloc_pic.a
      output: $O/variants/fb-je531/build/bin/fluent-bit-relink-je530
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/build = $O/variants/fb-je531/build
      sandbox: /allocbuild/logs = $O/variants/fb-je531-relink-je530/logs (read-only)
      sandbox: /allocbuild/probe = $O/variants/fb-je531-relink-je530/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      log: $O/variants/fb-je531-relink-je530/logs/01-relink.log
[17/25] fb-je530: probe jemalloc
      artifact: $O/variants/fb-je530/build/bin/fluent-bit
      artifact: $O/variants/fb-je530/build/lib/libjemalloc_pic.a
      program args: -h
[18/25] fb-je530: upstream-diff $O/variants/fb-je530/src/lib/jemalloc-5.3.0 against $O/upstream/jemalloc-5.3.0
[19/25] fb-je531: probe jemalloc
      artifact: $O/variants/fb-je531/build/bin/fluent-bit
      artifact: $O/variants/fb-je531/build/lib/libjemalloc_pic.a
      program args: -h
[20/25] fb-je531: upstream-diff $O/variants/fb-je531/src/lib/jemalloc-5.3.0 against $O/upstream/jemalloc-5.3.1
[21/25] fb-je531-special: probe jemalloc
      artifact: $O/variants/fb-je531-special/build/bin/fluent-bit
      artifact: $O/variants/fb-je531-special/build/lib/libjemalloc_pic.a
      program args: -h
[22/25] fb-je531-special: upstream-diff $O/variants/fb-je531-special/src/lib/jemalloc-5.3.0 against $O/upstream/jemalloc-5.3.1
[23/25] fb-je531-relink-je530: probe jemalloc
      artifact: $O/variants/fb-je531/build/bin/fluent-bit-relink-je530
      program args: -h
[24/25] fb-je531-fit-runtime: probe jemalloc (artifacts of fb-je531)
      artifact: $O/variants/fb-je531/build/bin/fluent-bit
      artifact: $O/variants/fb-je531/build/lib/libjemalloc_pic.a
      program args: -h
      runtime env: MALLOC_CONF=lg_extent_max_active_fit:30
[25/25] write manifests
      $O/recipe.json
      $O/provenance/sources.json
      $O/provenance/build-commands.json
      $O/provenance/cmake-cache-provenance.json
      $O/provenance/binary-provenance.json
      $O/provenance/allocator-probes.json
      $O/provenance/upstream-diff.json
      $O/provenance/relink-provenance.json
      $O/provenance/provenance.intoto.json
      $O/SHA256SUMS
EOT
expect_file out <want
