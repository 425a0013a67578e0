#!/usr/bin/env bash
# issue 18, item 6: a relink never writes over what it reads. An output or
# provenance path that is an input of the link (an object, an archive, a
# response file, link.txt itself, a replacement) or the other one is
# refused, by the command and for a recipe's relink, and nothing changes.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakecmake_relink_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json a b
A=bo/variants/a/build
LT=$A/CMakeFiles/prog.dir/link.txt
sha256sum $LT $A/libfakealloc.a bo/variants/b/build/libfakealloc.a $A/CMakeFiles/prog.dir/main.c.o >before

refused() { # what-the-error-says ARGS...
	local msg=$1
	shift
	expect_exit 2 "$AB" relink --link-txt $LT --replace libfakealloc.a=bo/variants/b/build/libfakealloc.a "$@"
	expect_grep "$msg" err
	sha256sum -c --quiet before || fail "relink $* changed its inputs"
	[ ! -e rl ] || fail "relink $* wrote something"
}
refused "provenance '$A/libfakealloc.a' is an input of the link ('libfakealloc.a')" \
	--output rl/prog --provenance $A/libfakealloc.a
refused "output '$A/libfakealloc.a' is an input of the link ('libfakealloc.a')" --output $A/libfakealloc.a
refused "output '$LT' is the link's own link.txt" --output $LT
refused "provenance '$LT' is the link's own link.txt" --output rl/prog --provenance $LT
refused "output '$A/CMakeFiles/prog.dir/main.c.o' is an input of the link ('CMakeFiles/prog.dir/main.c.o')" \
	--output $A/CMakeFiles/prog.dir/main.c.o
refused "output 'bo/variants/b/build/libfakealloc.a' is an input of the link ('$PWD/bo/variants/b/build/libfakealloc.a')" \
	--output bo/variants/b/build/libfakealloc.a
refused "provenance 'rl/prog' is the relink's output" --output rl/prog --provenance rl/prog
# a sane relink still works
expect_exit 0 "$AB" relink --link-txt $LT --replace libfakealloc.a=bo/variants/b/build/libfakealloc.a \
	--output rl/prog --provenance rl/prov.json
[ "$(rl/prog)" = "fake 2.0.0-0-g0123456789abcdef B" ] || fail "the relinked program is not b's"

# a recipe relink whose output is link.txt: the relink fails, link.txt stays, nothing is up to date later
sed -i 's|"output": "prog-relinked"|"output": "CMakeFiles/prog.dir/link.txt"|' r.json
expect_exit 1 "$AB" build --mirror-dir mirror -o bo r.json
expect_grep "output '$PWD/$LT' is the link's own link.txt: choose another path" err
sha256sum -c --quiet before || fail "the recipe's relink changed link.txt"
[ ! -e bo/variants/a-with-b/state.json ] || fail "the refused relink has a state"
expect_exit 1 "$AB" build --mirror-dir mirror -o bo r.json
expect_no_grep "a-with-b: relink CMakeFiles/prog.dir/link.txt: up to date" err
