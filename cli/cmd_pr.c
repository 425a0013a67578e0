#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../builder/source.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/compare/derive.h"
#include "../provenance/review/challenge.h"
#include "../provenance/review/notes.h"
#include "../provenance/review/policy.h"
#include "../provenance/review/pr.h"
#include "../provenance/review/sign.h"

static const char usage[] =
    "allocbuild pr [-o DIR] [--notes REPO[@COMMIT]] [--limit N] [--sign KEY.pem]... [--json]\n"
    "              [--rebuilt RECORD]... [--rebuilt-key PUB.pem]... [--policy POLICY.json]\n"
    "              [--derive DEF]... [--metrics FILE] OUTDIR\n"
    "\n"
    "Write pr.md, a pull-request body, and provenance-<name>.tar.gz, the evidence\n"
    "bundle, into DIR (default OUTDIR). --sign first signs the statements of\n"
    "OUTDIR as `allocbuild sign --signing-key KEY.pem` does; the envelopes go into the\n"
    "bundle and pr.md says who signed and how to verify. --notes attaches the\n"
    "in-toto statement to a commit as a git note. --rebuilt adds the table of\n"
    "`allocbuild challenge OUTDIR RECORD...` (the records of independent\n"
    "rebuilds; their signatures checked with --rebuilt-key) as \"Independent\n"
    "rebuilds\". --policy checks a reviewer's policy as `verify --policy` does\n"
    "(the signers rule counts the --sign keys): a Policy line in the verdict, the\n"
    "rules that failed, every rule in the details; the policy file goes into the\n"
    "bundle (pr-policy/), and with --sign its signed verification summary\n"
    "(pr-policy/vsa.intoto.jsonl); a policy that fails is reported, not an\n"
    "error. --derive and --metrics add derived figures to the runs' comparison, as\n"
    "`allocbuild compare` does, shown with their definitions. It says what it signed and wrote (nothing with -q); --json prints\n"
    "that as one document: {\"signed_statements\", \"envelopes\", \"pr_md\",\n"
    "\"pr_md_characters\", \"details_moved\", \"bundle\", \"bundle_files\",\n"
    "\"note_commit\"}. Exit 0 written, 1 a record's signature does not verify, 2 bad\n"
    "input (a bad policy too; nothing is written then). See docs/pr.md.\n";

/*
 * what pr did: the statements it signed (said even when a later step
 * failed), the files it wrote; nothing with -q; with --json one document
 * {"signed_statements", "envelopes", "pr_md", "pr_md_characters",
 * "details_moved", "bundle", "bundle_files", "note_commit"} (null where
 * nothing was done)
 */
static void
print_written(const struct ab_pr_written *w, const struct ab_pr_opts *o, int json)
{
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		char *env = w->is_signed ? ab_path_join(o->outdir, AB_SIGN_ENVELOPES) : NULL;

		cJSON_AddNumberToObject(doc, "signed_statements", (double)w->signed_statements);
		ab_json_add_str_or_null(doc, "envelopes", env);
		ab_json_add_str_or_null(doc, "pr_md", w->md);
		cJSON_AddNumberToObject(doc, "pr_md_characters", (double)w->md_chars);
		cJSON_AddBoolToObject(doc, "details_moved", w->moved);
		ab_json_add_str_or_null(doc, "bundle", w->bundle);
		cJSON_AddNumberToObject(doc, "bundle_files", (double)w->bundle_files);
		ab_json_add_str_or_null(doc, "note_commit", w->note_commit[0] ? w->note_commit : NULL);
		if (w->md)
			ab_json_print(stdout, doc);
		cJSON_Delete(doc);
		free(env);
		return;
	}
	if (ab_quiet)
		return;
	if (w->is_signed)
		printf("signed %zu statement%s: %s/%s\n", w->signed_statements, w->signed_statements == 1 ? "" : "s",
		    o->outdir, AB_SIGN_ENVELOPES);
	if (w->md)
		printf("wrote %s (%zu characters%s)\nwrote %s (%zu files)\n", w->md, w->md_chars,
		    w->moved ? ", details moved to the bundle" : "", w->bundle, w->bundle_files);
	if (w->note_commit[0])
		printf("attached the in-toto statement to %s as a note under %s\n", w->note_commit, AB_NOTES_REF);
}

static int
cmd_pr(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"notes", required_argument, NULL, 'n'},
		{"limit", required_argument, NULL, 'l'},
		{"sign", required_argument, NULL, 's'},
		{"signing-key", required_argument, NULL, 's'}, /* sign's name for it */
		{"rebuilt", required_argument, NULL, 'r'},
		{"rebuilt-key", required_argument, NULL, 'K'},
		{"policy", required_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"derive", required_argument, NULL, 'D'},
		{"metrics", required_argument, NULL, 'M'},
		{NULL, 0, NULL, 0},
	};
	struct ab_pr_opts o = {0};
	int json = 0;
	struct ab_pr_written w = {0};
	struct ab_strv keypaths = {0}, records = {0}, pubpaths = {0};
	struct ab_key **keys = NULL, **pubs = NULL;
	struct ab_challenge *ch = NULL;
	struct ab_policy *pol = NULL;
	const char *policy_path = NULL;
	struct ab_derived *derived = NULL;
	size_t nkeys = 0, npubs = 0, nderived = 0;
	int c, rc = AB_EXIT_USAGE;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.dir = optarg;
			break;
		case 'n':
			o.notes = optarg;
			break;
		case 's':
			ab_strv_push(&keypaths, optarg);
			break;
		case 'r':
			ab_strv_push(&records, optarg);
			break;
		case 'K':
			ab_strv_push(&pubpaths, optarg);
			break;
		case 'P':
			policy_path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'D':
		case 'M':
			if ((c == 'D' ? ab_derived_add(&derived, &nderived, optarg) :
			    ab_derived_read_file(&derived, &nderived, optarg)) < 0)
				goto done;
			break;
		case 'l': {
			int v;

			if (ab_cmd_parse_int(&v, optarg, 1024, INT_MAX) < 0) {
				rc = ab_cmd_usage_error("pr", "--limit: '%s' is not a whole number from 1024 to %d",
				    optarg, INT_MAX);
				goto done;
			}
			o.limit = (size_t)v;
			break;
		}
		default:
			rc = ab_cmd_option_error("pr", c, argv);
			goto done;
		}
	}
	if (argc - optind != 1) {
		rc = ab_cmd_usage_error("pr", "expected one OUTDIR");
		goto done;
	}
	if (pubpaths.n && !records.n) {
		rc = ab_cmd_usage_error("pr", "--rebuilt-key needs --rebuilt");
		goto done;
	}
	o.outdir = argv[optind];
	if (!ab_is_dir(o.outdir)) {
		ab_error("pr: '%s' is not a directory", o.outdir);
		goto done;
	}
	/* a bad policy, an unusable key, or a record that does not hold, must fail before anything is written */
	rc = policy_path ? ab_policy_load(&pol, policy_path, stderr) : 0;
	if (rc == 0)
		rc = ab_cmd_load_keys(&keys, &nkeys, keypaths.v, keypaths.n, 1);
	if (rc == 0)
		rc = ab_cmd_load_keys(&pubs, &npubs, pubpaths.v, pubpaths.n, 0);
	if (rc == 0 && records.n) {
		struct ab_challenge_opts co = {.records = records.v, .nrecords = records.n, .keys = pubs, .nkeys = npubs};

		rc = ab_challenge_make(&ch, o.outdir, &co);
	}
	o.sign_keys = keys;
	o.nsign_keys = nkeys;
	o.sign_trees = ab_source_tree_files;
	o.rebuilt = ch;
	o.policy = pol;
	o.derived = derived;
	o.nderived = nderived;
	if (rc == 0)
		rc = ab_pr_write(&w, &o);
	print_written(&w, &o, json);
	rc = ab_cmd_exit(rc);
done:
	ab_pr_written_release(&w);
	ab_challenge_free(ch);
	ab_policy_free(pol);
	ab_derived_free(derived, nderived);
	ab_cmd_free_keys(keys, nkeys);
	ab_cmd_free_keys(pubs, npubs);
	ab_strv_free(&keypaths);
	ab_strv_free(&records);
	ab_strv_free(&pubpaths);
	return rc;
}

const struct ab_cmd ab_cmd_pr = {"pr", "write a pull-request body and evidence bundle", usage, cmd_pr};
