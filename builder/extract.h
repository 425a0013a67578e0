/*
 * archive: secure extraction with libarchive (tar with gzip, bzip2, xz or
 * zstd compression, zip). Every member is checked by the rules of
 * lib/member.h before anything is written: unsafe names, devices,
 * fifos and sockets, setuid or setgid bits, paths through a symlink or a
 * file of the archive, duplicates, a file where earlier members have a
 * directory, symlinks leaving the tree, hard links to anything but an
 * earlier member. Members are written relative to the target directory
 * with libarchive's own secure flags as a second line of defence.
 * Directories are made owner-writable.
 */
#ifndef AB_ARCHIVE_H
#define AB_ARCHIVE_H

/*
 * Extract the archive file at path into the existing empty directory dir,
 * removing `strip` leading components from every member name (members
 * with no more components are skipped, like tar --strip-components).
 * When sha256 is not NULL the file's bytes must have that hash (checked
 * on the same bytes that are extracted). `name` identifies the archive in
 * messages. On failure dir may hold a partial tree: the caller removes it.
 */
int ab_archive_extract(const char *path, const char *name, const char *sha256, int strip, const char *dir);

#endif
