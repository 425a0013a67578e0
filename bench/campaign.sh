#!/usr/bin/env bash
# Benchmark of a campaign's variants through ccache (docs/build.md,
# "Variants of one program"): a generated program of 300 C files
# (bench/gencampaign.py) whose variants differ only in the allocator
# archive they build (10 files of their own) and one define (in config.h,
# which 2 files include), built from nothing with --ccache and a cold,
# empty cache, with 3 variants and with 5 (A) against 1 variant (B), in
# turn (A B A B ...) by farm-bench, which prints the median wall ratio A/B
# taken pair by pair. Goals: 3 variants at most 1.3x one, 5 at most 1.5x.
# Each side's output is checked: every variant built, and the counts of
# hits from earlier variants printed.
# DERIVE=1 measures build --derive (docs/build.md, "Derived build trees"):
# 10 variants (VARIANTS="10"), each but the first started from a copy of
# the first's finished trees, also with --ccache, against 1 variant with
# the same options; goal: at most 1.2x. Each derived variant's bin/prog is
# then held against the same variant built alone and clean.
# Run it alone on an idle machine: a build beside it moves both sides.
# usage: bench/campaign.sh [ALLOCBUILD]   (ROUNDS=N pairs, default 3; NFILES=N, default 300;
#                                          VARIANTS="N...", default "3 5" ("10" with DERIVE=1);
#                                          DERIVE=1; KEEP=1 keeps bench/.work/campaign)
set -eu
ROUNDS=${ROUNDS:-3}
DERIVE=${DERIVE:-}
if [ -n "$DERIVE" ]; then VARIANTS=${VARIANTS:-10}; OPTS=--derive; else VARIANTS=${VARIANTS:-3 5}; OPTS=; fi
. "$(dirname "$0")/lib.sh"
bench_setup campaign 0 "$@"
command -v farm-bench >/dev/null || { echo "bench: needs farm-bench" >&2; exit 2; }
command -v ccache >/dev/null || { echo "bench: needs ccache" >&2; exit 2; }
export XDG_CACHE_HOME=$WORK/cache
unset MALLOC_CONF LD_PRELOAD CCACHE_REMOTE_STORAGE
machine_line

# the program, packed as a pinned tarball in a --mirror-dir layout
rm -rf "$WORK/gen" && python3 "$TOP/bench/gencampaign.py" "$WORK/gen/campaign-1.0" "${NFILES:-300}"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$WORK/gen" -czf "$WORK/campaign-1.0.tar.gz" campaign-1.0
sha=$(sha256sum "$WORK/campaign-1.0.tar.gz" | cut -d' ' -f1)
mkdir -p "$WORK/mirror/sha256" && cp "$WORK/campaign-1.0.tar.gz" "$WORK/mirror/sha256/$sha"
recipe() { # N: the recipe of variants v1 .. vN
	local i sep=
	printf '{"recipe": 1, "name": "campaign%s",\n "sources": {"prog": {"archive": {"urls": ["https://example.invalid/campaign-1.0.tar.gz"], "sha256": "%s", "strip": 1}}},\n "variants": [\n' "$1" "$sha"
	for i in $(seq 1 "$1"); do
		# five allocators: variants past the fifth differ in their define alone
		printf '%s  {"label": "v%d", "source": "prog", "build": {"system": "autotools", "configure": ["--alloc=a%d", "--tag=t%d"]}, "artifacts": ["bin/prog", "lib/liballoc.a"]}' "$sep" "$i" "$(( (i - 1) % 5 + 1 ))" "$i"
		sep=$',\n'
	done
	printf '\n ]}\n'
}
for n in 1 $VARIANTS; do recipe $n >"$WORK/r$n.json"; done
# the source fetched once, so that both sides only build
"$AB" fetch --mirror-dir "$WORK/mirror" "$WORK/r1.json" >/dev/null 2>&1
build() { # N: that many variants from nothing, with an empty cache of their own
	echo "sh -c 'rm -rf \"$WORK/o$1\" \"$WORK/cc$1\"; exec \"$AB\" build -j 2 $OPTS --ccache-dir \"$WORK/cc$1\" --mirror-dir \"$WORK/mirror\" -o \"$WORK/o$1\" \"$WORK/r$1.json\" >>\"$WORK/o$1.log\" 2>&1'"
}
for n in $VARIANTS; do
	case $n in 3) goal=1.3 ;; 5) goal=1.5 ;; 10) goal=1.2 ;; *) goal=- ;; esac
	echo "== $n variants (A) against 1 (B), each from nothing with an empty cache; goal: A/B at most $goal"
	eval "farm-bench -n $ROUNDS --warmup 1 --timeout 3600 --vs \"$(build 1)\" -- $(build $n)"
	# the last round's summary: every variant built, and what it took from the cache
	grep '^ccache ' "$WORK/o$n.log" | tail -n "$n"
	for i in $(seq 1 "$n"); do
		"$WORK/o$n/variants/v$i/build/bin/prog" >/dev/null || { echo "bench: v$i does not run" >&2; exit 1; }
	done
	[ -z "$DERIVE" ] && continue
	# each derived variant against the same variant built alone, clean (outside the timed pairs)
	grep -c '"derived_from"' "$WORK/o$n/provenance/build-commands.json" | sed 's/^/derived variants: /'
	for i in $(seq 2 "$n"); do
		rm -rf "$WORK/alone"
		"$AB" build -j 2 --mirror-dir "$WORK/mirror" -o "$WORK/alone" "$WORK/r$n.json" "v$i" >/dev/null 2>&1 ||
			{ echo "bench: v$i alone failed" >&2; exit 1; }
		cmp "$WORK/alone/variants/v$i/build/bin/prog" "$WORK/o$n/variants/v$i/build/bin/prog" ||
			{ echo "bench: v$i derived differs from v$i built alone" >&2; exit 1; }
	done
	echo "every derived bin/prog identical to its variant built alone and clean"
done
