/*
 * cmdsrec: provenance/build-commands.json read back, typed
 * (docs/manifests.md): its one reader, for the commands that read an
 * OUTDIR's manifests afterwards (pr, policycheck). The build writes it from its
 * variant records (provenance/record/manifest.c). The shape read:
 *
 *   {variants: [{label, kind, ok, key,
 *                definition: {source, runtime_of, allocator: {kind, vendored, upstream},
 *                             build: {system, configure: [..], defines: {NAME: value}},
 *                             relink: {from, replace: [{path, with: {variant}}]},
 *                             runtime: {env: {NAME: value}, unset: [..]}},
 *                sandbox: {paths: [{real}]},
 *                toolchain: [tools (provenance/record/toolchain.h)]}],
 *    object_comparison: [{a, b, identical, differ, only_a, only_b, differ_by_directory: {DIR: n}}]}
 *
 * Members not named here are not read (a variant's steps, its
 * definition's other keys: shown as they are by whoever needs them). A
 * variant without its label or kind, or a label twice, is refused. A
 * member left out is NULL (0, empty); configure arguments that are not
 * strings are left out; a define's or variable's value that is not a
 * string is NULL; an unset name that is not a string is ""; a toolchain
 * that is not a record of tools is kept as none (tools_ok 0), not refused.
 */
#ifndef AB_CMDSREC_H
#define AB_CMDSREC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "toolchain.h"

/* NAME: value, in the document's order */
struct ab_cmdsrec_kv {
	char *name, *value;
};

struct ab_cmdsrec_replace {
	char *path, *with_variant;
};

struct ab_cmdsrec_variant {
	char *label, *kind;
	int ok;
	struct {
		char *source, *runtime_of;
		struct {
			char *kind, *vendored, *upstream;
		} allocator;
		char *build_system;
		struct ab_strv configure;
		struct ab_cmdsrec_kv *defines;
		size_t ndefines;
		char *relink_from;
		struct ab_cmdsrec_replace *replace;
		size_t nreplace;
		struct ab_cmdsrec_kv *env;
		size_t nenv;
		struct ab_strv unset;
	} def;
	struct ab_strv sandbox_real; /* its sandbox's paths, as the real side of each (sandbox.paths[].real) */
	int tools_ok;                /* its toolchain is there and a record of tools: */
	struct ab_toolchain tools;
};

/* two build variants' objects compared (provenance/record/objset.h) */
struct ab_cmdsrec_objects {
	char *a, *b;
	int counted;             /* identical and differ are numbers in the record */
	int identical, differ;   /* 0 when not numbers */
	int only_a, only_b;      /* the objects of one tree only */
	struct ab_strv dirs;     /* the directories with differing objects (differ_by_directory), in order */
	int *dir_n;              /* how many differ in each (0 when not a number) */
};

struct ab_cmdsrec {
	struct ab_cmdsrec_variant *variants; /* in plan order */
	size_t nvariants;
	struct ab_cmdsrec_objects *objects;
	size_t nobjects;
};

/* doc read into *out; AB_EFAIL (reported, naming file and key) when it is not one */
int ab_cmdsrec_parse(struct ab_cmdsrec *out, const cJSON *doc, const char *file);
/* the variant of label, or NULL */
const struct ab_cmdsrec_variant *ab_cmdsrec_variant(const struct ab_cmdsrec *c, const char *label);
void ab_cmdsrec_release(struct ab_cmdsrec *c);

#endif
