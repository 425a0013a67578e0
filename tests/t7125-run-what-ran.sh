#!/usr/bin/env bash
# run records what ran (docs/runs.md, "What ran"): the program COMMAND
# resolves to and every argument that names an existing regular file,
# hashed, by their path in OUTDIR (an artifact or not) or else by base
# name and digest alone; a program that is no artifact of the OUTDIR is
# warned about, naming the fixes; `--program PATH` makes the program that
# runs the records' subject, kept under runs/NAME/programs/ once (an
# artifact is not copied); verify re-hashes what of it is inside OUTDIR;
# pr.md shows the program's digest per label; the bundle and verify --key
# take the kept program as any other file.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

make_fakeproj_runtime_recipe r.json
# an archive-only variant beside: its runs' subject is its library
python3 - <<'PY'
import json
d = json.load(open("r.json"))
d["variants"].append({"label": "lib", "source": "fake",
    "build": {"system": "autotools", "configure": [], "targets": ["lib/libfake.a"]}, "artifacts": ["lib/libfake.a"]})
json.dump(d, open("r.json", "w"), indent=1)
PY
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
sha() { sha256sum "$1" | cut -c1-64; }
bin=bo/variants/a/build/bin/fake
P='d["predicate"]'
echo data >input.txt
printf '#!/bin/sh\nexec "$@"\n' >drive
chmod +x drive

# --- the program an artifact, and the files the arguments name: no warning
expect_exit 0 "$AB" run bo a --name p -- {bin} input.txt bo/variants/a/build/Makefile /etc/hostname bo nosuch
check "no warning for an artifact" not grep -q 'not an artifact' err
R=bo/runs/p/0001-a.intoto.json
check "the program" test "$(json $R "$P['program']")" = \
	"{'arg': 0, 'path': 'variants/a/build/bin/fake', 'name': 'fake', 'sha256': '$(sha $bin)', 'artifact': True}"
cat >want <<X
[1, None, 'input.txt', '$(sha input.txt)', False]
[2, 'variants/a/build/Makefile', 'Makefile', '$(sha bo/variants/a/build/Makefile)', False]
[3, None, 'hostname', '$(sha /etc/hostname)', False]
X
json $R "'\n'.join(str([f['arg'], f['path'], f['name'], f['sha256'], f['artifact']]) for f in $P['files'])" >files
expect_file files <want
check "no --program, no subject_program" test "$(json $R "$P['subject_program']")" = None
check "the subject: the label's artifact" test "$(json $R 'd["subject"][0]["name"]')" = variants/a/build/bin/fake

# --- a program that is no artifact: warned about, once, with the fixes; recorded by name and digest
expect_exit 0 "$AB" run bo lib a --name d -- ./drive true
grep 'warning' err >warned
cat >want <<X
allocbuild: warning: run: lib: its program './drive' (sha256 $(sha drive | cut -c1-12)) is not an artifact of 'bo', and no file its arguments name is: the records name it by its digest alone; build it as a variant of the recipe (and run {bin}), or give the program that runs with --program PATH (kept with the runs as their subject)
X
expect_file warned <want
check "the driver by name and digest" test "$(json bo/runs/d/0001-lib.intoto.json "$P['program']")" = \
	"{'arg': 0, 'path': None, 'name': 'drive', 'sha256': '$(sha drive)', 'artifact': False}"
check "an archive label's subject: its library" test "$(json bo/runs/d/0001-lib.intoto.json 'd["subject"][0]["name"]')" = \
	variants/lib/build/lib/libfake.a
# a program found in PATH: the file exec runs, resolved
expect_exit 0 "$AB" run bo a --name t -- true
check "true from PATH" test "$(json bo/runs/t/0001-a.intoto.json "$P['program']['sha256']")" = "$(sha "$(readlink -f "$(type -P true)")")"

# --- --program PATH: the records' subject, kept once under runs/NAME/programs/
cp $bin prog-a
cp $bin prog-a2
printf '\n' >>prog-a2
expect_exit 0 "$AB" run bo a a2 --name k --repeat 2 --program ./prog-{label} -- ./drive ./prog-{label}
check "no warning with --program" not grep -q 'not an artifact' err
ka=runs/k/programs/$(sha prog-a | cut -c1-12)-prog-a
ka2=runs/k/programs/$(sha prog-a2 | cut -c1-12)-prog-a2
check "a's subject: its kept program" test "$(json bo/runs/k/0001-a.intoto.json 'd["subject"]')" = \
	"[{'name': '$ka', 'digest': {'sha256': '$(sha prog-a)'}}]"
check "a2's subject" test "$(json bo/runs/k/0004-a2.intoto.json 'd["subject"][0]["name"]')" = "$ka2"
check "subject_program" test "$(json bo/runs/k/0001-a.intoto.json "$P['subject_program']")" = \
	"{'path': None, 'name': 'prog-a', 'sha256': '$(sha prog-a)', 'artifact': False, 'kept': '$ka'}"
check "the label's artifact stays recorded" test "$(json bo/runs/k/0001-a.intoto.json "$P['artifact']['path']")" = \
	variants/a/build/bin/fake
cmp prog-a bo/$ka || fail "the kept program is not the program"
cmp prog-a2 bo/$ka2 || fail "the kept program is not the program"
check "each kept program listed once" test "$(grep -c '  runs/k/programs/' bo/SHA256SUMS)" = 2
# again: the kept copies serve, no second line
expect_exit 0 "$AB" run bo a --name k --program ./prog-{label} -- ./drive ./prog-{label}
check "still listed once" test "$(grep -c '  runs/k/programs/' bo/SHA256SUMS)" = 2
# an artifact given as --program is the subject itself, not copied
expect_exit 0 "$AB" run bo lib --name art --program $bin -- ./drive true
check "an artifact, not kept" test "$(json bo/runs/art/0001-lib.intoto.json 'd["subject"][0]["name"]')" = \
	variants/a/build/bin/fake
check "no programs/ for an artifact" test ! -e bo/runs/art/programs
expect_exit 0 "$AB" verify bo
# refused before anything runs: nothing recorded
cp bo/SHA256SUMS sums.before
expect_exit 2 "$AB" run bo a --name z --program ./nosuch -- ./drive true
echo "allocbuild: run: --program './nosuch': no such file" | expect_file err
expect_exit 2 "$AB" run bo a --name z --program bo -- ./drive true
echo "allocbuild: run: --program 'bo': not a regular file" | expect_file err
cmp sums.before bo/SHA256SUMS || fail "a refused run changed SHA256SUMS"
check "nothing recorded" test ! -e bo/runs/z

# --- verify re-hashes what ran inside OUTDIR
cp bo/variants/a/build/Makefile saved
echo '# changed' >>bo/variants/a/build/Makefile
expect_exit 1 "$AB" verify bo
cat >want <<X
runs/p/0001-a.intoto.json: ran with 'variants/a/build/Makefile' of sha256 $(sha saved), which is now $(sha bo/variants/a/build/Makefile)
FAIL: OUTDIR bo: a check failed (above); signatures not checked (--key PUB.pem)
X
expect_file out <want
cp saved bo/variants/a/build/Makefile
cp bo/$ka saved
printf 'x' >>bo/$ka
expect_exit 1 "$AB" verify bo
expect_grep "$ka: expected $(sha prog-a), actual $(sha bo/$ka)" out
cp saved bo/$ka
expect_exit 0 "$AB" verify bo

# --- pr.md: the program of each label; the bundle holds the kept programs; signed, they verify
make_keys
expect_exit 0 "$AB" pr --sign ed.pem -o pr bo
cat >want <<X
| label | runs | exit statuses | program (sha256) | JUnit |
|---|---|---|---|---|
| \`a\` | 3 | 0, 0, 0 | \`prog-a\` \`$(sha prog-a | cut -c1-12)\` (kept in the bundle) | – |
| \`a2\` | 2 | 0, 0 | \`prog-a2\` \`$(sha prog-a2 | cut -c1-12)\` (kept in the bundle) | – |
X
sed -n '/^#### `k`/,/^| `a2`/p' pr/pr.md | grep '^|' >table
expect_file table <want
sed -n '/^#### `d`/,/^| `a`/p' pr/pr.md | grep '^| `lib`' >row
echo "| \`lib\` | 1 | 0 | \`drive\` \`$(sha drive | cut -c1-12)\` ⚠ not an artifact of this build | – |" | expect_file row
sed -n '/^#### `p`/,/^| `a`/p' pr/pr.md | grep '^| `a`' >row
echo "| \`a\` | 1 | 0 | \`fake\` \`$(sha $bin | cut -c1-12)\` | – |" | expect_file row
mkdir un && tar xzf pr/provenance-fk.tar.gz -C un
cmp prog-a un/provenance-fk/$ka || fail "the bundle lacks the kept program"
expect_exit 0 "$AB" verify pr/provenance-fk.tar.gz
expect_exit 0 "$AB" verify --key ed.pub.pem bo
expect_exit 0 "$AB" verify --key ed.pub.pem pr/provenance-fk.tar.gz
