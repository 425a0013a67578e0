#!/usr/bin/env bash
# Benchmark of 'allocbuild relink' (issue 6 budgets):
#  (a) a relink of a fixture: a CMake project shaped like Fluent Bit's
#      fluent-bit-bin (src/ executable linking ../lib/libjemalloc_pic.a
#      twice), relinked with another archive; wall time of the whole
#      command                                                (budget 5 s)
#      The archives are real jemalloc archives when JE_A and JE_B name two
#      libjemalloc_pic.a files, else stand-ins of similar size (40 objects,
#      about 8 MB of data each).
#  (b) hashing every input of a Fluent-Bit-sized link: 300 objects, 100 MB
#      in total, with a warm page cache; "seconds.inputs" of the provenance
#      (search-path query, input resolution and SHA-256 of both sides)
#                                                             (budget 0.5 s)
# Wall times are what the budgets are about. The CPU seconds (user + system,
# threads and child processes included, from the provenance) are printed
# too, with the load average: on a machine shared with other work the wall
# times grow, the CPU seconds do not.
# Each relink runs ROUNDS times (default 5); best and median are printed.
# Work files live in bench/.work/relink (or $BENCH_DIR) and are removed at
# the end unless KEEP=1.
# usage: bench/relink.sh [ALLOCBUILD]
set -eu
. "$(dirname "$0")/lib.sh"
bench_setup relink 0 "$@"
command -v cmake >/dev/null || { echo "bench: cmake is needed" >&2; exit 2; }
command -v objcopy >/dev/null || { echo "bench: objcopy is needed" >&2; exit 2; }
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

# stats FILE: "best median" of the numbers in FILE, one per line
stats() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f %.3f\n", v[1], v[int((NR + 1) / 2)] }'
}

# blob_object NAME BYTES: an object file holding BYTES of random data
blob_object() {
	head -c "$2" /dev/urandom >"$1.bin"
	objcopy -I binary -O elf64-x86-64 -B i386:x86-64 "$1.bin" "$1"
	rm -f "$1.bin"
}

# --- (a) the fixture
mkdir -p fx/proj/src fx/build/lib fx/alt
cat >fx/proj/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(fx C)
add_subdirectory(src)
EOF
cat >fx/proj/src/CMakeLists.txt <<'EOF'
set(JEMALLOC_LIB ${CMAKE_BINARY_DIR}/lib/libjemalloc_pic.a)
add_library(fx-core STATIC core.c)
target_link_libraries(fx-core ${JEMALLOC_LIB} pthread dl m)
add_executable(fx-bin main.c)
set_target_properties(fx-bin PROPERTIES OUTPUT_NAME fx RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
target_link_libraries(fx-bin ${JEMALLOC_LIB} fx-core)
EOF
echo '#include <stdlib.h>
int core(void) { void *p = malloc(32); free(p); return p != 0; }' >fx/proj/src/core.c
echo 'int core(void); int main(void) { return !core(); }' >fx/proj/src/main.c
if [ -n "${JE_A:-}" ] && [ -n "${JE_B:-}" ]; then
	cp "$JE_A" fx/build/lib/libjemalloc_pic.a
	cp "$JE_B" fx/alt/libjemalloc_pic.a
	kind="real jemalloc archives"
else
	for side in a b; do
		mkdir -p fx/$side
		for i in $(seq 1 40); do
			blob_object fx/$side/m$i.o 200000
		done
		ar qc fx/$side/libjemalloc_pic.a fx/$side/m*.o
	done
	cp fx/a/libjemalloc_pic.a fx/build/lib/libjemalloc_pic.a
	cp fx/b/libjemalloc_pic.a fx/alt/libjemalloc_pic.a
	kind="stand-in archives"
fi
(cd fx/build && cmake ../proj >/dev/null && make >/dev/null 2>&1) || { echo "bench: fixture build failed" >&2; exit 1; }
: >a.times
: >a.cpu
for r in $(seq 1 "$ROUNDS"); do
	t0=$(now)
	"$AB" relink --link-txt fx/build/src/CMakeFiles/fx-bin.dir/link.txt \
		--replace ../lib/libjemalloc_pic.a=fx/alt/libjemalloc_pic.a --output fx/out/fx-relink >/dev/null 2>&1
	t1=$(now)
	echo "$t1 - $t0" | bc >>a.times
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seconds"]; print(s["inputs_cpu"] + s["link_cpu"])' \
		fx/out/relink-provenance.json >>a.cpu
done
read -r ac_best ac_median < <(stats a.cpu)
read -r a_best a_median < <(stats a.times)
size_a=$(du -k fx/build/lib/libjemalloc_pic.a | cut -f1)

# --- (b) 300 inputs, 100 MB
B=big/build/src/CMakeFiles/big-bin.dir
mkdir -p "$B" big/build/bin big/alt
total=0
n=300
per=$((100 * 1000 * 1000 / n))
objs=
for i in $(seq 1 $n); do
	blob_object "$B/o$i.o" $per
	objs="$objs CMakeFiles/big-bin.dir/o$i.o"
done
echo 'int main(void) { return 0; }' >big/main.c
cc -c -o "$B/main.c.o" big/main.c
blob_object big/alt/o1.o $per
echo "/usr/bin/cc CMakeFiles/big-bin.dir/main.c.o$objs -o ../bin/big -lpthread -ldl -lm" >"$B/link.txt"
total=$(du -cb "$B"/*.o | tail -1 | cut -f1)
: >b.times
: >b.total
: >b.cpu
for r in $(seq 1 "$ROUNDS"); do
	"$AB" relink --link-txt "$B/link.txt" --replace CMakeFiles/big-bin.dir/o1.o=big/alt/o1.o \
		--output big/out/big --provenance big/p.json >/dev/null 2>&1
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seconds"]; print(s["inputs"]); print(s["total"], file=sys.stderr); print(s["inputs_cpu"], file=open(sys.argv[2], "a"))' \
		big/p.json b.cpu >>b.times 2>>b.total
done
ninputs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["inputs"]))' big/p.json)
read -r b_best b_median < <(stats b.times)
read -r bt_best bt_median < <(stats b.total)
read -r bc_best bc_median < <(stats b.cpu)

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $ROUNDS rounds"
printf '(a) relink of the fixture (%s, %s KiB archive): wall best %ss, median %ss (budget 5s); cpu median %ss\n' \
	"$kind" "$size_a" "$a_best" "$a_median" "$ac_median"
printf '(b) inputs of a %s-input link, %s MB: hashing wall best %ss, median %ss (budget 0.5s), cpu median %ss; whole relink wall median %ss\n' \
	"$ninputs" "$((total / 1000000))" "$b_best" "$b_median" "$bc_median" "$bt_median"
ok=1
[ "$(echo "$a_median < 5" | bc)" = 1 ] || ok=0
[ "$(echo "$b_median < 0.5" | bc)" = 1 ] || ok=0
[ $ok = 1 ] && echo "within budget" || { echo "OVER BUDGET"; exit 1; }
