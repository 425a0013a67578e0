/*
 * redact: the one rule for secrets in what allocbuild prints or records
 * (a message, the plan, a manifest, the statement, pr.md, a run record).
 * The value with its secret is used for the request or the child only;
 * everything shown or written goes through one of these. In a text:
 *
 *   - the userinfo of every "scheme://user:password@host" becomes "***@"
 *     (the whole of it: a token may stand in the user's place), in every
 *     URL of the text (a space-separated list of ccache remotes, a
 *     mirror's FROM=TO, a library's message);
 *   - the value of every query parameter whose name looks secret (token,
 *     access_token, key, secret, password, passwd, auth, signature, sig,
 *     credential, session, code) becomes "***";
 *   - the value of every ccache attribute "|NAME=VALUE" whose name looks
 *     secret (bearer-token, password...) becomes "***".
 *
 * An environment entry or an argument NAME=VALUE whose NAME looks secret
 * (holds password, passwd, token, secret, credential, apikey, api_key,
 * access_key, private_key, bearer or authorization, or has a part auth,
 * pass or pwd) has its whole value masked; in an argv, so has the word
 * after an option of such a name ("--token X"). Anything else is kept.
 * Each returns a new string or fills a vector that the caller frees.
 */
#ifndef AB_REDACT_H
#define AB_REDACT_H

struct ab_strv;

/* a text with URLs and ccache attributes in it */
char *ab_url_redact(const char *text);
/*
 * The first line (from 1) of text[0..len) that holds a credential the
 * rules above would mask (a URL's userinfo with a password, a secret query
 * parameter or ccache attribute with a value; a user name alone is not
 * one), or 0: for a log that must not leave the machine as it is
 */
unsigned long ab_redact_find(const char *text, unsigned long len);
/*
 * Every line of the file at path that holds such a credential replaced by
 * its redacted form, the file written again atomically (unchanged when
 * none does): the log of a step that ran outside the build sandbox with
 * a remote cache's credentials in its environment. 0, or AB_EFAIL
 * (reported).
 */
int ab_redact_file(const char *path);
/* an environment entry or a setting "NAME=VALUE" (CCACHE_REMOTE_STORAGE=..., run --set NAME=VALUE) */
char *ab_redact_env(const char *kv);
/* an argv, each word as shown or recorded, into out (appended) */
void ab_redact_argv(struct ab_strv *out, char *const *argv);
/* an argv redacted, then shell-quoted as lib/proc.h's ab_argv_quote does: a command as shown or recorded; caller frees */
char *ab_argv_shown(char *const *argv);
/* does a name (an environment variable, an option, NAME of NAME=VALUE) say that its value is a secret? */
int ab_redact_secret_name(const char *name, unsigned long len);

#endif
