#!/usr/bin/env bash
# merge refuses shards whose sources were not the same: a git source named
# by a branch (--allow-unpinned) that moved between the two shards'
# builds. The recipe digest is the same, the commits differ, and merge
# names the source and both commits (exit 1, nothing written). The same
# shards at the same commit merge.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj "$PWD" >/dev/null
git init -q fp.git
cp -a fakeproj-1.0/. fp.git/
git -C fp.git add -A
git -C fp.git commit -qm one
c1=$(git -C fp.git rev-parse HEAD)
cat >r.json <<'JSON'
{"recipe": 1, "name": "pins",
 "sources": {"fp": {"git": {"url": "https://git.example.invalid/fp.git", "commit": "main"}}},
 "variants": [
  {"label": "a", "source": "fp", "build": {"system": "autotools", "targets": ["lib/libfake.a"]}, "artifacts": ["lib/libfake.a"]},
  {"label": "b", "source": "fp", "build": {"system": "autotools", "configure": ["--b"], "targets": ["lib/libfake.a"]},
   "artifacts": ["lib/libfake.a"]}
 ]}
JSON
M="--mirror https://git.example.invalid/=$PWD/ --allow-unpinned"
expect_exit 0 "$AB" plan --matrix -n 2 r.json
[ "$(json out '[e["variants"] for e in d["matrix"]]')" = "[['a'], ['b']]" ]
expect_exit 0 "$AB" build $M --shard 1/2 -o s1 r.json
expect_exit 0 "$AB" build $M --shard 2/2 -o s2 r.json
expect_exit 0 "$AB" merge -o same s1 s2
expect_exit 0 "$AB" verify same

echo two >>fp.git/fake.c
git -C fp.git commit -qam two
c2=$(git -C fp.git rev-parse HEAD)
expect_exit 0 "$AB" build $M --shard 2/2 -o moved r.json
expect_exit 1 "$AB" merge -o m s1 moved
expect_grep "source 'fp' differs: gitCommit:$c1 in 's1', gitCommit:$c2 in 'moved': not merged" err
[ ! -e m ] || fail "a refused merge wrote its OUTDIR"
