/*
 * dirwalk: the one walk of a directory tree, shared by the tree hash
 * (lib/hash), the worktree index (builder/worktree) and directory
 * trees for upstream-diff and identify (provenance/tree/tree).
 *
 * The walk is breadth-first. Each directory is opened one component at a
 * time, every component with openat() relative to its parent's descriptor,
 * O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC: no symlink is followed anywhere
 * on the way, and no path is ever longer than one name, so trees deeper
 * than PATH_MAX are walked. The ancestors of the directory being listed
 * stay open (at most 32; deeper ones are opened for the moment), so a
 * directory usually costs one openat from its parent: the descriptors in
 * use are bounded whatever the depth or the size of the queue.
 * A directory swapped for a symlink after being listed is never followed:
 * when it is an ancestor the walker still holds open, the walk goes on in
 * the directory it listed; when the walker opens it by name, that is the
 * error "cannot open directory 'ROOT/path': Not a directory" naming the
 * swapped component (the walk does not skip it). Entries come in
 * readdir order (not sorted: callers sort), "." and ".." never. The type
 * is readdir's d_type; only when the file system leaves it DT_UNKNOWN is
 * the entry lstat'ed (fstatat, AT_SYMLINK_NOFOLLOW), and that stat is
 * kept for ab_dirwalk_stat. Symlinks are entries like any other and are
 * never followed (the root itself excepted, as `cd` follows it); the
 * walker never opens anything but directories, so fifos and devices
 * cannot block it.
 *
 * Calling protocol:
 *   static int
 *   visit(struct ab_dirwalk_entry *e, void *arg)
 *   {
 *           ... e->path, e->name, e->type, e->dirfd for *at() calls;
 *           ... ab_dirwalk_stat(&st, e) when the stat data is needed;
 *           return AB_DIRWALK_DESCEND;   (0: skip a directory's content;
 *                                         -1: stop, error already reported)
 *   }
 *   if (ab_dirwalk(dir, visit, arg) < 0)   errors already reported
 *           return -1;
 *
 * The walker reports its own errors, naming the path as the user gave
 * the root joined with the path inside it:
 *   cannot open directory 'ROOT/sub': Permission denied
 *   cannot read directory 'ROOT/sub': Input/output error
 *   cannot stat 'ROOT/sub/x': No such file or directory
 */
#ifndef AB_DIRWALK_H
#define AB_DIRWALK_H

#include <stddef.h>
#include <sys/stat.h>

/* a callback's answer: list this directory's entries too (ignored for non-directories) */
#define AB_DIRWALK_DESCEND 1

struct ab_dirwalk_entry {
	const char *root;     /* the root as given, for messages */
	const char *path;     /* relative to the root, '/'-separated; valid during the call */
	const char *name;     /* the last component of path */
	int dirfd;            /* the open directory holding the entry, for *at() calls */
	unsigned char type;   /* DT_REG, DT_DIR, DT_LNK, DT_FIFO, ...; never DT_UNKNOWN */
	int has_st;           /* private: st holds the entry's lstat */
	struct stat st;
};

typedef int ab_dirwalk_fn(struct ab_dirwalk_entry *e, void *arg);

/* walk the tree below root, calling fn for every entry; reports errors */
int ab_dirwalk(const char *root, ab_dirwalk_fn *fn, void *arg);
/* the same below an open directory (left open); root names it in messages */
int ab_dirwalk_fd(int rootfd, const char *root, ab_dirwalk_fn *fn, void *arg);
/*
 * The entry's lstat, fetched on the first call (and kept); also brings
 * e->type up to date with it. Reports "cannot stat '...'".
 */
int ab_dirwalk_stat(const struct stat **st, struct ab_dirwalk_entry *e);

/*
 * The one path resolver for a path that must stay inside a directory: a
 * file of a build directory (an artifact, a relink's output), of an
 * OUTDIR (verify, pr). rel ('/'-separated, relative) is opened one
 * component at a time, each relative to its parent's descriptor with
 * O_NOFOLLOW, starting at rootfd. A symlink met on the way (the last
 * component's too) is followed only when its target is relative and
 * stays inside the root: ".." never climbs above it, an absolute target
 * is refused, and at most AB_BENEATH_MAXLINKS symlinks are followed.
 * Flags:
 *   AB_BENEATH_NOSYMLINK  refuse every symlink on the way
 *   AB_BENEATH_MKDIR      rel is a directory: create what is missing of it
 * oflags are for the last component (O_RDONLY | O_NONBLOCK to read a file
 * without blocking on a fifo, O_DIRECTORY for a directory); O_NOFOLLOW,
 * O_NOCTTY and O_CLOEXEC are added.
 *
 * Returns the descriptor, or -1 with errno set and a reason for messages
 * in why (at least AB_BENEATH_WHY bytes, may be NULL): EXDEV "leaves the
 * directory through symlink 'a/b'", ELOOP "goes through symlink 'a/b'"
 * (AB_BENEATH_NOSYMLINK) or "too many symlinks", else strerror(errno)
 * (ENOENT: "No such file or directory"). Reports nothing.
 */
enum {
	AB_BENEATH_NOSYMLINK = 1 << 0,
	AB_BENEATH_MKDIR = 1 << 1,
};
#define AB_BENEATH_MAXLINKS 40
#define AB_BENEATH_WHY 4200
int ab_dirwalk_open_beneath(int rootfd, const char *rel, int oflags, int flags, char *why);
/* the same below the directory root (itself opened as `cd` would); -1 with why when root cannot be opened */
int ab_dirwalk_open_below(const char *root, const char *rel, int oflags, int flags, char *why);
struct ab_buf;
/*
 * Read the file at path whole (at most max bytes, a regular file, as
 * ab_read_file_max) when path is in the tree root, through
 * ab_dirwalk_open_beneath: a symlink on the way that leaves root (a build
 * step's link to a file of the host) is refused ("cannot read 'PATH': it
 * leaves 'ROOT' through symlink 'a/b'"). A path not in root (NULL root:
 * none) is read as it is. found (may be NULL): set to 0 and 0 returned
 * when the file is not there, else 1. Reports errors.
 */
int ab_dirwalk_read_below(struct ab_buf *out, const char *root, const char *path, size_t max, int *found);

struct ab_strv;
/*
 * The regular files directly in root/rel (a symlink is never followed)
 * whose names accept(name, arg) takes, appended to out as "rel/name" in
 * the order cmp sorts the names (qsort's comparison over char *; NULL:
 * strcmp). 0, and nothing, when the directory is not there; AB_EFAIL
 * after reporting when it cannot be read.
 */
int ab_dirwalk_files(struct ab_strv *out, const char *root, const char *rel, int (*accept)(const char *name, void *arg),
    void *arg, int (*cmp)(const void *, const void *));

#endif
