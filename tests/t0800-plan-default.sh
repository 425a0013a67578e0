#!/usr/bin/env bash
# plan: every step of the default recipe in dependency order, with the exact
# argv, directory and environment of each command; nothing is executed.
. "$TOP/tests/lib.sh"

cp "$TOP/recipes/jemalloc-5.3.0-policy.json" r.json
sha=$(sha256sum r.json | cut -d' ' -f1)
O=$PWD/bo
expect_exit 0 "$AB" plan -j 2 -o bo r.json
expect_file err </dev/null
[ ! -e bo ] || fail "plan created the OUTDIR"
cat >want <<EOT
recipe jemalloc-5.3.0-policy (r.json, sha256 $sha)
outdir $O
jobs 2: up to 2 variants at once, make-based builds share a jobserver of 2 tokens
sandbox: its own user, mount, network (loopback only), PID, IPC and UTS namespaces (bubblewrap); no capabilities, no terminal; the system read-only, a private /tmp, HOME /allocbuild/home, the variant's trees at /allocbuild/src and /allocbuild/build; the environment PATH, HOME, LC_ALL=C, TZ=UTC and what the recipe sets, nothing inherited
umask 022
compilers: through /allocbuild/ccwrap (cc gcc c++ g++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++ ar ranlib install -> allocbuild): ar in deterministic mode, every compile logged with its object's digest
[1/22] fetch jemalloc-5.3.0: archive sha256 2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa strip 1
      url: https://github.com/jemalloc/jemalloc/releases/download/5.3.0/jemalloc-5.3.0.tar.bz2
[2/22] fetch frag: dir frag dirHash 98385754ab1d801b0b3b24bb201b36e1ca930b4b4a04b3257c0f2b4175fda957
[3/22] stock53: fresh tree of jemalloc-5.3.0
      dir: $O/variants/stock53/src
[4/22] stock53: configure
      run: /allocbuild/src/configure --with-lg-quantum=3 --with-lg-page=12 --with-lg-hugepage=21 --with-lg-vaddr=48
      cwd: /allocbuild/build
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/stock53/src
      sandbox: /allocbuild/build = $O/variants/stock53/build
      sandbox: /allocbuild/logs = $O/variants/stock53/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/stock53/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/stock53/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/stock53/logs/02-configure.log
[5/22] stock53: build
      run: make lib/libjemalloc_pic.a
      cwd: /allocbuild/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/stock53/logs/03-build.log
[6/22] special53: fresh tree of jemalloc-5.3.0
      dir: $O/variants/special53/src
[7/22] special53: configure
      run: /allocbuild/src/configure --with-lg-quantum=3 --with-lg-page=12 --with-lg-hugepage=21 --with-lg-vaddr=48 --with-malloc-conf=lg_extent_max_active_fit:30
      cwd: /allocbuild/build
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/special53/src
      sandbox: /allocbuild/build = $O/variants/special53/build
      sandbox: /allocbuild/logs = $O/variants/special53/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/special53/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/special53/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/special53/logs/02-configure.log
[8/22] special53: build
      run: make lib/libjemalloc_pic.a
      cwd: /allocbuild/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/special53/logs/03-build.log
[9/22] frag-stock53: fresh tree of frag
      dir: $O/variants/frag-stock53/src
[10/22] frag-stock53: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DFRAG_ARCHIVE=/allocbuild/variants/stock53/build/lib/libjemalloc_pic.a
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/frag-stock53/src
      sandbox: /allocbuild/build = $O/variants/frag-stock53/build
      sandbox: /allocbuild/logs = $O/variants/frag-stock53/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/frag-stock53/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/frag-stock53/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/frag-stock53/logs/02-configure.log
[11/22] frag-stock53: build
      run: cmake --build /allocbuild/build --target frag
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      unset: CMAKE_BUILD_PARALLEL_LEVEL
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/frag-stock53/logs/03-build.log
[12/22] frag-special53: fresh tree of frag
      dir: $O/variants/frag-special53/src
[13/22] frag-special53: configure
      run: cmake -S /allocbuild/src -B /allocbuild/build -G 'Unix Makefiles' -DFRAG_ARCHIVE=/allocbuild/variants/special53/build/lib/libjemalloc_pic.a
      cwd: /allocbuild
      sandbox: /allocbuild/variants = $O/variants (read-only)
      sandbox: /allocbuild/src = $O/variants/frag-special53/src
      sandbox: /allocbuild/build = $O/variants/frag-special53/build
      sandbox: /allocbuild/logs = $O/variants/frag-special53/logs (read-only)
      sandbox: /allocbuild/logs/compiles.tsv = $O/variants/frag-special53/logs/compiles.tsv
      sandbox: /allocbuild/probe = $O/variants/frag-special53/probe
      sandbox: /allocbuild/bin/allocbuild = $AB (read-only)
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      log: $O/variants/frag-special53/logs/02-configure.log
[14/22] frag-special53: build
      run: cmake --build /allocbuild/build --target frag
      cwd: /allocbuild
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=/allocbuild
      env: PATH=/allocbuild/ccwrap:/usr/local/bin:/usr/bin:/bin
      env: HOME=/allocbuild/home
      env: ALLOCBUILD_COMPILE_LOG=/allocbuild/logs/compiles.tsv
      env: MAKEFLAGS=-j2 --jobserver-auth=<fds>
      unset: CMAKE_BUILD_PARALLEL_LEVEL
      jobserver: 1 of 2 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/frag-special53/logs/03-build.log
[15/22] stock53: probe jemalloc
      artifact: $O/variants/stock53/build/lib/libjemalloc_pic.a
[16/22] special53: probe jemalloc
      artifact: $O/variants/special53/build/lib/libjemalloc_pic.a
[17/22] fit-only: probe jemalloc (artifacts of stock53)
      artifact: $O/variants/stock53/build/lib/libjemalloc_pic.a
      runtime env: MALLOC_CONF=lg_extent_max_active_fit:30
[18/22] frag-stock53: probe jemalloc
      artifact: $O/variants/frag-stock53/build/frag
[19/22] frag-special53: probe jemalloc
      artifact: $O/variants/frag-special53/build/frag
[20/22] frag-fit-only: probe jemalloc (artifacts of frag-stock53)
      artifact: $O/variants/frag-stock53/build/frag
      runtime env: MALLOC_CONF=lg_extent_max_active_fit:30
[21/22] frag-aa: probe jemalloc (artifacts of frag-stock53)
      artifact: $O/variants/frag-stock53/build/frag
[22/22] write manifests
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

# a label brings in what it depends on; -j 4 gives the one build all four jobs
# (through the jobserver, which every make-based build joins)
expect_exit 0 "$AB" plan -o bo r.json fit-only -j 4 --no-sandbox
cat >want <<EOT
recipe jemalloc-5.3.0-policy (r.json, sha256 $sha)
outdir $O
jobs 4: up to 1 variant at once, make-based builds share a jobserver of 4 tokens
environment: inherited minus MALLOC_CONF, LD_PRELOAD, MIMALLOC_*, *_MALLOC_CONF and the toolchain variables (CC, CFLAGS, LDFLAGS, CMAKE_*, ...); LC_ALL=C TZ=UTC; umask 022
compilers: through $O/ccwrap (cc gcc c++ g++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++ ar ranlib install -> allocbuild): ALLOCBUILD_CCWRAP_FLAGS added, ar in deterministic mode
[1/7] fetch jemalloc-5.3.0: archive sha256 2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa strip 1
      url: https://github.com/jemalloc/jemalloc/releases/download/5.3.0/jemalloc-5.3.0.tar.bz2
[2/7] stock53: fresh tree of jemalloc-5.3.0
      dir: $O/variants/stock53/src
[3/7] stock53: configure
      run: $O/variants/stock53/src/configure --with-lg-quantum=3 --with-lg-page=12 --with-lg-hugepage=21 --with-lg-vaddr=48
      cwd: $O/variants/stock53/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_COMPILE_LOG=$O/variants/stock53/logs/compiles.tsv
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/stock53/src=/allocbuild/src -ffile-prefix-map=$O/variants/stock53/build=/allocbuild/build
      log: $O/variants/stock53/logs/02-configure.log
[4/7] stock53: build
      run: make lib/libjemalloc_pic.a
      cwd: $O/variants/stock53/build
      env: SOURCE_DATE_EPOCH=0
      env: GIT_CEILING_DIRECTORIES=$O/variants
      env: PATH=$O/ccwrap:$PATH
      env: ALLOCBUILD_COMPILE_LOG=$O/variants/stock53/logs/compiles.tsv
      env: ALLOCBUILD_CCWRAP_FLAGS=-ffile-prefix-map=$O=/allocbuild -ffile-prefix-map=$O/variants/stock53/src=/allocbuild/src -ffile-prefix-map=$O/variants/stock53/build=/allocbuild/build
      env: MAKEFLAGS=-j4 --jobserver-auth=<fds>
      jobserver: 1 of 4 tokens while it runs (<fds>: the read,write fds of its pipe)
      log: $O/variants/stock53/logs/03-build.log
[5/7] stock53: probe jemalloc
      artifact: $O/variants/stock53/build/lib/libjemalloc_pic.a
[6/7] fit-only: probe jemalloc (artifacts of stock53)
      artifact: $O/variants/stock53/build/lib/libjemalloc_pic.a
      runtime env: MALLOC_CONF=lg_extent_max_active_fit:30
[7/7] write manifests
      $O/recipe.json
      $O/provenance/sources.json
      $O/provenance/build-commands.json
      $O/provenance/binary-provenance.json
      $O/provenance/allocator-probes.json
      $O/provenance/provenance.intoto.json
      $O/SHA256SUMS
EOT
expect_file out <want

# -j 1: nothing to share, no jobserver; make gets -j1 as before
expect_exit 0 "$AB" plan -o bo -j 1 r.json stock53
expect_grep "jobs 1: up to 1 variant at once" out
expect_grep "      run: make -j1 lib/libjemalloc_pic.a" out
expect_no_grep MAKEFLAGS out
expect_no_grep "jobserver:" out
expect_no_grep "share a jobserver" out

# the default OUTDIR is ./allocbuild-out/<recipe name>
expect_exit 0 "$AB" plan r.json stock53
expect_grep "outdir $PWD/allocbuild-out/jemalloc-5.3.0-policy" out
[ ! -e allocbuild-out ] || fail "plan created the OUTDIR"

# --json: the same steps as one document; each command's argv and cwd as the text plan prints them
expect_exit 0 "$AB" plan -o bo -j 2 --json r.json
cp out plan.json
expect_exit 0 "$AB" plan -o bo -j 2 r.json
grep -E '^\[[0-9]+/[0-9]+\] ' out | sed -E 's/^\[([0-9]+)\/[0-9]+\] (([a-z0-9-]+): )?(.*)$/\1 \3 \4/' >text-steps
python3 - plan.json <<'PY' >json-steps
import json, sys
d = json.load(open(sys.argv[1]))
assert d["recipe"]["name"] == "jemalloc-5.3.0-policy" and d["jobs"] == 2 and d["sandbox"] is True, d
for s in d["steps"]:
    print(s["n"], s["label"] or "", s["kind"], " ".join(s["argv"]), s["cwd"] or "")
PY
[ "$(wc -l <json-steps)" = "$(wc -l <text-steps)" ] || fail "plan --json has $(wc -l <json-steps) steps, the text plan $(wc -l <text-steps)"
grep -o '      run: .*' out | sed 's/      run: //' >text-argv
# the text plan quotes a word as a shell would read it ('Unix Makefiles')
python3 -c 'import json,shlex,sys; [print(" ".join(map(shlex.quote, s["argv"]))) for s in json.load(open(sys.argv[1]))["steps"] if s["argv"]]' plan.json >json-argv
[ -s text-argv ] || fail "no run: line in the text plan"
expect_file json-argv <text-argv
