#include "notes.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"

/* open the repository of spec ("REPO" or "REPO@REV") and peel REV to a commit */
static int
resolve(git_repository **repo, git_object **commit, const char *spec)
{
	const char *at = strrchr(spec, '@');
	char *path = at ? ab_strndup(spec, (size_t)(at - spec)) : ab_strdup(spec);
	const char *rev = at && at[1] ? at + 1 : "HEAD";
	git_object *obj = NULL;
	int error = -1;

	*repo = NULL;
	*commit = NULL;
	if (git_repository_open_ext(repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		ab_error_git("--notes: cannot open repository '%s'", path);
		goto done;
	}
	if (git_revparse_single(&obj, *repo, rev) < 0) {
		ab_error_git("--notes: '%s' names no revision in '%s'", rev, path);
		goto done;
	}
	if (git_object_peel(commit, obj, GIT_OBJECT_COMMIT) < 0) {
		ab_error_git("--notes: '%s' is not a commit in '%s'", rev, path);
		goto done;
	}
	error = 0;
done:
	git_object_free(obj);
	if (error < 0) {
		git_repository_free(*repo);
		*repo = NULL;
	}
	free(path);
	return error;
}

int
ab_notes_resolve(char *commit_hex, const char *spec)
{
	git_repository *repo;
	git_object *commit;

	if (resolve(&repo, &commit, spec) < 0)
		return -1;
	if (commit_hex)
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1, git_object_id(commit));
	git_object_free(commit);
	git_repository_free(repo);
	return 0;
}

int
ab_notes_attach(char *commit_hex, const char *spec, const char *notes_ref, const char *text)
{
	git_repository *repo = NULL;
	git_object *commit = NULL;
	git_signature *sig = NULL;
	git_oid note_id;
	int error = -1;

	if (resolve(&repo, &commit, spec) < 0)
		goto done;
	/* the user's identity when configured, else allocbuild's own */
	if (git_signature_default(&sig, repo) < 0 &&
	    git_signature_now(&sig, "allocbuild", "allocbuild@localhost") < 0) {
		ab_error_git("--notes: cannot make a signature");
		goto done;
	}
	/* force: running again replaces the note */
	if (git_note_create(&note_id, repo, notes_ref, sig, sig, git_object_id(commit), text, 1) < 0) {
		ab_error_git("--notes: cannot write the note on '%s'", spec);
		goto done;
	}
	if (commit_hex)
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1, git_object_id(commit));
	error = 0;
done:
	git_signature_free(sig);
	git_object_free(commit);
	git_repository_free(repo);
	return error;
}
