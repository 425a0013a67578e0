#!/usr/bin/env bash
# Benchmark of materializing one pinned commit, measured in the same run:
#  (a) allocbuild fetch of a git source (cache warm, fresh output directory:
#      writing the tree with libgit2 plus indexing it, dirHash included)
#      against `git clone --local --no-checkout` + `git checkout` of the
#      same commit                                    (target <= 1.0x git)
#  (b) a repeated allocbuild fetch of the unchanged pin: the tree is
#      verified against its stamp, nothing is written  (target < 0.3 s)
#  (c) the first fetch, the cache empty, from the local repository (the
#      offline mirrors of README's main path): objects hard-linked into the
#      cache as git clone --local does, then the tree written, against the
#      same git clone + checkout                        (target <= 1.0x git)
# The repository is generated once: about 12,000 files and 170 MB of
# source-like (compressible) text, log-normal sizes, some executables and
# symlinks, packed. Peak RSS of each side (GNU time's %M, the largest of
# the rounds) is printed with the times. Work files live in bench/.work/checkout (or
# $BENCH_DIR) and are kept for reruns unless CLEAN=1.
# usage: bench/checkout.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
[ "${CLEAN:-0}" = 1 ] && KEEP=0
bench_setup checkout 1 "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=$WORK/home LC_ALL=C
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@allocbuild.invalid
git config --global init.defaultBranch main

echo "machine before: $(nproc) cores, $(uptime | sed 's/.*load/load/')"
repo=$WORK/repo.git
if [ ! -f "$WORK/repo.done" ]; then
	rm -rf "$WORK/gen" "$repo"
	python3 "$TOP/bench/gentree.py" --text "$WORK/gen"
	git init -q --bare "$repo"
	git --git-dir="$repo" --work-tree="$WORK/gen" add -A
	git --git-dir="$repo" --work-tree="$WORK/gen" commit -qm "generated tree"
	git --git-dir="$repo" repack -adq
	rm -rf "$WORK/gen"
	touch "$WORK/repo.done"
fi
commit=$(git --git-dir="$repo" rev-parse HEAD)
nfiles=$(git --git-dir="$repo" ls-tree -r "$commit" | wc -l)
mb=$(git --git-dir="$repo" ls-tree -r -l "$commit" | awk '{ s += $4 } END { printf "%d", s / 1e6 }')
packmb=$(du -sm "$repo/objects/pack" | cut -f1)
cat >"$WORK/r.json" <<JSON
{"recipe": 1, "name": "bench",
 "sources": {"gen": {"git": {"url": "$repo", "commit": "$commit"}}},
 "variants": [{"label": "v", "source": "gen", "build": {"system": "autotools"}}]}
JSON
cache=$WORK/cache
rm -rf "$WORK/warm"
"$AB" fetch -q --cache "$cache" -o "$WORK/warm" "$WORK/r.json" >/dev/null # fills the cache

: >"$WORK/t.git"
: >"$WORK/t.ab"
: >"$WORK/t.again"
: >"$WORK/c.git"
: >"$WORK/c.ab"
: >"$WORK/c.again"
: >"$WORK/t.cold"
: >"$WORK/c.cold"
rm -f "$WORK"/m.*
# timed CMD...: append wall seconds to $WORK/t.$T, user+sys seconds to $WORK/c.$T, peak RSS (KiB) to $WORK/m.$T
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time1" "$@" >/dev/null
	awk '{ print $1 }' "$WORK/time1" >>"$WORK/t.$T"
	awk '{ printf "%.2f\n", $2 + $3 }' "$WORK/time1" >>"$WORK/c.$T"
	awk '{ print $4 }' "$WORK/time1" >>"$WORK/m.$T"
}
# rss T: the largest peak RSS of T's rounds, in MiB
rss() { sort -n "$WORK/m.$1" | tail -n 1 | awk '{ printf "%.1f MiB", $1 / 1024 }'; }
# Fresh destinations every round, removed only at the end: ext4 avoids
# reusing inodes freed in the last 30 seconds, and allocating around them
# costs whichever command comes right after an rm -rf of a big tree.
rm -rf "$WORK"/g[0-9]* "$WORK"/o[0-9]* "$WORK"/k[0-9]* "$WORK"/n[0-9]*
for ((i = 0; i < ROUNDS; i++)); do
	sync
	T=git timed sh -c 'git clone -q --local --no-checkout "$1" "$2" && git -C "$2" checkout -q "$3"' sh \
		"$repo" "$WORK/g$i" "$commit"
	sync
	T=ab timed "$AB" fetch -q --cache "$cache" -o "$WORK/o$i" "$WORK/r.json"
	T=again timed "$AB" fetch -q --cache "$cache" -o "$WORK/o$i" "$WORK/r.json"
	sync
	T=cold timed "$AB" fetch -q --cache "$WORK/k$i" -o "$WORK/n$i" "$WORK/r.json"
done
# the cold fetches linked the objects (the repository's pack has more links than the one it had)
[ "$(stat -c %h "$(ls "$repo"/objects/pack/*.pack | head -n 1)")" -gt 1 ] ||
	{ echo "bench: the first fetch did not link the repository's objects" >&2; exit 1; }
diff -r --no-dereference "$WORK/o0/variants/v/src" "$WORK/n0/variants/v/src" >/dev/null ||
	{ echo "bench: the first fetch wrote another tree" >&2; exit 1; }
# both wrote the same tree
rm -rf "$WORK/g0/.git"
diff -r --no-dereference "$WORK/g0" "$WORK/o0/variants/v/src" >/dev/null ||
	{ echo "bench: allocbuild's tree differs from git's" >&2; exit 1; }
rm -rf "$WORK"/g[0-9]* "$WORK"/o[0-9]* "$WORK"/k[0-9]* "$WORK"/n[0-9]* "$WORK/warm"
g=$(best <"$WORK/t.git") a=$(best <"$WORK/t.ab") r=$(best <"$WORK/t.again")
gc=$(median <"$WORK/c.git") ac=$(median <"$WORK/c.ab") rc=$(median <"$WORK/c.again")
gm=$(median <"$WORK/t.git") am=$(median <"$WORK/t.ab") rm_=$(median <"$WORK/t.again")
k=$(best <"$WORK/t.cold") km=$(median <"$WORK/t.cold") kc=$(median <"$WORK/c.cold")
kmin=$(sort -n "$WORK/t.cold" | head -n 1) kmax=$(sort -n "$WORK/t.cold" | tail -n 1)
printf 'repository: %d entries, %d MB of content, %d MB packed, commit %s\n' "$nfiles" "$mb" "$packmb" "$commit"
amin=$(sort -n "$WORK/t.ab" | head -n 1) amax=$(sort -n "$WORK/t.ab" | tail -n 1)
gmin=$(sort -n "$WORK/t.git" | head -n 1) gmax=$(sort -n "$WORK/t.git" | tail -n 1)
printf 'materialize: allocbuild fetch median %.2fs (min %.2f, max %.2f), git clone --local --no-checkout + checkout %.2fs (min %.2f, max %.2f), ratio %sx (target <= 1.0x)\n' \
	"$am" "$amin" "$amax" "$gm" "$gmin" "$gmax" "$(ratio "$am" "$gm")"
printf '  peak RSS: allocbuild %s (first fetch %s), git %s\n' "$(rss ab)" "$(rss cold)" "$(rss git)"
printf '  best of %d: %.2fs vs %.2fs, ratio %sx; cpu (user+sys, median) %ss vs %ss\n' "$ROUNDS" "$a" "$g" \
	"$(ratio "$a" "$g")" "$ac" "$gc"
printf 'first fetch, empty cache: allocbuild fetch median %.2fs (min %.2f, max %.2f), git %.2fs, ratio %sx (target <= 1.0x)\n' \
	"$km" "$kmin" "$kmax" "$gm" "$(ratio "$km" "$gm")"
printf '  best %.2fs vs %.2fs, ratio %sx; cpu (user+sys, median) %ss vs %ss\n' "$k" "$g" "$(ratio "$k" "$g")" "$kc" "$gc"
printf 'repeated fetch of the unchanged pin (verified): best %.3fs, median %.3fs, cpu %ss (target < 0.3s)\n' \
	"$r" "$rm_" "$rc"
echo "machine after: $(uptime | sed 's/.*load/load/')"
