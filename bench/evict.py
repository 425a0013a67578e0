#!/usr/bin/env python3
"""Drop the page-cache pages of every regular file below DIR (bench/hash.sh).

posix_fadvise(POSIX_FADV_DONTNEED) on each file, as the kernel's reclaim
does to files not read for a while: the next read of them goes to the
disk. Directories stay cached. Needs no privileges; dirty pages are not
dropped, so the caller syncs first.
usage: bench/evict.py DIR...
"""
import os
import sys


def evict(top):
    n = 0
    for root, dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a symlink or a file gone: not hashed either
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                n += 1
            finally:
                os.close(fd)
    return n


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench/evict.py DIR...")
    for top in sys.argv[1:]:
        if evict(top) == 0:
            sys.exit(f"bench/evict.py: no file below '{top}'")


if __name__ == "__main__":
    main()
