#!/usr/bin/env bash
# README.md's tour, end to end, each command run exactly as README.md
# writes it (read from its fenced block under "## A tour", so that the
# page cannot drift from what is tested), in a directory laid out as the
# README's reader has it after `make run`: recipes/, mirror/ and the
# default recipe's OUTDIR at allocbuild-out/jemalloc-5.3.0-policy (the
# suite's default build, copied: the tour's build step is then up to
# date, as after `make run`), allocbuild on PATH. Between the steps, what
# each must have done: validate and plan; build up to date, the table;
# verify; env; run of frag's four labels recording the program that ran
# (an artifact: no warning); compare, its verdicts and its A/A control;
# run --allocator-stats of frag-fit-only (jemalloc's figures at exit);
# build --check under a caller's umask of 077: every artifact, the
# archives and the programs, identical and the digests README.md states,
# no OUTDIR path in one, the record in SHA256SUMS, the host probes and the
# toolchain in the manifests; verify --policy with the shipped policy,
# every rule passing; pr and its bundle, which verifies; rebuild of the
# bundle in a fresh directory, every digest matched. Then a bundle whose
# recipe was edited is refused (exit 2) before anything is built.
. "$TOP/tests/lib.sh"

O=allocbuild-out/jemalloc-5.3.0-policy
mkdir allocbuild-out
default_build $O
ln -s "$TOP/recipes" recipes
ln -s "$MIRROR" mirror
mkdir bin
ln -s "$AB" bin/allocbuild
export PATH=$PWD/bin:$PATH
cp "$TOP/recipes/jemalloc-5.3.0-policy.json" r.json
cp -r "$TOP/recipes/frag" frag

# the tour's commands: its fenced block, a command per line (a line ending in \ goes on)
awk '/^## A tour/ { t = 1 } t && /^```sh$/ { b = 1; next } b && /^```$/ { exit } b' "$TOP/README.md" >tour.sh
python3 - tour.sh >tour.list <<'PY'
import sys
cmds, cur = [], ""
for line in open(sys.argv[1]).read().split("\n"):
    cur += line
    if cur.endswith("\\"):
        cur += "\n"
        continue
    if cur.strip():
        cmds.append(cur)
    cur = ""
for c in cmds:
    print(c.replace("\n", "\\n"))
PY
check "the tour has its 15 commands" test "$(wc -l <tour.list)" = 15
n=0
# step WORDS: run the tour's next command, which must start with WORDS, as written (bash reads its
# comment and continuation), its stdout in ./out and stderr in ./err; TOUR_RC its exit status
step() {
	local cmd
	n=$((n + 1))
	cmd=$(sed -n "${n}p" tour.list | sed 's/\\n/\n/g')
	case $cmd in
	"$1"*) ;;
	*) fail "the tour's command $n is not '$1': $cmd" ;;
	esac
	TOUR_RC=0
	bash -c "$cmd" >out 2>err || TOUR_RC=$?
	echo "tour $n: exit $TOUR_RC: $cmd" >&2
}
# ok WORDS: step WORDS, which must exit 0
ok() {
	step "$@"
	[ "$TOUR_RC" = 0 ] || { cat out err >&2; fail "the tour's command $n exited $TOUR_RC"; }
}

ok "allocbuild validate recipes/jemalloc-5.3.0-policy.json"
echo "recipes/jemalloc-5.3.0-policy.json: recipe 'jemalloc-5.3.0-policy': 2 sources, 7 variants (4 builds, 3 runtimes)" |
	expect_file out
ok "allocbuild plan recipes/jemalloc-5.3.0-policy.json"
expect_grep "[22/22] write manifests" out
ok "allocbuild build --mirror-dir mirror recipes/jemalloc-5.3.0-policy.json"
check "the build was up to date, as after make run" not grep -q 'make lib/libjemalloc_pic.a (' err
# its table is README.md's
sed -n '/^LABEL  /,/^```$/p' "$TOP/README.md" | sed '$d' >readme.table
expect_file out <readme.table
ok "allocbuild verify allocbuild-out/jemalloc-5.3.0-policy"
ok "allocbuild env allocbuild-out/jemalloc-5.3.0-policy fit-only"
echo "export MALLOC_CONF='lg_extent_max_active_fit:30'" | expect_file out
ok "allocbuild env allocbuild-out/jemalloc-5.3.0-policy --systems"
expect_grep "frag-aa=$PWD/$O/variants/frag-stock53/build/frag" out
ok "allocbuild run allocbuild-out/jemalloc-5.3.0-policy frag-stock53 frag-special53 frag-fit-only frag-aa"
check "20 runs recorded" test "$(ls $O/runs/frag/*.intoto.json | wc -l)" = 20
check "frag is an artifact: no warning" not grep -q 'not an artifact' err
for r in $O/runs/frag/0001-frag-stock53.intoto.json $O/runs/frag/0020-frag-aa.intoto.json; do
	check "$r ran frag-stock53's frag" test "$(json $r 'd["predicate"]["program"]')" = \
		"{'arg': 0, 'path': 'variants/frag-stock53/build/frag', 'name': 'frag', 'sha256': '$(sha256sum <$O/variants/frag-stock53/build/frag | cut -c1-64)', 'artifact': True}"
	check "$r: the measured window between its marks" test "$(json $r '(d["predicate"]["sampling"]["window"]["started_by"], d["predicate"]["sampling"]["window"]["ended_by"])')" = "('mark', 'mark')"
done
check "frag's figures" test "$(json $O/runs/frag/0002-frag-special53.intoto.json '[m["name"] for m in d["predicate"]["metrics"]]')" = \
	"['allocs_per_s', 'resident_mib', 'frag_pct']"
ok "allocbuild run --env-only"
json out 'd["kernel"]' >/dev/null || fail "run --env-only: $(cat out)"
# compare: 0, or 1 when the A/A control shows a difference (a machine too noisy to tell, which is what it is for)
step "allocbuild compare allocbuild-out/jemalloc-5.3.0-policy --name frag"
case $TOUR_RC in
0) expect_grep "A/A control: frag-stock53 against frag-aa (the same bytes, sha256 $(sha256sum <$O/variants/frag-stock53/build/frag | cut -c1-12), and runtime environment: an A/A pair by construction): no difference shown in any metric." out ;;
1) expect_grep "UNRELIABLE: " out; expect_grep "shows a difference in" err ;;
*) cat out err >&2; fail "compare exited $TOUR_RC" ;;
esac
expect_grep "runs/frag: 20 runs of 4 labels, 0 failed; baseline frag-stock53; paired by repetition (rotated runs)" out
# the setting's effect frag measures, at build time or at run time alike
for l in frag-special53 frag-fit-only; do
	grep -Eq "^resident_mib +MiB +- +$l +5 .* better( \(unreliable\))?$" out || { cat out; fail "resident_mib of $l: not better"; }
done
grep -Eq '^resident_mib +MiB +- +frag-aa +5 .* no difference shown \(A/A control' out || { cat out; fail "resident_mib of frag-aa"; }
# jemalloc's own statistics at exit, in a run name of their own (a setting of the allocator)
ok "allocbuild run allocbuild-out/jemalloc-5.3.0-policy frag-fit-only --allocator-stats --name frag-stats"
r=$O/runs/frag-stats/0001-frag-fit-only.intoto.json
check "frag-stats: jemalloc's figures, its MALLOC_CONF joined" test \
	"$(json $r '(sorted(d["predicate"]["allocator_stats"]["figures"]), d["predicate"]["env_overrides"]["MALLOC_CONF"])')" = \
	"(['active', 'allocated', 'dirty', 'mapped', 'metadata', 'muzzy', 'resident', 'retained'], 'lg_extent_max_active_fit:30,stats_print:true,stats_print_opts:Jgadblxeh')"
check "frag-stats: frag's own figures too" test "$(json $r '[m["name"] for m in d["predicate"]["metrics"]][:3]')" = \
	"['allocs_per_s', 'resident_mib', 'frag_pct']"

umask 077
ok "allocbuild build --check --mirror-dir mirror recipes/jemalloc-5.3.0-policy.json"
[ "$(grep -c ': up to date$' err)" -ge 2 ] || fail "the suite's build was not up to date here"
o=$O
O=$PWD/$o
L=$O/reproducibility/check
stock=$(sha256sum $o/variants/stock53/build/lib/libjemalloc_pic.a | cut -c1-64)
special=$(sha256sum $o/variants/special53/build/lib/libjemalloc_pic.a | cut -c1-64)
fstock=$(sha256sum $o/variants/frag-stock53/build/frag | cut -c1-64)
fspecial=$(sha256sum $o/variants/frag-special53/build/frag | cut -c1-64)
sed -n '/^reproducibility:/,$p' out | sed 's/ with -j [0-9]*$/ with -j N/' >report
cat >want <<EOT
reproducibility: built again in $L with -j N
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
arts $o >a1
arts "$L" >a2
[ "$(wc -l <a1)" = 4 ] || fail "artifacts: $(cat a1)"
diff -u a1 a2 || fail "the artifacts differ between $O and $L"
check "the check at twice the build's jobs" test "$(json "$L/provenance/build-commands.json" 'd["options"]["jobs"]')" = \
	"$((2 * $(json $o/provenance/build-commands.json 'd["options"]["jobs"]')))"
# nothing of either OUTDIR, the cache or the home directory in an artifact
for a in $o/variants/*/build/lib/libjemalloc_pic.a "$L"/variants/*/build/lib/libjemalloc_pic.a $o/variants/*/build/frag \
	"$L"/variants/*/build/frag; do
	! grep -aqF -e "$O" -e "$DEFAULT_OUTDIR" -e "$HOME" -e "$XDG_CACHE_HOME" "$a" || fail "$a names a build directory"
done
grep -aq "/allocbuild/src/src/jemalloc.c" $o/variants/stock53/build/lib/libjemalloc_pic.a ||
	fail "the debug info does not name the mapped source"
# the children ran with umask 022, whatever the caller's (077 here)
[ "$(stat -c %a "$L/variants/stock53/build/lib/libjemalloc_pic.a")" = 644 ] || fail "the umask reached the build"

# the record: in SHA256SUMS, verify checks it
R=$o/provenance/reproducibility.intoto.json
check "the record, listed" grep -q '  provenance/reproducibility.intoto.json$' $o/SHA256SUMS
check "the record's subjects" test "$(json $R '[(s["name"], s["digest"]["sha256"]) for s in d["subject"]]')" = \
	"[('variants/stock53/build/lib/libjemalloc_pic.a', '$stock'), ('variants/special53/build/lib/libjemalloc_pic.a', '$special'), ('variants/frag-stock53/build/frag', '$fstock'), ('variants/frag-special53/build/frag', '$fspecial')]"
check "the record's summary" test "$(json $R 'd["predicate"]["comparison"]["summary"]')" = "4/4 artifacts identical"
# (26 files of the build, 63 of the runs: 21 runs, each a record, a log and a series)
expect_exit 0 "$AB" verify $o
{ echo "verified 89 files in $o"; echo "pass: OUTDIR $o: every file matches SHA256SUMS and the statement; signatures not checked (--key PUB.pem)"; } | expect_file out
# the shipped policy of the default recipe (docs/policy.md): every rule passes on this real OUTDIR
ok "allocbuild verify --policy recipes/jemalloc-5.3.0-policy.policy.json allocbuild-out/jemalloc-5.3.0-policy"
expect_grep "pass: rules[7] reproducible special53: 1/1 artifact identical (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
expect_grep "pass: rules[7] reproducible fit-only: 1/1 artifact identical (its base stock53's) (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
expect_grep "pass: rules[7] reproducible frag-aa: 1/1 artifact identical (its base frag-stock53's) (provenance/reproducibility.intoto.json: predicate.comparison.artifacts)" out
tail -n 1 out | grep -qxF "pass: policy recipes/jemalloc-5.3.0-policy.policy.json: every rule check passed on OUTDIR $o (51)" ||
	fail "the shipped policy: $(grep -v '^pass' out)"

# jemalloc's host probes: the shipped recipe pins them (every host builds
# these bytes); t5510 shows an unpinned build's values, this machine's
B=$o/provenance/binary-provenance.json
pins="['--with-lg-page=12', '--with-lg-hugepage=21', '--with-lg-vaddr=48']"
[ "$(json $B '[(v["label"], v["host_probes"]["LG_PAGE"], v["host_probes"]["LG_HUGEPAGE"], v["host_probes"]["LG_VADDR"], v["host_probes"]["pinned"]) for v in d["variants"][:3]]')" = \
  "[('stock53', 12, 21, 48, $pins), ('special53', 12, 21, 48, $pins), ('fit-only', 12, 21, 48, $pins)]" ] ||
	fail "host probes: $(json $B '[v["host_probes"] for v in d["variants"]]')"
[ "$(json $B 'd["variants"][0]["host_probes"]["header"]')" = include/jemalloc/internal/jemalloc_internal_defs.h ]
# each archive's members, for later comparisons
[ "$(json $B 'len(d["variants"][0]["artifacts"][0]["parts"]["members"])')" = 63 ]

# the toolchain: every tool with its Debian package, in the statement's builderDependencies
I=$o/provenance/provenance.intoto.json
[ "$(json $I '[b["name"] for b in d["predicate"]["runDetails"]["builder"]["builderDependencies"]]')" = \
  "['cc', 'cc1', 'c++', 'cc1plus', 'as', 'ld', 'ar', 'make', 'autoconf', 'libc', 'libc-dev', 'cmake']" ]
json $I '"\n".join("%s %s %s" % (b["name"], b["annotations"]["package"], b["annotations"]["package_version"]) for b in d["predicate"]["runDetails"]["builder"]["builderDependencies"])' >pkgs
while read -r name pkg ver; do
	[ "$(dpkg-query -W -f='${Version}' "$pkg")" = "$ver" ] || fail "$name: $pkg $ver is not what dpkg says"
done <pkgs
[ "$(json $I '[b["annotations"]["package"] for b in d["predicate"]["runDetails"]["builder"]["builderDependencies"] if b["name"] in ("cc", "ld", "libc")]')" = \
  "['gcc-12', 'binutils-x86-64-linux-gnu', 'libc6']" ]
json $I 'd["predicate"]["runDetails"]["builder"]["builderDependencies"][0]["uri"]' | grep -Eq '^pkg:deb/debian/gcc-12@[^?]+\?arch=amd64$'
[ "$(json $o/provenance/build-commands.json '[t["name"] for t in d["variants"][0]["toolchain"]]')" = \
  "['cc', 'cc1', 'c++', 'cc1plus', 'as', 'ld', 'ar', 'make', 'autoconf', 'libc', 'libc-dev']" ]
# what was injected
[ "$(json $I '[d["predicate"]["buildDefinition"]["internalParameters"]["reproducible"]["stock53"][k] for k in ("wrapper", "compiler_flags", "paths", "ar", "ranlib")]')" = \
  "['/allocbuild/ccwrap', [], 'fixed by the build sandbox: /allocbuild/src and /allocbuild/build', 'D added to every operation that writes an archive; U and u removed', '-D']" ]

# pr shows the check and the host probes; its bundle verifies, and rebuilds in a fresh directory
ok "allocbuild pr allocbuild-out/jemalloc-5.3.0-policy"
expect_grep '- `build --check`, built again in a second directory (-j ' $o/pr.md
expect_grep '): **4/4 artifacts identical**' $o/pr.md
expect_grep '| `stock53` | 12 | 21 | 48 | `--with-lg-page=12` `--with-lg-hugepage=21` `--with-lg-vaddr=48` |' $o/pr.md
expect_grep '| `frag-aa` | 5 | 0, 0, 0, 0, 0 | `frag` ' $o/pr.md
check "pr.md names no path of this machine" not grep -qF "$PWD" $o/pr.md
BUNDLE=$o/provenance-jemalloc-5.3.0-policy.tar.gz
ok "allocbuild verify allocbuild-out/jemalloc-5.3.0-policy/provenance-jemalloc-5.3.0-policy.tar.gz"
# (an unsigned bundle: --trust-unsigned after the commands it runs are shown; t7060 tests that gate)
ok "allocbuild rebuild --trust-unsigned --mirror-dir mirror allocbuild-out/jemalloc-5.3.0-policy/provenance-jemalloc-5.3.0-policy.tar.gz"
expect_grep "  stock53: configure [\"/allocbuild/src/configure\"" out
expect_grep "on this machine, in the build sandbox (no network" out
sed -i '1,/^rebuild of /{/^rebuild of /!d}' out
rb=allocbuild-rebuild/jemalloc-5.3.0-policy
cat >want <<EOT
rebuild of $BUNDLE in $PWD/$rb
identical  stock53         variants/stock53/build/lib/libjemalloc_pic.a    ${stock:0:12}
identical  special53       variants/special53/build/lib/libjemalloc_pic.a  ${special:0:12}
identical  frag-stock53    variants/frag-stock53/build/frag                ${fstock:0:12}
identical  frag-special53  variants/frag-special53/build/frag              ${fspecial:0:12}
4/4 artifacts identical
EOT
expect_file out <want
check "the tour ran all its commands" test $n = 15
[ "$(json $rb/provenance/rebuild.intoto.json '[d["predicateType"], d["predicate"]["from"], d["predicate"]["comparison"]["summary"]]')" = \
  "['https://allocbuild.dev/rebuild/v1', 'bundle', '4/4 artifacts identical']" ]
expect_exit 0 "$AB" verify $rb
expect_exit 0 "$AB" pr $rb
expect_grep '): **4/4 artifacts identical**' $rb/pr.md
expect_grep '- `rebuild`, rebuilt in a fresh directory (-j ' $rb/pr.md

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
