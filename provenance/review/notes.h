/*
 * notes: attach a provenance document to a commit as a git note
 * (refs/notes/provenance by default) through libgit2, so that
 * `git notes --ref=provenance show COMMIT` prints it.
 */
#ifndef AB_NOTES_H
#define AB_NOTES_H

#define AB_NOTES_REF "refs/notes/provenance"

/*
 * Attach text to the commit named by spec, "REPO" (its HEAD) or
 * "REPO@REV"; a note already there is replaced. *commit_hex (41 bytes)
 * receives the annotated commit id when non-NULL. Reports errors.
 */
int ab_notes_attach(char *commit_hex, const char *spec, const char *notes_ref, const char *text);

/* check that spec names a commit, before anything is written; reports errors */
int ab_notes_resolve(char *commit_hex, const char *spec);

#endif
