#!/usr/bin/env bash
# Debian's reproducible-builds judge on the default recipe's build:
# reprotest builds recipes/jemalloc-5.3.0-policy.json (two jemalloc
# archives, frag linked against each) twice, a control and an experiment
# whose build varies every variation this machine can vary (build path,
# environment, umask, locales, timezone, CPU count, kernel personality,
# home, exec path, ASLR, time under faketime, file ordering under
# disorderfs, domain and host names), and every artifact must be
# identical: "Reproduction successful".
#
# Not varied: user_group. It needs sudo, and reprotest's own sudo call
# (`sudo -E -u ... -h`) fails on Debian 12's sudo ("sudo: a remote host
# may only be specified when listing privileges").
#
# Under the sanitizers (make asan, O=.obj-asan) it is skipped: its two
# builds take minutes and the sanitizers change no byte of what
# allocbuild builds (t4010 builds the same recipe under them), so the
# run proves nothing the plain one did not.
. "$TOP/tests/lib.sh"

skip_under_sanitizers "they change no byte of what allocbuild builds (t4010 builds this recipe under them), and reprotest's two builds take minutes"
for t in reprotest faketime disorderfs diffoscope; do
	command -v $t >/dev/null || fail "no $t (scripts/install-deps.sh)"
done

mkdir -p src/mirror
cp "$JEMALLOC_TARBALL" src/mirror/
cp "$TOP/recipes/jemalloc-5.3.0-policy.json" src/r.json
cp -a "$TOP/recipes/frag" src/frag

variations=+all,-user_group
echo "t4130: not varied: user_group (reprotest's sudo -E -u USER -h fails on Debian 12: \"a remote host may only be specified when listing privileges\")" >&2
if [ ! -c /dev/fuse ] || ! command -v fusermount >/dev/null; then
	variations=$variations,-fileordering
	echo "t4130: not varied: fileordering (disorderfs needs FUSE: no /dev/fuse or fusermount here)" >&2
fi
rc=0
reprotest --verbosity 1 --variations="$variations" --store-dir=store \
	-c "$AB build -q --mirror-dir mirror -o out r.json" \
	src 'out/variants/*/build/lib/*.a out/variants/*/build/frag' >rp.out 2>&1 || rc=$?
grep -E '^.*build "experiment-1":' rp.out | sed 's/.*build "experiment-1": /t4130: experiment: /' >&2 || true
[ "$rc" = 0 ] || { tail -n 60 rp.out >&2; fail "reprotest: exit $rc"; }
check "reprotest: reproduction successful" grep -qx "Reproduction successful" rp.out
# the experiment varied all of them
exp=$(grep -E 'build "experiment-1":' rp.out)
for v in environment build_path kernel aslr num_cpus time home locales exec_path timezone umask domain_host; do
	case "$exp" in
	*"vary $v"*) ;;
	*) fail "reprotest did not vary $v: $exp" ;;
	esac
done
case "$variations" in
*-fileordering*) ;;
*) case "$exp" in *"vary fileordering"*) ;; *) fail "reprotest did not vary fileordering: $exp" ;; esac ;;
esac
# every artifact of the recipe was compared: 2 archives, 2 frag programs
n=$(sed -n '/^No differences in/,$p' rp.out | grep -cE '^[0-9a-f]{64}  ')
[ "$n" = 4 ] || { sed -n '/^No differences in/,$p' rp.out >&2; fail "reprotest compared $n artifacts, not 4"; }
