# The flb-like fixture configured directly with cmake (three variants:
# jemalloc with its default options, with other FLB_JEMALLOC_OPTIONS, and
# FLB_RELEASE without jemalloc), make-flb-like.sh, and the cmake provenance
# read from the three build directories (through the cmakeprov unit-test
# binary, which writes the cmake-cache-provenance document of
# TEST_CMAKE_BUILD_DIR). The full build of the fixture, and what it
# produces, is t5510's (through allocbuild build).
. "$TOP/tests/lib.sh"

MK=$TOP/tests/fixtures/make-flb-like.sh
UNIT=$TOP/${O:-.obj}/tests/test_cmakeprov
[ -x "$UNIT" ] || fail "no $UNIT (run make tests)"
special_opts="--with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30"

# --- make-flb-like.sh
expect_exit 0 "$MK" --git src-stock "$JEMALLOC_TARBALL"
commit=$(cat out)
echo "$commit" | grep -qE '^[0-9a-f]{40}$' || fail "no commit id: $commit"
[ "$(git -C src-stock rev-parse HEAD)" = "$commit" ] || fail "HEAD is not $commit"
[ -z "$(git -C src-stock status --porcelain)" ] || fail "src-stock is not clean"
# the same content gives the same commit
expect_exit 0 "$MK" --git again "$JEMALLOC_TARBALL"
[ "$(cat out)" = "$commit" ] || fail "commit id not reproducible: $(cat out) != $commit"
rm -rf again
# the vendored tree: the tarball minus exactly four files
mkdir tarball
tar -xjf "$JEMALLOC_TARBALL" -C tarball
for f in VERSION .clang-format doc/jemalloc.3 doc/jemalloc.html; do
	[ -f "tarball/jemalloc-5.3.0/$f" ] || fail "tarball lacks $f"
	[ ! -e "src-stock/lib/jemalloc-5.3.0/$f" ] || fail "vendored tree has $f"
done
diff -r tarball/jemalloc-5.3.0 src-stock/lib/jemalloc-5.3.0 >vendor.diff || true
expect_file vendor.diff <<'X'
Only in tarball/jemalloc-5.3.0: .clang-format
Only in tarball/jemalloc-5.3.0: VERSION
Only in tarball/jemalloc-5.3.0/doc: jemalloc.3
Only in tarball/jemalloc-5.3.0/doc: jemalloc.html
X
# the commit holds the files jemalloc's own .gitignore lists (configure)
git -C src-stock ls-files --error-unmatch lib/jemalloc-5.3.0/configure >/dev/null
[ -x src-stock/lib/jemalloc-5.3.0/configure ] || fail "configure is not executable"
# refusals
expect_exit 2 "$MK" src-stock "$JEMALLOC_TARBALL"
expect_file err <<'X'
make-flb-like: 'src-stock' exists and is not empty
X
expect_exit 2 "$MK" nowhere "$PWD/no-such.tar.bz2"
expect_grep "make-flb-like: no tarball '$PWD/no-such.tar.bz2'" err
[ ! -e nowhere ] || fail "nowhere was created"
cp -a src-stock src-special
cp -a src-stock src-release

# --- variant stock: jemalloc with its default options (configured only)
cmake -S src-stock -B stock -DFLB_JEMALLOC=On >stock.log 2>&1 ||
	{ tail -n 30 stock.log; fail "configure of stock failed"; }
# the generated header went into the source tree
expect_grep '#define FLB_INFO_FLAGS " FLB_HAVE_JEMALLOC JEMALLOC_MANGLE"' src-stock/include/fluent-bit/flb_info.h
# the link command names the archive twice, relative to build/src
link=stock/src/CMakeFiles/fluent-bit-bin.dir/link.txt
[ "$(grep -o '\.\./lib/libjemalloc_pic\.a' "$link" | wc -l)" = 2 ] || fail "$link: $(cat "$link")"
expect_grep "-o ../bin/fluent-bit" "$link"
echo "cmd='$PWD/src-stock/lib/jemalloc-5.3.0/configure;--with-lg-quantum=3;--prefix=<INSTALL_DIR>;CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'" |
	expect_file stock/jemalloc-prefix/tmp/jemalloc-cfgcmd.txt

# --- variant special: other jemalloc options (configured only)
cmake -S src-special -B special -DFLB_JEMALLOC=On "-DFLB_JEMALLOC_OPTIONS=$special_opts" >special.log 2>&1 ||
	{ tail -n 30 special.log; fail "configure of special failed"; }
# --- variant release: FLB_RELEASE, jemalloc off (configured only)
cmake -S src-release -B release -DFLB_DEBUG=Off -DFLB_RELEASE=On -DCMAKE_BUILD_TYPE=Release >release.log 2>&1 ||
	{ tail -n 30 release.log; fail "configure of release failed"; }

# --- cmake provenance of the three
expect_exit 0 env TEST_CMAKE_BUILD_DIR="$PWD/stock:$PWD/special:$PWD/release" TEST_CMAKE_OUT="$PWD/cmake.json" "$UNIT"
[ "$(json cmake.json 'd["baseline"]')" = stock ] || fail "baseline"
[ "$(json cmake.json 'L["stock"]["cache"]["sha256"]')" = "$(sha256sum stock/CMakeCache.txt | cut -c1-64)" ] ||
	fail "cache sha256"
json cmake.json 'L["stock"]["build_type"]' >bt
expect_file bt <<X
{'cache': '', 'effective': 'Debug', 'evidence': "fluent-bit-bin: C_FLAGS '-Wall -g -fPIE' has CMAKE_C_FLAGS_DEBUG '-g'", 'shadowed': True}
X
json cmake.json 'L["release"]["build_type"]["cache"], L["release"]["build_type"]["effective"]' >bt
echo "('Release', 'RelWithDebInfo')" | expect_file bt
json cmake.json 'L["stock"]["compilers"]["C"]["version"]' >cv
cc -dumpfullversion | expect_file cv
json cmake.json 'L["stock"]["keys"]["FLB_JEMALLOC_OPTIONS"]' >k
echo "{'type': None, 'value': None, 'defaulted': True}" | expect_file k
json cmake.json 'L["special"]["keys"]["FLB_JEMALLOC_OPTIONS"]' >k
echo "{'type': 'UNINITIALIZED', 'value': '$special_opts'}" | expect_file k
json cmake.json 'L["stock"]["jemalloc"]["version"]' >k
echo None | expect_file k

# stock against special: exactly the jemalloc options
python3 - cmake.json >diff1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["diffs"][0]["differences"]:
    print("%s %s: %s | %s" % (e["section"], e["key"], e["a"], e["b"]))
PY
expect_file diff1 <<X
keys FLB_JEMALLOC_OPTIONS: absent | UNINITIALIZED=$special_opts
jemalloc configure: <source>/lib/jemalloc-5.3.0/configure --with-lg-quantum=3 '--prefix=<INSTALL_DIR>' 'CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops' | <source>/lib/jemalloc-5.3.0/configure --with-lg-quantum=3 --with-malloc-conf=lg_extent_max_active_fit:30 '--prefix=<INSTALL_DIR>' 'CFLAGS=-std=gnu99 -Wall -pipe -g3 -O3 -funroll-loops'
X

# stock against release: the debug/release switches and what follows
python3 - cmake.json >diff2 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["diffs"][1]["b"])
for e in d["diffs"][1]["differences"]:
    print("%s %s" % (e["section"], e["key"]))
PY
expect_file diff2 <<'X'
release
keys CMAKE_BUILD_TYPE
keys FLB_DEBUG
keys FLB_JEMALLOC
keys FLB_RELEASE
build_type effective
targets fluent-bit-bin:C_DEFINES
targets fluent-bit-bin:C_INCLUDES
targets fluent-bit-bin:C_FLAGS
targets fluent-bit-bin:build_type
targets fluent-bit-bin:link
targets fluent-bit-static:C_DEFINES
targets fluent-bit-static:C_INCLUDES
targets fluent-bit-static:C_FLAGS
targets fluent-bit-static:CXX_DEFINES
targets fluent-bit-static:CXX_INCLUDES
targets fluent-bit-static:CXX_FLAGS
targets fluent-bit-static:build_type
jemalloc configure
X
json cmake.json '[e["b"] for e in d["diffs"][1]["differences"] if e["key"] == "FLB_JEMALLOC"][0]' >k
echo "INTERNAL=OFF" | expect_file k
