/*
 * util: error reporting, memory, growable strings and string vectors,
 * small file-system helpers.
 *
 * Errors are reported once, where the context is known, with ab_error():
 *   allocbuild: <message>
 * and the caller passes the negative return code up unchanged.
 */
#ifndef AB_UTIL_H
#define AB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <stdio.h>


#define AB_EXIT_OK 0
#define AB_EXIT_CHECK 1 /* a check failed: hash mismatch, diff found, probe disagrees */
#define AB_EXIT_USAGE 2 /* usage error or bad input */

/*
 * The one error protocol. A fallible function returns 0, or one of these
 * after reporting the problem once, where the context is known; callers
 * pass the code up unchanged. Only the command layer turns a result into
 * an exit code (cli/cmd.h: ab_cmd_exit).
 */
#define AB_EFAIL (-1)  /* bad input, or the environment failed (I/O error, disk full): exit 2 */
#define AB_ECHECK (-2) /* a check failed: a digest differs, a build failed, a probe disagrees: exit 1 */

#define AB_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Where reported lines go: by default stderr, written whole in one call.
 * A live progress line (lib/progress.h) installs its own writer so that
 * messages never garble it; NULL restores stderr.
 */
typedef void ab_report_fn(const char *line, size_t len);
void ab_set_reporter(ab_report_fn *fn);

/*
 * An environment failure (a write or read that failed with ENOSPC,
 * EDQUOT, EIO, EROFS, EFBIG or ENOMEM: disk full, a read-only or broken
 * file system) is exit 2 wherever it is met, whatever the step's own
 * result would say: ab_error_errno notes such an errno, code that reports
 * an errno otherwise notes it with ab_note_environment, and ab_cmd_exit
 * asks ab_environment_failed.
 */
int ab_errno_is_environment(int err);
void ab_note_environment(int err);
int ab_environment_failed(void);

/* print "allocbuild: <msg>\n" on stderr */
void ab_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the same, with ": <strerror(errno)>" appended */
void ab_error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the same, with ": <libgit2's last error message>" appended */
/* the same with libgit2's last error; in lib/giterr.c, beside libgit2's forwarders (lib/lazy_git2.c), not here */
void ab_error_git(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "allocbuild: warning: <msg>" */
void ab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a progress or note line on stderr, "allocbuild: <msg>"; silenced by ab_quiet */
void ab_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A test hook: with the environment variable VAR set, create the file it
 * names and wait until the test removes it (30 s at most), so that a test
 * can act at that moment (kill the build, end a process); nothing without
 * VAR
 */
void ab_test_pause(const char *var);
/* -q: no notes; set once by the command line (cli/main.c), before any thread starts, never after */
extern int ab_quiet;
/*
 * Mute this thread's reports (errors, warnings and notes) around a call
 * whose failure the caller expects or handles and reports itself, with
 * its own context (a best-effort read, a tool that may be missing):
 *   ab_report_mute(); ok = ab_json_read(&doc, path) == 0; ab_report_unmute();
 * Brackets nest; each thread has its own (a build thread's never mutes
 * another's).
 */
void ab_report_mute(void);
void ab_report_unmute(void);
/* -v: every note, and progress as plain lines even on a terminal (lib/progress.h) */
extern int ab_verbose;

/* allocation that aborts on exhaustion (out of memory is not input) */
void *ab_malloc(size_t n);
void *ab_calloc(size_t n, size_t size);
void *ab_realloc(void *p, size_t n);
char *ab_strdup(const char *s);
char *ab_strdup_or_null(const char *s); /* NULL for NULL */
char *ab_strndup(const char *s, size_t n);
/* malloc'd printf; caller frees */
char *ab_sprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* growable NUL-terminated byte buffer; zero-initialise, release with ab_buf_free */
struct ab_buf {
	char *s;
	size_t len, cap;
};
void ab_buf_grow(struct ab_buf *b, size_t extra);
void ab_buf_add(struct ab_buf *b, const void *p, size_t n);
void ab_buf_puts(struct ab_buf *b, const char *s);
void ab_buf_putc(struct ab_buf *b, int c);
void ab_buf_printf(struct ab_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ab_buf_vprintf(struct ab_buf *b, const char *fmt, va_list ap);
void ab_buf_clear(struct ab_buf *b);
/* hand the string to the caller (never NULL) and reset the buffer */
char *ab_buf_detach(struct ab_buf *b);
void ab_buf_free(struct ab_buf *b);

/* NULL-terminated vector of malloc'd strings; zero-initialise */
struct ab_strv {
	char **v;
	size_t n, cap;
};
void ab_strv_push(struct ab_strv *sv, const char *s);      /* copies s */
void ab_strv_push_owned(struct ab_strv *sv, char *s);      /* takes s */
void ab_strv_pushf(struct ab_strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ab_strv_free(struct ab_strv *sv);
/* is s one of the strings of the vector? */
int ab_strv_has(const struct ab_strv *sv, const char *s);
/* qsort's comparison of two char * by strcmp (bytes: the C locale's order), for any array of strings */
int ab_cmp_str(const void *a, const void *b);
/* sv's strings sorted in place by strcmp */
void ab_strv_sort(struct ab_strv *sv);
/* NULL-terminated argv view of the vector (owned by sv) */
char **ab_strv_argv(struct ab_strv *sv);

/* an ordered list of KEY=VALUE pairs (recipe env, cmake defines) */
struct ab_kv {
	char *key;
	char *value;
};

struct ab_kvlist {
	struct ab_kv *v;
	size_t n;
};

/* NULL-terminated list of strings, with its length */
struct ab_list {
	char **v;
	size_t n;
};

/* append copies of key and value; free the list with ab_kvlist_free */
void ab_kvlist_add(struct ab_kvlist *l, const char *key, const char *value);
void ab_kvlist_free(struct ab_kvlist *l);
/* append a copy of s, keeping the list NULL-terminated; free with ab_list_free */
void ab_list_add(struct ab_list *l, const char *s);
void ab_list_free(struct ab_list *l);

/* file system */
int ab_mkdir_p(const char *path, unsigned mode);     /* reports errors */
int ab_rm_rf(const char *path);                       /* reports errors; missing is fine */
/*
 * The one reader of whole files. Only a regular file is read: the file is
 * opened without blocking (a fifo or a device can neither hang nor flood
 * the reader) and refused unless fstat says regular ("'PATH' is not a
 * regular file"), or when it holds more than max bytes ("'PATH' is larger
 * than N bytes"; growing while read counts). Reports errors.
 */
int ab_read_file_max(struct ab_buf *out, const char *path, size_t max);
/* the same for a descriptor already open (name in messages); fd is not closed */
int ab_read_fd_max(struct ab_buf *out, int fd, const char *name, size_t max);
/* the bound on anything read whole into memory without a bound of its own */
#define AB_READ_MAX ((size_t)1 << 30)
/* ab_read_file_max(out, path, AB_READ_MAX) */
int ab_read_file(struct ab_buf *out, const char *path);
/*
 * The one opener of a log allocbuild appends to: created (mode 0644) when
 * missing, never through a symbolic link (O_NOFOLLOW), and only a regular
 * file (a fifo can neither hang the opener nor be written). The
 * descriptor, close-on-exec and blocking, or -1 with errno set (ELOOP for
 * a link, EINVAL for a file that is not regular); reports nothing.
 */
int ab_open_log(const char *path);
/*
 * The one read-only mapping of a whole file (binary scans: ELF files, ar
 * archives, version strings). Opened without blocking; 0 with *map and
 * *size set (release with ab_unmap_file), 1 when the file is empty or not
 * regular (nothing mapped), AB_EFAIL (reported) when it cannot be opened,
 * stat'ed or mapped.
 */
int ab_map_file(const unsigned char **map, size_t *size, const char *path);
void ab_unmap_file(const unsigned char *map, size_t size);
/* the one timestamp format of the records: RFC 3339 in UTC, "2026-12-01T14:41:36Z" (len >= 21) */
void ab_utc_time(char *buf, size_t len, time_t t);
/* now, with milliseconds: "2026-12-01T14:41:36.123Z" (len >= 25) */
void ab_utc_now_ms(char *buf, size_t len);
/* write all n bytes to fd, again after EINTR and short writes; -1 with errno set (not reported) */
int ab_write_all(int fd, const void *p, size_t n);
/* write all n bytes to fd and close it (in every case); reports "cannot write '<name>'" */
int ab_write_close(int fd, const char *name, const void *p, size_t n);
int ab_path_exists(const char *path);
int ab_is_dir(const char *path);
/* join two path parts with one '/'; caller frees */
char *ab_path_join(const char *a, const char *b);
/* absolute, normalised (no symlink resolution) path of p against cwd; caller frees */
char *ab_path_absolute(const char *p);
/* the same against the directory base (itself against cwd when relative); caller frees */
char *ab_path_absolute_in(const char *base, const char *p);
/* the topmost missing directory among dir and its parents (dir itself when only it is missing), NULL when dir exists; caller frees */
char *ab_path_first_missing(const char *dir);
/* after a failure: rmdir the empty directories from dir up to and including top (stops at one that is not empty) */
void ab_rmdir_up_to(const char *dir, const char *top);
/* directory part of a path ("." when none); caller frees */
char *ab_path_dirname(const char *p);
/*
 * Is this archive or tree member name safe to create below a root?
 * Refuses empty names, absolute paths and any ".." component.
 */
int ab_path_is_safe_relative(const char *name);
/*
 * Is s a name a recipe may give a variant or a source (a label, a source
 * id): letters, digits, '.', '_' and '-', not empty, not "." or ".."? The
 * one rule, for the recipe as loaded and for a label read from a file
 */
int ab_is_ident(const char *s);
/*
 * The one "did you mean" rule: of the n candidates, the one nearest to
 * name by edit distance, when it is within 2 edits and fewer than its own
 * length (a typo, not another word); NULL otherwise. Names over 32 bytes
 * are never near.
 */
const char *ab_closest(const char *name, char *const *candidates, size_t n);

/*
 * Text that may be shown: a name (a file, an archive member, a bundle
 * member) printed to a terminal or written to pr.md with its control
 * characters escaped, so that a newline or an escape sequence in a name
 * can neither forge a line nor drive the terminal. Backslash becomes
 * \\, newline, carriage return and tab \n \r \t, every other C0 or
 * C1 control character and every byte that is not valid UTF-8 \xHH.
 * JSON documents keep the exact bytes; only what is shown is escaped.
 */
void ab_buf_add_shown(struct ab_buf *b, const char *s, size_t n);
/* a line of a tool's output shown (a log's tail): as reported lines are, tabs and backslashes kept */
void ab_buf_add_text(struct ab_buf *b, const char *s, size_t n);
/* ab_buf_add_shown of a whole string into a new string; caller frees */
char *ab_shown(const char *s);

/* the one redaction of secrets in what is printed or recorded (ab_url_redact...) lives in lib/redact.h */

/* monotonic clock in seconds */
double ab_now(void);
/* "1m12s", "41s", "0.3s" into buf */
void ab_format_duration(char *buf, size_t len, double seconds);
/* true when s is exactly n lowercase hex digits */
int ab_is_hex(const char *s, size_t n);

#endif
