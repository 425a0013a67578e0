#!/usr/bin/env bash
# issue 18, item 15: one range for the job count of a recipe and of -j; the
# environment variable names of a recipe are names ([A-Za-z_][A-Za-z0-9_]*)
# already for validate; a symlinked recipe's patches are those next to the
# recipe file itself.
. "$TOP/tests/lib.sh"

cat >j.json <<'JSON'
{"recipe": 1, "name": "j",
 "sources": {"s": {"archive": {"urls": ["https://e.invalid/a.tgz"], "sha256": "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa"}}},
 "variants": [{"label": "a", "source": "s", "build": {"system": "autotools", "jobs": 1e9}},
              {"label": "b", "source": "s", "build": {"system": "autotools", "jobs": 1025}},
              {"label": "c", "source": "s", "build": {"system": "autotools", "jobs": 1024}}]}
JSON
expect_exit 2 "$AB" validate j.json
expect_file err <<'X'
j.json:3:86: variants[0].build.jobs: out of range: expected an integer from 1 to 1024, got 1000000000
j.json:4:86: variants[1].build.jobs: out of range: expected an integer from 1 to 1024, got 1025
X
for j in 1025 99999999999; do
	expect_exit 2 "$AB" plan -j "$j" j.json
	expect_grep "allocbuild: plan: invalid job count '$j'" err
done
expect_exit 2 "$AB" plan -j 1024 j.json
expect_no_grep "invalid job count" err

# variable names: runtime env and unset, build env
cat >n.json <<'JSON'
{"recipe": 1, "name": "n",
 "sources": {"s": {"archive": {"urls": ["https://e.invalid/a.tgz"], "sha256": "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa"}}},
 "variants": [{"label": "a", "source": "s", "build": {"system": "autotools", "env": {"1BAD": "x"}},
               "runtime": {"env": {"X$(touch pwned)": "1"}, "unset": ["A-B"]}}]}
JSON
expect_exit 2 "$AB" validate n.json
expect_file err <<'X'
n.json:3:86: variants[0].build.env.1BAD: invalid environment variable name '1BAD': expected [A-Za-z_][A-Za-z0-9_]*
n.json:4:36: variants[0].runtime.env["X$(touch pwned)"]: invalid environment variable name 'X$(touch pwned)': expected [A-Za-z_][A-Za-z0-9_]*
n.json:4:71: variants[0].runtime.unset[0]: invalid environment variable name 'A-B': expected [A-Za-z_][A-Za-z0-9_]*
X
[ ! -e pwned ] || fail "a variable name ran a command"

# a symlinked recipe: its patches are next to the recipe file, not next to the link
git init -q up
printf 'one\n' >up/a.txt
git -C up add a.txt && git -C up commit -qm base
BASE=$(git -C up rev-parse HEAD)
mkdir -p real/patches elsewhere/patches
printf 'one\nreal\n' >up/a.txt && git -C up diff >real/patches/p.patch && git -C up checkout -q a.txt
printf 'one\nwrong\n' >up/a.txt && git -C up diff >elsewhere/patches/p.patch && git -C up checkout -q a.txt
cat >real/r.json <<JSON
{"recipe": 1, "name": "sym",
 "sources": {"up": {"git": {"url": "$PWD/up", "commit": "$BASE"}, "patches": ["patches/p.patch"]}},
 "variants": [{"label": "v", "source": "up", "build": {"system": "autotools"}}]}
JSON
ln -s ../real/r.json elsewhere/r.json
expect_exit 0 "$AB" fetch -o o elsewhere/r.json
[ "$(tail -n 1 o/variants/v/src/a.txt)" = real ] || fail "the patch next to the link was applied"
