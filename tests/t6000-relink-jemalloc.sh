#!/usr/bin/env bash
# relink: the Fluent-Bit-shaped fixture (tests/fixtures/flb-like: an
# executable in src/ written to bin/fluent-bit, linking
# ../lib/libjemalloc_pic.a twice) built with the real jemalloc 5.3.0, then
# relinked with the archive of a second build whose jemalloc bakes in
# another malloc_conf. Both builds happen once per toolchain (a suite
# fixture) and serve every check of this file.
. "$TOP/tests/lib.sh"

# --- the flb-like fixture (tests/fixtures), built twice with the real
# jemalloc 5.3.0: A normally (the vendored tree has no VERSION: A reports
# jemalloc's bogus version), B with a baked-in malloc_conf and the real
# version string (only B's jemalloc is built)
# (the suite fixture flb_hand, tests/fixtures/make-fixture.sh: built once
# per toolchain, copied here with its times; link.txt's paths are relative)
suite_fixture flb_hand toolchain
cp -a "$FIXTURE/build-a" "$FIXTURE/build-b" .
LT=build-a/src/CMakeFiles/fluent-bit-bin.dir/link.txt
BIN=build-a/bin/fluent-bit
echo '/usr/bin/c++ -g "CMakeFiles/fluent-bit-bin.dir/fluent-bit.c.o" -o ../bin/fluent-bit  ../lib/libjemalloc_pic.a ../library/libfluent-bit.a -lpthread -ldl -lm ../lib/libjemalloc_pic.a ' |
	expect_file $LT
cp $LT link.txt.orig
BIN_SHA=$(sha256sum $BIN | cut -d' ' -f1)
# the replacement also lives in a directory whose name has a space
mkdir "alt je"
cp build-b/lib/libjemalloc_pic.a "alt je/libjemalloc_pic.a"

stats() { # binary -> the jemalloc statistics on stderr
	MALLOC_CONF=stats_print:true "$1" 2>&1 >/dev/null
}
stats $BIN >stats-normal
expect_grep '  config.malloc_conf: ""' stats-normal
expect_grep '  opt.lg_extent_max_active_fit: 6' stats-normal
expect_grep 'Version: "0.0.0-0-g000000missing_version_try_git_fetch_tags"' stats-normal

# --- dry run: argv and cwd, nothing written
expect_exit 0 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a="alt je/libjemalloc_pic.a" \
	--output rl/fluent-bit-relink --dry-run
expect_file out <<EOF
cwd: $PWD/build-a/src
argv: /usr/bin/c++ -g CMakeFiles/fluent-bit-bin.dir/fluent-bit.c.o -o $PWD/rl/fluent-bit-relink '$PWD/alt je/libjemalloc_pic.a' ../library/libfluent-bit.a -lpthread -ldl -lm '$PWD/alt je/libjemalloc_pic.a'
EOF
expect_file err <<EOF
allocbuild: replaced '../lib/libjemalloc_pic.a' with '$PWD/alt je/libjemalloc_pic.a' (2 times)
EOF
[ ! -e rl/fluent-bit-relink ] && [ ! -e rl/relink-provenance.json ] || fail "dry run wrote files"

# --- the relink; the replacement is named by another path to the same file
start=$(date +%s.%N)
expect_exit 0 "$AB" relink --link-txt $LT --replace "$PWD/build-a/lib/libjemalloc_pic.a=alt je/libjemalloc_pic.a" \
	--output rl/fluent-bit-relink --check-normal
end=$(date +%s.%N)
P=rl/relink-provenance.json
# budget: 5 s for a relink. Checked on CPU seconds (inputs and the link,
# children included), which a machine shared with other builds does not
# inflate; the wall time is printed (bench/relink.sh measures it)
secs=$(echo "$end - $start" | bc)
cpu=$(json $P 'round(d["seconds"]["inputs_cpu"] + d["seconds"]["link_cpu"], 3)')
echo "relink with --check-normal: ${secs}s wall, ${cpu}s cpu"
[ "$(echo "$cpu < 5" | bc)" = 1 ] || fail "relink took ${cpu}s of cpu (budget 5s)"
FIT_SHA=$(sha256sum "alt je/libjemalloc_pic.a" | cut -d' ' -f1)
STOCK_SHA=$(sha256sum build-a/lib/libjemalloc_pic.a | cut -d' ' -f1)
expect_file out <<EOF
output: $PWD/rl/fluent-bit-relink
provenance: $PWD/$P
kind: diagnostic relink
verdict: only these inputs differ: ../lib/libjemalloc_pic.a -> $PWD/alt je/libjemalloc_pic.a
EOF
cmp -s link.txt.orig $LT || fail "link.txt was modified"
[ "$(sha256sum $BIN | cut -d' ' -f1)" = "$BIN_SHA" ] || fail "the normal binary changed"
ls -a rl >ls-out
expect_file ls-out <<EOF
.
..
fluent-bit-relink
relink-provenance.json
EOF

# the relinked binary runs the replacement's jemalloc
stats rl/fluent-bit-relink >stats-relink
expect_grep '  config.malloc_conf: "lg_extent_max_active_fit:30"' stats-relink
expect_grep '  opt.lg_extent_max_active_fit: 30' stats-relink
expect_grep 'Version: "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"' stats-relink
# and so does allocbuild probe (provenance/probe/probe.h)
expect_exit 0 "$AB" probe --allocator jemalloc --json -- rl/fluent-bit-relink -n 1000
mv out probe-relink.json
[ "$(json probe-relink.json 'd["config"]["malloc_conf"]')" = "lg_extent_max_active_fit:30" ] || fail "probe malloc_conf"
[ "$(json probe-relink.json 'd["version"]')" = "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c" ] || fail "probe version"
[ "$(json probe-relink.json 'd["effective"]["lg_extent_max_active_fit"]')" = 30 ] || fail "probe fit"
[ "$(rl/fluent-bit-relink -n 1000 | grep churn)" = "$($BIN -n 1000 | grep churn)" ] || fail "the relinked binary behaves differently"

# the proof
[ "$(json $P 'd["kind"]')" = "diagnostic relink" ] || fail "kind"
[ "$(json $P 'len(d["differing_inputs"])')" = 1 ] || fail "differing inputs: $(json $P 'd["differing_inputs"]')"
[ "$(json $P 'd["differing_inputs"][0]["before"]["sha256"]')" = "$STOCK_SHA" ] || fail "before sha256"
[ "$(json $P 'd["differing_inputs"][0]["after"]["sha256"]')" = "$FIT_SHA" ] || fail "after sha256"
[ "$(json $P 'd["differing_inputs"][0]["content_differs"]')" = True ] || fail "content_differs"
[ "$(json $P 'd["verdict"]')" = "only these inputs differ: ../lib/libjemalloc_pic.a -> $PWD/alt je/libjemalloc_pic.a" ] ||
	fail "verdict"
[ "$(json $P 'd["cwd"]')" = "$PWD/build-a/src" ] || fail "cwd"
[ "$(json $P '[r["count"] for r in d["replacements"]]')" = "[2]" ] || fail "replacement count"
[ "$(json $P '[(x["index"], x["why"]) for x in d["argv_diff"]]')" = "[(4, 'output'), (5, 'replacement'), (10, 'replacement')]" ] ||
	fail "argv_diff: $(json $P 'd["argv_diff"]')"
[ "$(json $P 'd["argv_before"]')" = "$(python3 -c 'import shlex,sys; print(shlex.split(open(sys.argv[1]).read()))' $LT)" ] ||
	fail "argv_before"
# every input on both sides, hashed; all the same but the allocator archive
[ "$(json $P 'sorted(set(i["before"]["arg"] for i in d["inputs"] if not i["same"]))')" = "['../lib/libjemalloc_pic.a']" ] ||
	fail "inputs differing"
[ "$(json $P 'all(len(i[s]["sha256"]) == 64 for i in d["inputs"] for s in ("before", "after") if i[s]["path"])')" = True ] ||
	fail "unhashed inputs"
[ "$(json $P '[i["before"]["arg"] for i in d["inputs"] if i["before"]["via"] == "argv"]')" = \
	"['CMakeFiles/fluent-bit-bin.dir/fluent-bit.c.o', '../lib/libjemalloc_pic.a', '../library/libfluent-bit.a', '../lib/libjemalloc_pic.a']" ] ||
	fail "argv inputs: $(json $P 'd["inputs"]')"
# -lm resolves through the compiler's default search path to a linker script and its members
[ "$(json $P '[i["before"]["kind"] for i in d["inputs"] if i["before"]["arg"] == "-lm"][0]')" = linker-script ] ||
	fail "-lm not resolved to libm.so's linker script"
[ "$(json $P 'any(i["before"]["via"].startswith("linker script ") for i in d["inputs"])')" = True ] || fail "libm.so members"
[ "$(json $P 'd["output"]["sha256"]')" = "$(sha256sum rl/fluent-bit-relink | cut -d' ' -f1)" ] || fail "output sha256"
[ "$(json $P 'd["normal_output"]["sha256"]')" = "$BIN_SHA" ] || fail "normal output sha256"
[ "$(json $P 'd["normal_output"]["path"]')" = "$PWD/$BIN" ] || fail "normal output path"
# --check-normal: the unchanged command, linked again, reproduces the normal binary
[ "$(json $P 'd["normal_check"]["identical"]')" = True ] || fail "normal check: $(json $P 'd["normal_check"]')"
[ "$(json $P 'd["normal_check"]["sha256"]')" = "$BIN_SHA" ] || fail "normal check sha256"

# --- --provenance elsewhere, --json on stdout
expect_exit 0 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=build-b/lib/libjemalloc_pic.a \
	--output rl2/fluent-bit --provenance prov2.json --json
cmp -s out prov2.json || fail "--json differs from the written provenance"
[ "$(json prov2.json 'd["kind"]')" = "diagnostic relink" ] || fail "kind 2"
[ ! -e rl2/relink-provenance.json ] || fail "default provenance written despite --provenance"

# --- refusals: exit 2, exact message, nothing written
expect_exit 2 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=missing/libjemalloc_pic.a \
	--output bad/fluent-bit
expect_file err <<EOF
allocbuild: replacement 'missing/libjemalloc_pic.a' for '../lib/libjemalloc_pic.a': No such file or directory
EOF
[ ! -e bad ] || fail "missing replacement: something was written"

expect_exit 2 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc.a=build-b/lib/libjemalloc_pic.a \
	--output bad/fluent-bit
expect_file err <<EOF
allocbuild: $LT:1: replacement '../lib/libjemalloc.a' matches nothing in the link command
EOF
[ ! -e bad ] || fail "unmatched replacement: something was written"

expect_exit 2 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=build-b/lib/libjemalloc_pic.a \
	--output $BIN
expect_file err <<EOF
allocbuild: output '$BIN' is the normal build's own output: choose another path
EOF
[ "$(sha256sum $BIN | cut -d' ' -f1)" = "$BIN_SHA" ] || fail "the normal binary changed"

expect_exit 2 "$AB" relink --link-txt build-a/src/CMakeFiles/fluent-bit-static.dir/link.txt \
	--replace CMakeFiles/fluent-bit-static.dir/flb_mem.c.o=build-b/lib/libjemalloc_pic.a --output bad/x.a
expect_file err <<EOF
allocbuild: build-a/src/CMakeFiles/fluent-bit-static.dir/link.txt: 2 commands; a relink needs exactly one link command
EOF

# --- a link that fails: a corrupt archive. The linker's stderr is shown,
# exit 1, no output, no temporary file, no provenance.
head -c 3000 build-b/lib/libjemalloc_pic.a >corrupt.a
expect_exit 1 "$AB" relink --link-txt $LT --replace ../lib/libjemalloc_pic.a=corrupt.a --output bad/fluent-bit
expect_grep "corrupt.a: file format not recognized; treating as linker script" err
expect_grep "collect2: error: ld returned 1 exit status" err
expect_grep "allocbuild: relink of '$LT' failed: '/usr/bin/c++' exit status 1" err
[ -z "$(ls -A bad)" ] || { ls -la bad; fail "failed link left files"; }
