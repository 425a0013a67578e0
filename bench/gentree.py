#!/usr/bin/env python3
"""Write a Fluent-Bit-sized source tree for the benchmarks.

usage: gentree.py ROOT [--text]

12,000 files, 170 MB in total, log-normal sizes (median about 4 KiB, a few
files of several MB, capped at 8 MiB) in 900 directories up to 6 levels
deep. The layout is the same on every run (seeded). Contents are random
bytes (incompressible, what hashing and diffing see at worst) or, with
--text, source-like compressible text with every 97th file an executable
.sh and every 500th file a symlink next to it (what git stores and
checks out).
"""
import os
import random
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    text_mode = "--text" in sys.argv[1:]
    if len(args) != 1:
        sys.exit(__doc__.strip().splitlines()[2])
    root = args[0]
    rng = random.Random(1)
    nfiles, total = 12000, 170_000_000
    sizes = [min(int(rng.lognormvariate(8.3, 1.6)), 8 << 20) for _ in range(nfiles)]
    scale = total / sum(sizes)
    sizes = [max(0, int(s * scale)) for s in sizes]
    dirs = [""]
    for i in range(900):
        parent = rng.choice(dirs) if rng.random() < 0.7 else ""
        if parent.count("/") >= 5:
            parent = ""
        dirs.append(os.path.join(parent, "d%03d" % i))
    for d in dirs:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    if text_mode:
        write_text(root, rng, sizes, dirs)
    else:
        write_random(root, rng, sizes, dirs)


def write_random(root, rng, sizes, dirs):
    blob = os.urandom(16 << 20)
    for i, s in enumerate(sizes):
        d = rng.choice(dirs)
        off = rng.randrange(0, len(blob) - s) if s < len(blob) else 0
        with open(os.path.join(root, d, "f%05d.c" % i), "wb") as f:
            f.write(blob[off:off + s] if s <= len(blob) else os.urandom(s))


def write_text(root, rng, sizes, dirs):
    letters = "abcdefghijklmnopqrstuvwxyz_"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 12))) for _ in range(5000)]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) + ";\n" for _ in range(200000)]
    text = "".join(lines).encode()
    for i, s in enumerate(sizes):
        d = rng.choice(dirs)
        name = os.path.join(root, d, "f%05d.%s" % (i, "sh" if i % 97 == 0 else "c"))
        off = rng.randrange(0, len(text) - s) if s < len(text) else 0
        data = text[off:off + s] if s <= len(text) else (text * (s // len(text) + 1))[:s]
        with open(name, "wb") as f:
            f.write(data)
        if i % 97 == 0:
            os.chmod(name, 0o755)
        if i % 500 == 0:
            os.symlink("f%05d.c" % (i + 1), os.path.join(root, d, "link%05d" % i))


if __name__ == "__main__":
    main()
