/*
 * localdir: a `dir` source (docs/recipe.md): a directory beside the
 * recipe, pinned by its in-toto dirHash, as a test program or a small
 * project kept in the same repository as the recipe.
 *
 * ab_localdir_check() hashes the directory and compares it with the pin;
 * ab_localdir_copy() writes a copy of it into an empty directory (regular
 * files with modes 0644 or 0755 as git checks them out, and directories;
 * a symlink or a special file is refused, since a dirHash covers the
 * names and contents of regular files only) and checks that the copy has
 * the pinned dirHash, so the tree a build uses is the one pinned even if
 * the directory changes meanwhile.
 */
#ifndef AB_LOCALDIR_H
#define AB_LOCALDIR_H

#include <stdint.h>

#include "../lib/hash.h"

/*
 * The directory is root/rel (root the recipe's directory, rel the
 * source's path), and must stay inside root: it is opened one component
 * at a time from root, a symlink followed only while it stays inside
 * (lib/dirwalk.h, ab_dirwalk_open_beneath); one that leaves is refused
 * ("<what>: directory 'outside' leaves the directory through symlink
 * 'outside': a dir source stays inside the recipe's directory '<root>'").
 *
 * ab_localdir_check: its dirHash into hex (with its regular files and
 * bytes); 0 when it is want, AB_ECHECK when it differs (reported as
 * "<what>: directory '<dir>' has dirHash X, the recipe pins Y"), AB_EFAIL
 * when it cannot be read or leaves root
 */
int ab_localdir_check(char hex[AB_HEX_LEN + 1], uint64_t *files, uint64_t *bytes, const char *what,
    const char *root, const char *rel, const char *want);
/* copy it into the existing empty directory dest, then check the copy against want; reports errors */
int ab_localdir_copy(const char *what, const char *root, const char *rel, const char *dest, const char *want);

#endif
