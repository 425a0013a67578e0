/*
 * allocbuild hash [--json] [-j N] PATH...
 *
 * A file (or anything that is not a directory, symlinks followed, "-" for
 * standard input) gets the line GNU sha256sum prints for it, byte for byte;
 * a directory gets its in-toto dirHash on the same kind of line. Like
 * sha256sum, a path that cannot be hashed is reported and the others are
 * still printed; the exit status is then 2.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"

/* hash one argument; 0 or -1 (reported) */
static int
hash_path(cJSON *arr, struct ab_buf *out, const char *path, int jobs)
{
	char hex[AB_HEX_LEN + 1];
	const char *type = "file";
	uint64_t size = 0, files = 0;
	struct stat st;

	if (!strcmp(path, "-")) {
		if (ab_hash_fd(hex, &size, STDIN_FILENO, "-") < 0)
			return -1;
	} else if (stat(path, &st) < 0) {
		ab_error_errno("cannot open '%s'", path);
		return -1;
	} else if (S_ISDIR(st.st_mode)) {
		type = "tree";
		if (ab_hash_tree_count(hex, &files, &size, path, jobs) < 0)
			return -1;
	} else if (!S_ISREG(st.st_mode)) {
		/* as sha256sum: a device or a fifo named on purpose is read to its end */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		int e = fd < 0 ? (ab_error_errno("cannot open '%s'", path), -1) : ab_hash_fd(hex, &size, fd, path);

		if (fd >= 0)
			close(fd);
		if (e < 0)
			return -1;
	} else if (ab_hash_file(hex, &size, path) < 0) {
		return -1;
	}

	if (arr) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "path", path);
		cJSON_AddStringToObject(o, "type", type);
		cJSON_AddStringToObject(o, "sha256", hex);
		if (!strcmp(type, "file"))
			cJSON_AddNumberToObject(o, "size", (double)size);
		else
			cJSON_AddNumberToObject(o, "files", (double)files);
		cJSON_AddItemToArray(arr, o);
	} else {
		ab_buf_clear(out);
		ab_hash_line(out, hex, path);
		fwrite(out->s, 1, out->len, stdout);
		/* a line per argument as soon as it is known, like sha256sum */
		fflush(stdout);
	}
	return 0;
}

static const char usage[] =
    "allocbuild hash [--json] [-j N] PATH...\n"
    "\n"
    "Print sha256sum-compatible lines: for a file its SHA-256 (the line\n"
    "sha256sum prints, byte for byte; '-' is standard input), for a\n"
    "directory its in-toto dirHash, the SHA-256 of\n"
    "  find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum\n"
    "run in it: regular files only, symlinks and special files left out.\n"
    "  -j, --jobs N   worker threads for trees (default: 4 per online core)\n"
    "      --json     a JSON array of {path, type, sha256, size | files}\n"
    "A path that cannot be hashed is reported and the others are still\n"
    "printed; the exit status is then 2. See docs/hashing.md.\n";

static int
cmd_hash(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"jobs", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	struct ab_buf line = {0};
	cJSON *arr = NULL;
	int json = 0, jobs = 0, rc = AB_EXIT_OK, c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'j':
			if (ab_cmd_parse_jobs(&jobs, "hash", optarg) < 0)
				return AB_EXIT_USAGE;
			break;
		default:
			return ab_cmd_option_error("hash", c, argv);
		}
	}
	if (optind >= argc)
		return ab_cmd_usage_error("hash", "no path given");

	if (json)
		arr = cJSON_CreateArray();
	for (int i = optind; i < argc; i++)
		if (hash_path(arr, &line, argv[i], jobs) < 0)
			rc = AB_EXIT_USAGE;
	if (json) {
		if (ab_json_print(stdout, arr) < 0)
			rc = AB_EXIT_USAGE;
		cJSON_Delete(arr);
	}
	ab_buf_free(&line);
	return rc;
}

const struct ab_cmd ab_cmd_hash = {"hash", "SHA-256 of files and in-toto dirHash of directories", usage, cmd_hash};
