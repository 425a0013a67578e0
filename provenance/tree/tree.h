/*
 * tree: a file tree read into memory as a sorted list of entries, from one
 * of three kinds of source, without extracting or checking out anything:
 *
 *   DIR                    a directory (symlinks inside are never followed)
 *   FILE                   an archive libarchive reads (.tar.bz2, .tar.gz,
 *                          .tar.xz, .zip, ...); a single top-level directory
 *                          is stripped, or exactly `strip` components
 *   git:REPO@REV[:PATH]    a tree of a local git repository, read from its
 *                          object database (REV is any revspec)
 *
 * Every regular file is hashed (SHA-256) while it is read, in constant
 * memory; symlinks keep their target string; anything else (devices,
 * fifos, submodule links) is an "other" entry. Archive members are refused
 * by the rules of extraction for fetch (lib/member.h): unsafe names,
 * devices, fifos, setuid/setgid, links leaving the tree, duplicates. The
 * tree's dirHash is computed from the list exactly as lib/hash.h's
 * ab_hash_tree does for a directory (in-toto dirHash over regular files
 * only), so the three kinds give the same value for the same content.
 *
 * Calling protocol:
 *   struct ab_tree *t;
 *   if (ab_tree_read(&t, spec, -1, 1) < 0)   errors already reported
 *           return AB_EXIT_USAGE;
 *   ... t->v[0 .. t->n) sorted by path (bytewise) ...
 *   mark entries with e->wanted = 1, then ab_tree_load(t, limit) fills
 *   e->data for those of them that are regular files up to limit bytes
 *   ab_tree_free(t);
 */
#ifndef AB_TREE_H
#define AB_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/hash.h"

enum ab_tree_kind {
	AB_TREE_DIRECTORY,
	AB_TREE_ARCHIVE,
	AB_TREE_GIT,
};

enum ab_entry_type {
	AB_ENTRY_FILE,
	AB_ENTRY_SYMLINK,
	AB_ENTRY_OTHER, /* device, fifo, socket, git submodule */
};

struct ab_tree_entry {
	char *path;                       /* relative, '/'-separated, normalised */
	enum ab_entry_type type;
	int exec;                         /* regular file with an execute bit */
	uint64_t size;                    /* file: bytes; symlink: target length */
	char sha256[AB_HEX_LEN + 1];      /* file: content; symlink: target string */
	char *target;                     /* symlink target, else NULL */
	char blob[41];                    /* git: blob id (hex), else "" */
	size_t seq;                       /* archive: member index */
	int wanted;                       /* set by the caller before ab_tree_load */
	int loaded;                       /* data holds the whole content */
	char *data;                       /* content after ab_tree_load, or NULL */
	size_t data_len;
	char *hardlink;                   /* archive: full member name linked to */
};

struct ab_tree {
	char *spec;                       /* as given */
	enum ab_tree_kind kind;
	char *root;                       /* directory, archive file or repository */
	char *rev, *subpath;              /* git: revision and path ("" for the root) */
	char commit[41], tree_id[41];     /* git: resolved commit (or "") and tree */
	char archive_sha256[AB_HEX_LEN + 1]; /* archive: SHA-256 of the file itself */
	int strip;                        /* archive: components stripped */
	struct ab_tree_entry *v;
	size_t n, cap;
	size_t nfiles;                    /* regular files */
	uint64_t bytes;                   /* their total size */
	char dirhash[AB_HEX_LEN + 1];     /* in-toto dirHash */
	char *version;                    /* trimmed first line of a root VERSION file, or NULL */
};

/* name of a kind: "directory", "archive", "git" */
const char *ab_tree_kind_name(enum ab_tree_kind kind);
/*
 * Read a tree. strip < 0 strips a single top-level directory of an archive
 * automatically; strip >= 0 strips that many components (archives only).
 * jobs > 1 hashes a directory's files in that many threads. Reports errors
 * (missing paths, unreadable files, archive members extraction refuses, unknown git
 * revisions) and returns -1; *out is freed with ab_tree_free.
 */
int ab_tree_read(struct ab_tree **out, const char *spec, int strip, int jobs);
/* load the content of wanted regular files of at most limit bytes; reports errors */
int ab_tree_load(struct ab_tree *t, uint64_t limit);
/* the entry for path, or NULL (binary search) */
struct ab_tree_entry *ab_tree_find(const struct ab_tree *t, const char *path);
void ab_tree_free(struct ab_tree *t);

/* is spec a git tree ("git:REPO@REV[:PATH]"), which needs libgit2 initialised? */
int ab_tree_spec_is_git(const char *spec);
/*
 * Split "git:REPO@REV[:PATH]" (spec without or with the "git:" prefix).
 * REPO ends at the first '@' whose prefix is an existing directory (else
 * the first '@'); PATH starts after the first ':' of the rest that is not
 * inside braces (so "HEAD@{1}" and "v1^{tree}" work). Returns -1 without
 * reporting when the spec has no '@' or an empty REPO or REV.
 */
int ab_tree_parse_git_spec(char **repo, char **rev, char **path, const char *spec);

/* in-toto dirHash of a sorted entry list (regular files only) */
void ab_tree_dirhash(char hex[AB_HEX_LEN + 1], const struct ab_tree_entry *v, size_t n);

#endif
