#!/usr/bin/env bash
# build --check of the default recipe from the real jemalloc 5.3.0 tarball
# and its benchmark program recipes/frag linked against each archive:
# the suite's build of it (-j 2, built elsewhere: default_build), up to
# date here, then built again under a caller's umask of 077 at -j 4 into
# OUTDIR/reproducibility/check (another, longer, nested path): every
# artifact line of SHA256SUMS is identical, no OUTDIR path is in an
# archive, the record is in SHA256SUMS; the host probes (pinned by the
# recipe) and the toolchain (this machine's) are in the manifests; the
# default recipe's shipped policy passes on it, every rule. Then pr, and
# `rebuild` of its bundle in a fresh directory: every digest matched. A
# bundle whose recipe was edited is refused (exit 2) before anything is
# built.
. "$TOP/tests/lib.sh"

cp "$TOP/recipes/jemalloc-5.3.0-policy.json" r.json
cp -r "$TOP/recipes/frag" frag
default_build o
umask 077
expect_exit 0 "$AB" build --check -j 2 --mirror-dir "$MIRROR" -o o r.json
[ "$(grep -c ': up to date$' err)" -ge 2 ] || fail "the suite's build was not up to date here"
O=$PWD/o
L=$O/reproducibility/check
stock=$(sha256sum o/variants/stock53/build/lib/libjemalloc_pic.a | cut -c1-64)
special=$(sha256sum o/variants/special53/build/lib/libjemalloc_pic.a | cut -c1-64)
fstock=$(sha256sum o/variants/frag-stock53/build/frag | cut -c1-64)
fspecial=$(sha256sum o/variants/frag-special53/build/frag | cut -c1-64)
sed -n '/^reproducibility:/,$p' out >report
cat >want <<EOT
reproducibility: built again in $L with -j 4
identical  stock53         variants/stock53/build/lib/libjemalloc_pic.a    ${stock:0:12}
identical  special53       variants/special53/build/lib/libjemalloc_pic.a  ${special:0:12}
identical  frag-stock53    variants/frag-stock53/build/frag                ${fstock:0:12}
identical  frag-special53  variants/frag-special53/build/frag              ${fspecial:0:12}
4/4 artifacts identical
EOT
expect_file report <want
# the digests README.md states, archives and programs
grep '  variants/.*/build/' "$TOP/README.md" | grep -v '^allocbuild' >readme.sums
here=$PWD
(cd "$L" && sha256sum -c --quiet "$here/readme.sums") || fail "the check's build does not give README.md's digests"

# the two OUTDIRs: every artifact line of SHA256SUMS the same
arts() { grep -E '  variants/[^/]+/build/' "$1/SHA256SUMS"; }
arts o >a1
arts "$L" >a2
[ "$(wc -l <a1)" = 4 ] || fail "artifacts: $(cat a1)"
diff -u a1 a2 || fail "the artifacts differ between $O and $L"
[ "$(json o/provenance/build-commands.json 'd["options"]["jobs"]')" = 2 ]
[ "$(json "$L/provenance/build-commands.json" 'd["options"]["jobs"]')" = 4 ]
# nothing of either OUTDIR, the cache or the home directory in an artifact
for a in o/variants/*/build/lib/libjemalloc_pic.a "$L"/variants/*/build/lib/libjemalloc_pic.a o/variants/*/build/frag \
	"$L"/variants/*/build/frag; do
	! grep -aqF -e "$O" -e "$DEFAULT_OUTDIR" -e "$HOME" -e "$XDG_CACHE_HOME" "$a" || fail "$a names a build directory"
done
grep -aq "/allocbuild/src/src/jemalloc.c" o/variants/stock53/build/lib/libjemalloc_pic.a ||
	fail "the debug info does not name the mapped source"
# the children ran with umask 022, whatever the caller's (077 here)
[ "$(stat -c %a "$L/variants/stock53/build/lib/libjemalloc_pic.a")" = 644 ] || fail "the umask reached the build"

# the record: in SHA256SUMS, verify checks it
R=o/provenance/reproducibility.intoto.json
[ "$(tail -n1 o/SHA256SUMS | cut -c67-)" = provenance/reproducibility.intoto.json ]
check "the record's subjects" test "$(json $R '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = \
	"[('variants/stock53/build/lib/libjemalloc_pic.a', '$stock'), ('variants/special53/build/lib/libjemalloc_pic.a', '$special'), ('variants/frag-stock53/build/frag', '$fstock'), ('variants/frag-special53/build/frag', '$fspecial')]"
check "the record's summary" test "$(json $R 'd["predicate"]["comparison"]["summary"]')" = "4/4 artifacts identical"
expect_exit 0 "$AB" verify o
{ echo "verified 26 files in o"; echo "pass: OUTDIR o: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)"; } | expect_file out
# the shipped policy of the default recipe (docs/policy.md): every rule passes on this real OUTDIR
expect_exit 0 "$AB" verify --policy "$TOP/recipes/jemalloc-5.3.0-policy.policy.json" o
expect_grep "pass: rules[7] reproducible special53: 1/1 artifact identical (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
expect_grep "pass: rules[7] reproducible fit-only: 1/1 artifact identical (its base stock53's) (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
expect_grep "pass: rules[7] reproducible frag-aa: 1/1 artifact identical (its base frag-stock53's) (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
tail -n 1 out | grep -qxF "pass: policy $TOP/recipes/jemalloc-5.3.0-policy.policy.json: every rule check passed on OUTDIR o (51)" ||
	fail "the shipped policy: $(grep -v '^pass' out)"

# jemalloc's host probes: the shipped recipe pins them (every host builds
# these bytes); t5510 shows an unpinned build's values, this machine's
B=o/provenance/binary-provenance.json
pins="['--with-lg-page=12', '--with-lg-hugepage=21', '--with-lg-vaddr=48']"
[ "$(json $B '[(v["label"], v["host_probes"]["LG_PAGE"], v["host_probes"]["LG_HUGEPAGE"], v["host_probes"]["LG_VADDR"], v["host_probes"]["pinned"]) for v in d["variants"][:3]]')" = \
  "[('stock53', 12, 21, 48, $pins), ('special53', 12, 21, 48, $pins), ('fit-only', 12, 21, 48, $pins)]" ] ||
	fail "host probes: $(json $B '[v["host_probes"] for v in d["variants"]]')"
[ "$(json $B 'd["variants"][0]["host_probes"]["header"]')" = include/jemalloc/internal/jemalloc_internal_defs.h ]
# each archive's members, for later comparisons
[ "$(json $B 'len(d["variants"][0]["artifacts"][0]["parts"]["members"])')" = 63 ]

# the toolchain: every tool with its Debian package, in the statement's builderDependencies
I=o/provenance/provenance.intoto.json
[ "$(json $I '[b["name"] for b in d["predicate"]["runDetails"]["builder"]["builderDependencies"]]')" = \
  "['cc', 'cc1', 'c++', 'cc1plus', 'as', 'ld', 'ar', 'make', 'autoconf', 'libc', 'libc-dev', 'cmake']" ]
json $I '"\n".join("%s %s %s" % (b["name"], b["annotations"]["package"], b["annotations"]["package_version"]) for b in d["predicate"]["runDetails"]["builder"]["builderDependencies"])' >pkgs
while read -r name pkg ver; do
	[ "$(dpkg-query -W -f='${Version}' "$pkg")" = "$ver" ] || fail "$name: $pkg $ver is not what dpkg says"
done <pkgs
[ "$(json $I '[b["annotations"]["package"] for b in d["predicate"]["runDetails"]["builder"]["builderDependencies"] if b["name"] in ("cc", "ld", "libc")]')" = \
  "['gcc-12', 'binutils-x86-64-linux-gnu', 'libc6']" ]
json $I 'd["predicate"]["runDetails"]["builder"]["builderDependencies"][0]["uri"]' | grep -Eq '^pkg:deb/debian/gcc-12@[^?]+\?arch=amd64$'
[ "$(json o/provenance/build-commands.json '[t["name"] for t in d["variants"][0]["toolchain"]]')" = \
  "['cc', 'cc1', 'c++', 'cc1plus', 'as', 'ld', 'ar', 'make', 'autoconf', 'libc', 'libc-dev']" ]
# what was injected
[ "$(json $I '[d["predicate"]["buildDefinition"]["internalParameters"]["reproducible"]["stock53"][k] for k in ("wrapper", "compiler_flags", "paths", "ar", "ranlib")]')" = \
  "['/allocbuild/ccwrap', [], 'fixed by the build sandbox: /allocbuild/src and /allocbuild/build', 'D added to every operation that writes an archive; U and u removed', '-D']" ]

# pr shows the check and the host probes; its bundle rebuilds in a fresh directory
expect_exit 0 "$AB" pr o
expect_grep '- `build --check`, built again in a second directory (-j 4): **4/4 artifacts identical**' o/pr.md
expect_grep '| `stock53` | 12 | 21 | 48 | `--with-lg-page=12` `--with-lg-hugepage=21` `--with-lg-vaddr=48` |' o/pr.md
BUNDLE=o/provenance-jemalloc-5.3.0-policy.tar.gz
# (an unsigned bundle: --trust-unsigned after the commands it runs are shown; t7060 tests that gate)
expect_exit 0 "$AB" rebuild --trust-unsigned -j 2 --mirror-dir "$MIRROR" -o rb $BUNDLE
expect_grep "  stock53: configure [\"/allocbuild/src/configure\"" out
expect_grep "on this machine, in the build sandbox (no network" out
sed -i '1,/^rebuild of /{/^rebuild of /!d}' out
cat >want <<EOT
rebuild of $BUNDLE in $PWD/rb
identical  stock53         variants/stock53/build/lib/libjemalloc_pic.a    ${stock:0:12}
identical  special53       variants/special53/build/lib/libjemalloc_pic.a  ${special:0:12}
identical  frag-stock53    variants/frag-stock53/build/frag                ${fstock:0:12}
identical  frag-special53  variants/frag-special53/build/frag              ${fspecial:0:12}
4/4 artifacts identical
EOT
expect_file out <want
[ "$(json rb/provenance/rebuild.intoto.json '[d["predicateType"], d["predicate"]["from"], d["predicate"]["comparison"]["summary"]]')" = \
  "['https://allocbuild.dev/rebuild/v1', 'bundle', '4/4 artifacts identical']" ]
expect_exit 0 "$AB" verify rb
expect_exit 0 "$AB" pr rb
expect_grep '- `rebuild`, rebuilt in a fresh directory (-j 2): **4/4 artifacts identical**' rb/pr.md

# a bundle whose recipe was edited, its indexes made to match: refused before building
mkdir edit
tar -xzf $BUNDLE -C edit
T=edit/provenance-jemalloc-5.3.0-policy
sed -i 's/--with-lg-quantum=3"/--with-lg-quantum=4"/' $T/recipe.json
python3 - "$T" <<'PY'
import hashlib, os, sys
top = sys.argv[1]
def fix(index, names):
    lines = []
    for l in open(index):
        h, n = l.rstrip("\n").split("  ", 1)
        if n in names:
            h = hashlib.sha256(open(os.path.join(top, n), "rb").read()).hexdigest()
        lines.append("%s  %s\n" % (h, n))
    open(index, "w").write("".join(lines))
fix(os.path.join(top, "SHA256SUMS"), {"recipe.json"})
fix(os.path.join(top, "BUNDLE-SHA256SUMS"), {"recipe.json", "SHA256SUMS"})
PY
tar -czf edited.tar.gz -C edit provenance-jemalloc-5.3.0-policy
expect_exit 0 "$AB" verify edited.tar.gz
expect_exit 2 "$AB" rebuild --mirror-dir "$MIRROR" -o rb2 edited.tar.gz
expect_grep "recipe.json is not the recipe that was built" err
[ ! -e rb2 ] || fail "an edited recipe was built"
# and one edited without its indexes: the bundle does not verify
cp r.json r2.json
tar -xzf $BUNDLE -C edit --overwrite
sed -i 's/--with-lg-quantum=3"/--with-lg-quantum=4"/' $T/recipe.json
tar -czf tampered.tar.gz -C edit provenance-jemalloc-5.3.0-policy
expect_exit 2 "$AB" rebuild --mirror-dir "$MIRROR" -o rb2 tampered.tar.gz
expect_grep "does not verify" err
[ ! -e rb2 ] || fail "a tampered bundle was built"
