/*
 * atomic: the one atomic file writer. A reader of the destination sees
 * the old file or the new one, whole, never a part: every manifest,
 * stamp, bundle and relinked binary is written so (samurai's log.c).
 *
 *   struct ab_atomic a;
 *   if (ab_atomic_open(&a, path, 0) < 0)       reported
 *           return AB_EFAIL;
 *   if (ab_write_all(a.fd, data, len) < 0) {   ... or any writes to a.fd
 *           ab_error_errno("cannot write '%s'", a.tmp);
 *           ab_atomic_abort(&a);                close, unlink the temporary
 *           return AB_EFAIL;
 *   }
 *   return ab_atomic_commit(&a);               fsync, close, rename over path,
 *                                              fsync the directory; reported
 *
 * The temporary file is "<path>.tmp.<pid>.<n>", in the destination's
 * directory (so the rename stays on one file system), n counting the
 * temporaries of this process from 0. A temporary left by a writer that
 * died is recognised by that pattern and the pid, which is no longer a
 * running process. It is created with O_EXCL and mode 0644 (exactly, not
 * masked by the umask, as every manifest has been).
 *
 * With AB_ATOMIC_BYNAME nothing is created and a.fd is -1: another process
 * writes a.tmp by name (a linker's -o) and commit then renames what it
 * left there. AB_ATOMIC_NOSYNC leaves out both fsyncs, for a file that is
 * made again when a crash loses it (a stamp).
 *
 * After commit or abort, whatever their result, the struct holds nothing;
 * ab_atomic_abort on such a struct (or a zeroed one) does nothing, so a
 * single `done:` label may call it on every path.
 */
#ifndef AB_ATOMIC_H
#define AB_ATOMIC_H

#include <stddef.h>

enum {
	AB_ATOMIC_NOSYNC = 1 << 0, /* no fsync of the file nor of its directory */
	AB_ATOMIC_BYNAME = 1 << 1, /* create nothing: someone else writes a.tmp */
};

struct ab_atomic {
	char *path; /* the destination */
	char *tmp;  /* the temporary, "<path>.tmp.<pid>.<n>"; NULL when nothing is held */
	int fd;     /* the temporary, open for writing; -1 with AB_ATOMIC_BYNAME */
	int flags;
};

/* choose and create the temporary for path; reports "cannot create temporary file for '<path>'" */
int ab_atomic_open(struct ab_atomic *a, const char *path, int flags);
/* make the temporary the destination (see above); on failure it is removed; reports errors */
int ab_atomic_commit(struct ab_atomic *a);
/*
 * Could a commit replace path? 0 when path is missing, a regular file or
 * a symlink (the link is replaced, never followed) and its directory
 * takes new files; else reports "cannot replace '<path>': Is a directory"
 * (or ": not a regular file", or the directory's error) and AB_EFAIL. A
 * command that writes several files checks them all first, so that a
 * refusal leaves none of them written.
 */
int ab_atomic_check(const char *path);
/* close and remove the temporary, keep the destination as it was */
void ab_atomic_abort(struct ab_atomic *a);

/*
 * Remove from dir the temporaries "<name>.tmp.<pid>.<n>" that writers
 * which no longer run left there (killed between open and commit): no
 * process has that pid. This process's own and those of a running
 * process are kept. Only where nobody else writes (under the OUTDIR lock).
 * Each removal is said with ab_note; returns how many were removed.
 */
int ab_atomic_clean_stale(const char *dir);
/* is name a temporary of this module ("<name>.tmp.<pid>.<n>")? *pid (may be NULL) receives the pid */
int ab_atomic_is_temporary(const char *name, long *pid);

/* a whole file from memory through the above (flags: AB_ATOMIC_NOSYNC); reports errors */
int ab_atomic_write(const char *path, const void *data, size_t len, int flags);
/* ab_atomic_write with no flags: temp file in the same directory, fsync, rename */
int ab_write_file_atomic(const char *path, const void *data, size_t len);

#endif
