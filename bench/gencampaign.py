#!/usr/bin/env python3
"""Write the program of bench/campaign.sh: a generated C project.

usage: gencampaign.py ROOT [NFILES]

NFILES (default 300) C files in lib/ that every variant compiles alike,
each twelve functions of loops and switches (about 0.15 s of one core
at -O2 -g each); five allocators, alloc/a1 .. alloc/a5, of 10 files each,
built into lib/liballoc.a; main.c and shim.c, the two files that include
config.h, where configure writes the variant's one define. An
autotools-shaped configure (--alloc=aN --tag=T) writes the Makefile and
config.h. The same bytes on every run. Each allocator's objects are
named after it (obj/alloc/aN/), so that a tree built with one allocator
and configured again with another (build --derive) rebuilds them.
"""
import os
import sys


def func(rng_seed, i):
    k = (rng_seed * 31 + i * 7) % 97 + 3
    return f"""
int fn_{rng_seed}_{i}(const int *v, int n)
{{
	int acc = {k};
	for (int j = 0; j < n; j++) {{
		switch ((v[j] + j) % 5) {{
		case 0: acc += v[j] * {k}; break;
		case 1: acc ^= v[j] << (j % 7); break;
		case 2: acc -= v[j] / (j + 1); break;
		case 3: acc = acc * 3 + v[j]; break;
		default: acc += (v[j] > acc) ? j : -j; break;
		}}
		for (int m = 0; m < (v[j] & 3); m++)
			acc += m * {i + 1};
	}}
	return acc;
}}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2])
    root = sys.argv[1]
    nfiles = int(sys.argv[2]) if len(sys.argv) == 3 else 300
    nfuncs = 12
    objs = []
    for f in range(nfiles):
        body = "#include \"common.h\"\n" + "".join(func(f, i) for i in range(nfuncs))
        body += f"\nint file_{f}(const int *v, int n)\n{{\n\treturn " + " + ".join(
            f"fn_{f}_{i}(v, n)" for i in range(nfuncs)) + ";\n}\n"
        write(f"{root}/lib/f{f:03d}.c", body)
        objs.append(f"obj/f{f:03d}.o")
    write(f"{root}/lib/common.h", "int alloc_id(void);\n")
    for a in range(1, 6):
        for k in range(10):
            write(f"{root}/alloc/a{a}/m{k}.c", f"#define ALLOC_ID {a}\n" + "".join(func(1000 * a + k, i) for i in range(nfuncs)) +
                  ("int alloc_id(void) { return ALLOC_ID; }\n" if k == 0 else ""))
    decl = "".join(f"int file_{f}(const int *, int);\n" for f in range(nfiles))
    calls = "".join(f"\ts += file_{f}(v, 64);\n" for f in range(nfiles))
    write(f"{root}/main.c", "#include <stdio.h>\n#include \"config.h\"\n" + decl +
          "const char *shim_tag(void);\nint alloc_id(void);\n"
          "int main(void)\n{\n\tint v[64], s = 0;\n\tfor (int i = 0; i < 64; i++)\n\t\tv[i] = i * 7 + 1;\n" + calls +
          "\tprintf(\"%s %s alloc%d %d\\n\", CAMPAIGN_TAG, shim_tag(), alloc_id(), s);\n\treturn 0;\n}\n")
    write(f"{root}/shim.c", "#include \"config.h\"\nconst char *shim_tag(void) { return CAMPAIGN_TAG; }\n")
    write(f"{root}/objs", " ".join(objs) + "\n")
    write(f"{root}/configure", """#!/bin/sh
srcdir=$(cd "$(dirname "$0")" && pwd)
alloc=a1
tag=t
for a in "$@"; do
	case $a in
	--alloc=*) alloc=${a#--alloc=} ;;
	--tag=*) tag=${a#--tag=} ;;
	esac
done
printf '#define CAMPAIGN_TAG "%s"\\n' "$tag" >config.h
aobjs=$(cd "$srcdir/alloc/$alloc" && ls *.c | sed "s|^\\(.*\\)\\.c$|obj/alloc/$alloc/\\1.o|" | tr '\\n' ' ')
sed -e "s|@srcdir@|$srcdir|g" -e "s|@alloc@|$alloc|g" -e "s|@objs@|$(cat "$srcdir/objs")|" -e "s|@aobjs@|$aobjs|" \\
	"$srcdir/Makefile.in" >Makefile
echo "configured in $(pwd) with $alloc, tag $tag"
""")
    os.chmod(f"{root}/configure", 0o755)
    write(f"{root}/Makefile.in", """CFLAGS = -O2 -g
OBJS = @objs@
AOBJS = @aobjs@
all: bin/prog
obj/%.o: @srcdir@/lib/%.c @srcdir@/lib/common.h
	@mkdir -p obj
	$(CC) $(CFLAGS) -I@srcdir@/lib -c $< -o $@
obj/alloc/@alloc@/%.o: @srcdir@/alloc/@alloc@/%.c
	@mkdir -p obj/alloc/@alloc@
	$(CC) $(CFLAGS) -c $< -o $@
obj/main.o: @srcdir@/main.c config.h
	@mkdir -p obj
	$(CC) $(CFLAGS) -I. -c @srcdir@/main.c -o obj/main.o
obj/shim.o: @srcdir@/shim.c config.h
	@mkdir -p obj
	$(CC) $(CFLAGS) -I. -c @srcdir@/shim.c -o obj/shim.o
lib/liballoc.a: $(AOBJS)
	@mkdir -p lib
	rm -f lib/liballoc.a
	$(AR) rcs lib/liballoc.a $(AOBJS)
bin/prog: $(OBJS) obj/main.o obj/shim.o lib/liballoc.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o bin/prog obj/main.o obj/shim.o $(OBJS) lib/liballoc.a
""")


if __name__ == "__main__":
    main()
