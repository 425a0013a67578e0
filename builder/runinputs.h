/*
 * runinputs: what a run's command runs and names, hashed before its
 * first run (docs/runs.md, "What ran"): the executable COMMAND resolves
 * to (found in PATH as exec finds it), each argument that names an
 * existing regular file, and the program of `run --program PATH`. Each
 * becomes a struct ab_runrec_input of the record (provenance/runs/runrec.h):
 * its path relative to OUTDIR when it is inside it, else its base name
 * alone, its digest (through the digest cache, lib/digestcache.h), and
 * whether it is an artifact of the OUTDIR's build.
 *
 * A --program that is no artifact is kept: its bytes, read once when it
 * is hashed, are written under OUTDIR/runs/NAME/programs/ and listed in
 * SHA256SUMS with the first record that names it (ab_runinputs_keep), so
 * that the record's subject is a file of the OUTDIR that verify, verify
 * --key and the bundle check like any other.
 *
 * Protocol: ab_runinputs_hash once per label (argv with {bin} and
 * {label} replaced), then ab_runinputs_keep before each record is
 * written, ab_runinputs_release at the end.
 */
#ifndef AB_RUNINPUTS_H
#define AB_RUNINPUTS_H

#include <stddef.h>

#include "../lib/util.h"
#include "../provenance/runs/runrec.h"

struct ab_manifest_recorded;

/* where the files are looked at from: the OUTDIR, what its build recorded, the digest cache */
struct ab_runinputs_where {
	const char *outdir;
	const char *outdir_real;              /* realpath(outdir) */
	const struct ab_manifest_recorded *rec; /* SHA256SUMS and the statement's subjects */
	const char *cache_dir;                /* the digest cache's, or NULL */
	int rehash;
	char *const *envp;                    /* the environment whose PATH finds the command */
};

struct ab_runinputs {
	struct ab_runrec_input program;
	struct ab_runrec_input *files;
	size_t nfiles;
	struct ab_runrec_input given;  /* --program (name NULL: none) */
	struct ab_buf given_bytes;     /* its bytes, until they are kept */
	int given_listed;              /* its copy is listed in SHA256SUMS (or it is an artifact) */
	struct ab_strv owned;          /* the strings the inputs point to */
};

/*
 * Hash what argv runs and names, and with program (not NULL) that file
 * as the record's subject program, its copy to be kept under reldir
 * (runs/NAME). 0; AB_EFAIL after reporting a --program that is no
 * regular file or a file that cannot be read.
 */
int ab_runinputs_hash(struct ab_runinputs *in, char *const *argv, const char *program, const char *reldir,
    const struct ab_runinputs_where *w);
/* is the program, or a file an argument names, an artifact of the OUTDIR (or --program given)? */
int ab_runinputs_tied(const struct ab_runinputs *in);
/*
 * Before a record naming in->given is written: its copy written under
 * OUTDIR (atomically) unless it is there already, and into *file the line
 * SHA256SUMS needs (path NULL: none; the caller frees path). 0 or
 * AB_EFAIL (reported).
 */
int ab_runinputs_keep(struct ab_runrec_file *file, struct ab_runinputs *in, const char *outdir);
/* another label's copy, kept just now (ab_runinputs_keep's file): in keeps none of its own when it is the same */
void ab_runinputs_kept_by_other(struct ab_runinputs *in, const struct ab_runrec_file *kept);
void ab_runinputs_release(struct ab_runinputs *in);

#endif
