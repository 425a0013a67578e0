#!/usr/bin/env bash
# A link command cannot make allocbuild write outside its trees through a
# log (issue 44, H3): a relink's link command, run in the build sandbox,
# used to plant a symbolic link at /allocbuild/logs/01-relink.log, and
# allocbuild, outside the sandbox, then appended the linker's output to
# whatever file the link named. Here the from variant's CMake project
# links with a linker of its own (gcc -B) that plants such links (for the relink's log
# and for the probe log allocbuild writes later) to a file of the caller:
# the logs directory is read-only in the sandbox (only the compile log is
# writable there, as a file), so the links are refused, the caller's file
# keeps its bytes, and the logs are allocbuild's own.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

echo "the caller's file" >victim
cp victim victim.orig
sha=$(make_fakecmake "$PWD")
# the same project, with a linker launcher that plants links in the logs
rm -rf fakecmake-1.0 && tar -xzf fakecmake-1.0.tar.gz
cat >>fakecmake-1.0/CMakeLists.txt <<'CM'
if(PLANT)
  # gcc finds its linker under -B first: the link of prog runs plant/ld
  configure_file(ld.in "${CMAKE_BINARY_DIR}/plant/ld" @ONLY)
  target_link_options(prog PRIVATE "-B${CMAKE_BINARY_DIR}/plant/")
endif()
CM
cat >fakecmake-1.0/ld.in <<'SH'
#!/bin/sh
for log in 01-relink.log probe.log planted.log; do
	if ln -sfn "@PLANT@" "/allocbuild/logs/$log" 2>/dev/null; then
		echo "plant $log: done" >&2
	else
		echo "plant $log: refused" >&2
	fi
done
exec /usr/bin/ld "$@"
SH
chmod +x fakecmake-1.0/ld.in
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -czf fakecmake-1.0.tar.gz fakecmake-1.0
psha=$(sha256sum fakecmake-1.0.tar.gz | cut -c1-64)
cp fakecmake-1.0.tar.gz mirror/sha256/$psha
make_fakecmake_relink_recipe r.json >/dev/null
python3 - r.json "$psha" "$PWD/victim" <<'PY'
import json, sys
p, sha, victim = sys.argv[1:]
d = json.load(open(p))
d["sources"]["fc"]["archive"]["sha256"] = sha
d["variants"][0]["build"]["defines"]["PLANT"] = victim
json.dump(d, open(p, "w"), indent=1)
PY

expect_exit 0 "$AB" build --mirror-dir mirror -o o r.json
check "the caller's file keeps its bytes" cmp victim victim.orig
for l in 01-relink.log planted.log; do
	check "no link planted at logs/$l" not test -L "o/variants/a-with-b/logs/$l"
done
check "no link planted at a's probe.log" not test -L o/variants/a/logs/probe.log
check "the linker ran in the relink and was refused" grep -q 'plant 01-relink.log: refused' o/variants/a-with-b/logs/01-relink.log
check "the linker ran in a's build and was refused" grep -q 'plant probe.log: refused' o/variants/a/logs/03-build.log
check "no link was planted" not grep -rqx "plant .*: done" o/variants/*/logs
check "the relink's log is allocbuild's" grep -qx "cd /allocbuild/build" o/variants/a-with-b/logs/01-relink.log
expect_exit 0 "$AB" verify o
