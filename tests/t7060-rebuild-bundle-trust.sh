#!/usr/bin/env bash
# rebuild of a bundle runs the commands of its recipe: a forged bundle (a
# prepare command added, every digest and index made anew, so that the
# plain verify passes) is refused with exit 1 by --key before anything
# runs; without --key the commands are printed as argv lists and nothing
# runs unless --trust-unsigned is given or a yes is typed on the terminal;
# the genuine bundle rebuilds with its signer's key, and not with another.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build rbt lib/libfake.a bin/fake
T=provenance-rbt
J=provenance/provenance.intoto.jsonl
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
B=pr/$T.tar.gz
mkdir x && tar -xzf $B -C x
# the forged command writes into its own tree and tries the reviewer's directory
forge_recipe x $T "r['sources']['fake']['prepare'] = [['sh', '-c', 'id > ran; id > $PWD/ran; exit 0']]"
repack_bundle x $T forged.tar.gz
expect_exit 0 "$AB" verify forged.tar.gz

# --- without a key, no terminal: the commands are shown as argv lists, and refused
expect_exit 2 "$AB" rebuild --mirror-dir mirror -o rb forged.tar.gz </dev/null
sha=$(json x/$T/recipe.json 'd["sources"]["fake"]["archive"]["sha256"]')
expect_file out <<X
'forged.tar.gz' is not checked against a signer's key (--key PUB.pem): rebuilding it runs these commands of its recipe, as you, on this machine, in the build sandbox (no network, none of your files but the rebuild's directory; docs/build.md, "Sandbox"):
  source fake: archive https://example.invalid/fakeproj-1.0.tar.gz sha256 $sha
  a: prepare ["sh","-c","id > ran; id > $PWD/ran; exit 0"]
  a: configure ["/allocbuild/src/configure"]
      in /allocbuild/build
  a: build ["make","all"]
      in /allocbuild/build
X
echo "allocbuild: 'forged.tar.gz': refusing to run the commands of an unverified bundle: give the signer's public key (--key PUB.pem), or --trust-unsigned once you have read them (above)" |
	expect_file err
[ ! -e ran ] && [ ! -e rb ] || fail "an unverified bundle ran or wrote something"
# --- with the signer's key: the forged recipe is refused, nothing runs, nothing is written
expect_exit 1 "$AB" rebuild --key ed.pub.pem --mirror-dir mirror -o rb forged.tar.gz
expect_grep "signs a statement that the bundle does not hold" out
echo "allocbuild: 'forged.tar.gz': its signatures do not verify with the keys given (above): nothing of it is run" |
	expect_file err
[ ! -e ran ] && [ ! -e rb ] || fail "a forged bundle ran or wrote something with --key"
# the genuine bundle with another key: refused the same way
expect_exit 1 "$AB" rebuild --key ec.pub.pem --mirror-dir mirror -o rb $B
expect_grep "'$B': its signatures do not verify with the keys given" err
[ ! -e rb ] || fail "a bundle signed by another key was rebuilt"

# on a terminal, anything but yes refuses too
printf 'n\n' | script -qec "'$AB' rebuild --mirror-dir mirror -o rb forged.tar.gz" /dev/null >tty.out 2>&1 || true
expect_grep "run these commands? [y/N]" tty.out
expect_grep "refusing to run the commands of an unverified bundle" tty.out
[ ! -e ran ] && [ ! -e rb ] || fail "a no on the terminal ran something"
# option errors
expect_exit 2 "$AB" rebuild --trust-unsigned --key ed.pub.pem forged.tar.gz
expect_grep "rebuild: --trust-unsigned and --key: the signatures are checked or not" err
expect_exit 2 "$AB" rebuild --require-all forged.tar.gz
expect_grep "rebuild: --require-all needs --key" err

# --- the genuine bundle with its signer's key rebuilds, identical
expect_exit 0 "$AB" rebuild -v --key ed.pub.pem --mirror-dir mirror -o rb $B
expect_grep "$J:1: ok: provenance/provenance.intoto.json, signed by ed25519" out
expect_grep "2/2 artifacts identical" out
# --- a yes on the terminal runs what was shown; so does --trust-unsigned
printf 'yes\n' | script -qec "'$AB' rebuild --mirror-dir mirror -o rb2 forged.tar.gz" /dev/null >tty.out 2>&1 ||
	{ cat tty.out >&2; fail "a yes on the terminal did not rebuild"; }
[ -s rb2/variants/a/src/ran ] || fail "the shown prepare command did not run after a yes"
# it ran in the build sandbox: nothing of the reviewer's files was there to write
[ ! -e ran ] || fail "the forged command wrote into the reviewer's directory"
expect_exit 0 "$AB" rebuild --trust-unsigned --mirror-dir mirror -o rb3 forged.tar.gz
expect_grep "  a: prepare [\"sh\",\"-c\",\"id > ran; id > $PWD/ran; exit 0\"]" out
[ -s rb3/variants/a/src/ran ] || fail "--trust-unsigned did not rebuild"
[ ! -e ran ] || fail "the forged command wrote into the reviewer's directory"
