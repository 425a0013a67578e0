# verify: every artifact and manifest is checked against SHA256SUMS and the
# in-toto statement; replacing a digest in SHA256SUMS alone hides nothing.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

sha=$(make_fakecmake "$PWD")
cat >r.json <<JSON
{
	"recipe": 1, "name": "vt",
	"sources": {"fc": {"archive": {"urls": ["https://example.invalid/fakecmake-1.0.tar.gz"], "sha256": "$sha", "strip": 1}}},
	"variants": [{"label": "a", "source": "fc",
		"build": {"system": "cmake", "defines": {"FLB_FAKE_TAG": "A"}, "targets": ["prog"]},
		"artifacts": ["prog", "libfakealloc.a"]}]
}
JSON
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
expect_exit 0 "$AB" verify bo
expect_grep "verified " out
cp -a bo pristine

# a changed artifact
printf 'x' >>bo/variants/a/build/prog
new=$(sha256sum bo/variants/a/build/prog | cut -d' ' -f1)
old=$(sha256sum pristine/variants/a/build/prog | cut -d' ' -f1)
expect_exit 1 "$AB" verify bo
expect_file out <<X
variants/a/build/prog: expected $old, actual $new
FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)
X

# ... with its SHA256SUMS line rewritten: the statement still says otherwise
sed -i "s/^$old  variants\/a\/build\/prog\$/$new  variants\/a\/build\/prog/" bo/SHA256SUMS
grep -qx "$new  variants/a/build/prog" bo/SHA256SUMS || fail "SHA256SUMS was not rewritten"
expect_exit 1 "$AB" verify bo
expect_grep "variants/a/build/prog: expected $old, actual $new" out

# a changed manifest
rm -rf bo && cp -a pristine bo
sed -i 's/"vt"/"vT"/' bo/provenance/sources.json
expect_exit 1 "$AB" verify bo
grep -qE '^provenance/sources.json: expected [0-9a-f]{64}, actual [0-9a-f]{64}$' out || { cat out; fail "sources.json not named"; }

# a missing artifact
rm -rf bo && cp -a pristine bo
rm bo/variants/a/build/libfakealloc.a
expect_exit 1 "$AB" verify bo
grep -qE '^variants/a/build/libfakealloc.a: expected [0-9a-f]{64}, actual missing$' out || { cat out; fail "missing file not named"; }

# not an OUTDIR
mkdir empty
expect_exit 2 "$AB" verify empty
echo "allocbuild: 'empty' has no SHA256SUMS: not an allocbuild output directory" | expect_file err
# SHA256SUMS there, but a symlink out of OUTDIR: said so, not "has no SHA256SUMS"
rm -rf bo && cp -a pristine bo
mv bo/SHA256SUMS sums.outside && ln -s ../sums.outside bo/SHA256SUMS
expect_exit 2 "$AB" verify bo
echo "allocbuild: cannot read 'bo/SHA256SUMS': leaves the directory through symlink 'SHA256SUMS'" | expect_file err
