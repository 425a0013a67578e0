#!/usr/bin/env bash
# upstream-diff (b): a copy of the 5.3.0 release with one changed source
# file, one added file and one changed template: exact statuses, exit 1,
# and the unified diffs of --diff (plus a binary file and a symlink).
. "$TOP/tests/lib.sh"

tar xjf "$JEMALLOC_TARBALL"
mv jemalloc-5.3.0 mod
sed -i '37s/.*/    = "narenas:2";/' mod/src/jemalloc.c
sed -i 's/^Cflags: -I${includedir}$/& -DVENDORED/' mod/jemalloc.pc.in
printf 'int vendor_extra;\n' >mod/src/vendor_extra.c

expect_exit 1 "$AB" upstream-diff --diff mod "$JEMALLOC_TARBALL"
[ ! -s err ] || { cat err; fail "unexpected stderr"; }
sed -n '3,$p' out >body
expect_file body <<'EOF2'

differs            template   jemalloc.pc.in
differs            source     src/jemalloc.c
only in candidate  source     src/vendor_extra.c

--- upstream/jemalloc.pc.in
+++ candidate/jemalloc.pc.in
@@ -8,5 +8,5 @@ Name: jemalloc
 Description: A general purpose malloc(3) implementation that emphasizes fragmentation avoidance and scalable concurrency support.
 URL: http://jemalloc.net/
 Version: @jemalloc_version_major@.@jemalloc_version_minor@.@jemalloc_version_bugfix@_@jemalloc_version_nrev@
-Cflags: -I${includedir}
+Cflags: -I${includedir} -DVENDORED
 Libs: -L${libdir} -ljemalloc${install_suffix}
--- upstream/src/jemalloc.c
+++ candidate/src/jemalloc.c
@@ -34,7 +34,7 @@ const char	*je_malloc_conf
 #ifndef _WIN32
     JEMALLOC_ATTR(weak)
 #endif
-    ;
+    = "narenas:2";
 /*
  * The usual rule is that the closer to runtime you are, the higher priority
  * your configuration settings are (so the jemalloc config options get lower

class      identical  differ only in candidate only in upstream
source            65       1                 1                0
header           124       0                 0                0
template          16       1                 0                0
build             34       0                 0                0
test             209       0                 0                0
doc                9       0                 0                0
metadata           7       0                 0                0
generated          4       0                 0                0

471 files in candidate: 468 identical, 2 differ, 1 only in candidate; 0 only in upstream
verdict: differs from upstream: 3 significant differences: jemalloc.pc.in (template), src/jemalloc.c (source), src/vendor_extra.c (source)
EOF2

# the diff applies: patch -p1 turns the upstream tree into the candidate's
tar xjf "$JEMALLOC_TARBALL"
sed -n '/^--- upstream/,/^$/p' out | sed '$d' >vendor.patch
(cd jemalloc-5.3.0 && patch -s -p1 <../vendor.patch)
cmp jemalloc-5.3.0/src/jemalloc.c mod/src/jemalloc.c || fail "patched jemalloc.c differs"
cmp jemalloc-5.3.0/jemalloc.pc.in mod/jemalloc.pc.in || fail "patched jemalloc.pc.in differs"

# JSON: statuses, classes, significance and the diff text
expect_exit 1 "$AB" upstream-diff --json --diff mod "$JEMALLOC_TARBALL"
mv out report.json
[ "$(json report.json '[(f["path"], f["status"], f["class"], f["significant"]) for f in d["files"] if f["status"] != "identical"]')" = \
  "[('jemalloc.pc.in', 'differs', 'template', True), ('src/jemalloc.c', 'differs', 'source', True), ('src/vendor_extra.c', 'only-in-candidate', 'source', True)]" ] || fail "json statuses"
[ "$(json report.json '[f["diff"].splitlines()[6] for f in d["files"] if f["path"] == "src/jemalloc.c"][0]')" = '-    ;' ] || fail "json diff"
[ "$(json report.json 'd["matches"]')" = False ] || fail "matches"
[ "$(json report.json 'd["counts"]["significant"]')" = 3 ] || fail "significant"

# test, doc and metadata changes alone do not fail without --strict;
# a binary file is reported as binary; symlinks are compared as links
tar xjf "$JEMALLOC_TARBALL"
mv jemalloc-5.3.0 docs
echo "local note" >>docs/README
printf 'GIF\0\1' >docs/doc_internal/jemalloc.svg
echo "# local" >>docs/.gitignore
echo "/* t */" >>docs/test/unit/a0.c
ln -s /etc/passwd docs/doc/passwd-link
mkdir up
ln -s COPYING up/LICENSE
ln -s README up/README.vendor
ln -s COPYING docs/LICENSE
ln -s TUNING.md docs/README.vendor
tar xjf "$JEMALLOC_TARBALL" -C up --strip-components=1
expect_exit 0 "$AB" upstream-diff --diff docs up
expect_grep "differs            doc        README.vendor (symbolic link to 'TUNING.md' in candidate, to 'README' in upstream)" out
expect_grep "only in candidate  doc        doc/passwd-link (symbolic link)" out
expect_grep "Binary files upstream/doc_internal/jemalloc.svg and candidate/doc_internal/jemalloc.svg differ" out
expect_grep "Symbolic links upstream/README.vendor -> README and candidate/README.vendor -> TUNING.md differ" out
expect_grep "+local note" out
expect_grep "473 files in candidate: 467 identical, 5 differ, 1 only in candidate; 0 only in upstream" out
expect_grep "verdict: matches upstream: no source, header, template or build file differs or is extra" out
