/* which: the one PATH lookup, as execvp does it (for lib/proc's child and every caller) */
#ifndef AB_WHICH_H
#define AB_WHICH_H

#include "util.h"

/*
 * The paths execve should try for prog, as execvp would with envp's PATH
 * (NULL: this process's; none: "/usr/local/bin:/usr/bin:/bin"; an empty
 * element the current directory), appended to c; prog alone when it holds
 * a '/'. Computed before fork (a child of a threaded process calls only
 * async-signal-safe functions).
 */
void ab_exec_candidates(struct ab_strv *c, const char *prog, char *const *envp);
/*
 * The file ab_proc_run's child would exec for prog: prog itself when it
 * holds a '/', else the first of its PATH's candidates (envp's PATH; NULL:
 * this process's; none: "/usr/local/bin:/usr/bin:/bin"; an empty element
 * the current directory), as execvp looks; NULL when that is no regular
 * executable file. The one PATH lookup (run's program, bwrap, a probed
 * command); caller frees.
 */
char *ab_proc_which(const char *prog, char *const *envp);
/* would ab_proc_run find prog (ab_proc_which)? 1 or 0 */
int ab_proc_findable(const char *prog, char *const *envp);

#endif
