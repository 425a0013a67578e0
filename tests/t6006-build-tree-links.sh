#!/usr/bin/env bash
# What a sandboxed step leaves in its build tree cannot make allocbuild
# read a file of the host (issue 44, H3): a link command that replaced
# link.txt or CMakeCache.txt by a symbolic link to a host file had
# allocbuild, outside the sandbox, read that file into the records (a
# relink's command, the CMake cache). Here the from variant's linker
# (gcc -B) plants such links to a file of the caller holding a secret:
# the files of the build tree are read without following a link out of
# it, the variants fail naming the link, and the secret is nowhere.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

printf 'cc -o out-SECRET6006 SECRET6006.o\n' >secret
sha=$(make_fakecmake "$PWD")
rm -rf fakecmake-1.0 && tar -xzf fakecmake-1.0.tar.gz
cat >>fakecmake-1.0/CMakeLists.txt <<'CM'
if(PLANT)
  configure_file(ld.in "${CMAKE_BINARY_DIR}/plant/ld" @ONLY)
  target_link_options(prog PRIVATE "-B${CMAKE_BINARY_DIR}/plant/")
endif()
CM
cat >fakecmake-1.0/ld.in <<'SH'
#!/bin/sh
/usr/bin/ld "$@" || exit
ln -sfn "@SECRET@" "/allocbuild/build/@PLANT@"
SH
chmod +x fakecmake-1.0/ld.in
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -czf fakecmake-1.0.tar.gz fakecmake-1.0
psha=$(sha256sum fakecmake-1.0.tar.gz | cut -c1-64)
cp fakecmake-1.0.tar.gz mirror/sha256/$psha
make_fakecmake_relink_recipe r.json >/dev/null
python3 - r.json "$psha" "$PWD/secret" <<'PY'
import json, sys
p, sha, secret = sys.argv[1:]
d = json.load(open(p))
d["sources"]["fc"]["archive"]["sha256"] = sha
a, b, rl = d["variants"]
lt = json.loads(json.dumps(a)); lt["label"] = "lt"
lt["build"]["defines"].update({"PLANT": "CMakeFiles/prog.dir/link.txt", "SECRET": secret})
cache = json.loads(json.dumps(a)); cache["label"] = "cache"
cache["build"]["defines"].update({"PLANT": "CMakeCache.txt", "SECRET": secret})
rl["label"] = "lt-with-b"; rl["relink"]["from"] = "lt"
d["variants"] = [lt, cache, b, rl]
json.dump(d, open(p, "w"), indent=1)
PY

expect_exit 1 "$AB" build -k --mirror-dir mirror -o o r.json
check "the relink refused link.txt" grep -qF "allocbuild: cannot read '$PWD/o/variants/lt/build/CMakeFiles/prog.dir/link.txt': it leaves the directory through symlink 'CMakeFiles/prog.dir/link.txt' ('$PWD/o/variants/lt/build')" err
check "the CMake provenance refused CMakeCache.txt" grep -qF "allocbuild: cannot read '$PWD/o/variants/cache/build/CMakeCache.txt': it leaves the directory through symlink 'CMakeCache.txt' ('$PWD/o/variants/cache/build')" err
check "the links were there" test -L o/variants/lt/build/CMakeFiles/prog.dir/link.txt
check "the secret is nowhere in the OUTDIR" not grep -rqF SECRET6006 o
check "nor in what allocbuild said" not grep -qF SECRET6006 err out
