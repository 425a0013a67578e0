/*
 * recipe: the recipe model (docs/recipe.md) and its loader.
 *
 * ab_recipe_load() reads a JSON recipe with cJSON, checks every rule and
 * reports every error at once as
 *   allocbuild: FILE:LINE:COL: json.path: message
 * (LINE:COL of the offending value, or of its key for unknown keys), then
 * returns -1. On success the recipe is fully resolved: every reference
 * points at an existing source or variant, labels are unique, and there
 * are no relink or runtime_of cycles.
 *
 * Paths are kept as written; `dir` is the recipe's directory, against which
 * patch paths are resolved (ab_recipe_path()).
 */
#ifndef AB_RECIPE_H
#define AB_RECIPE_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "../lib/hash.h"
#include "../lib/util.h"
#include "varref.h"

enum ab_source_kind { AB_SOURCE_GIT, AB_SOURCE_ARCHIVE, AB_SOURCE_DIR };

struct ab_overlay {
	char *path;   /* path inside this source's tree */
	char *source; /* id of the source whose tree replaces it */
};

/* the download limit of an archive source without "max_size_mib" (docs/recipe.md), and its largest value */
#define AB_ARCHIVE_MAX_MIB_DEFAULT 4096
#define AB_ARCHIVE_MAX_MIB_MAX (1 << 20)

struct ab_source {
	char *id;
	enum ab_source_kind kind;
	/* git */
	char *url;
	char *commit;     /* 40 hex digits, or a ref name when unpinned */
	int unpinned;     /* commit is not 40 hex digits (needs --allow-unpinned) */
	/* archive */
	struct ab_list urls;
	char *sha256;     /* 64 lowercase hex digits */
	int strip;        /* leading path components to remove, default 0 */
	int max_size_mib; /* the most a download of it may bring, in MiB; 0: AB_ARCHIVE_MAX_MIB_DEFAULT */
	/* dir: a directory next to the recipe, pinned by its in-toto dirHash */
	char *dir;        /* relative to the recipe's directory (ab_recipe_path) */
	char *dirhash;    /* 64 lowercase hex digits */
	/* both */
	struct ab_list patches;   /* as written; see ab_recipe_path() */
	struct ab_patch_bytes *patch_bytes; /* each patch as read, once (ab_recipe_patch): patches.n, made at load */
	struct ab_list *prepare;  /* prepare[i] is one argv */
	size_t nprepare;
	struct ab_overlay *overlays;
	size_t noverlays;
	int line, col;            /* where the source object starts */
	int commit_line, commit_col; /* where git.commit's value is (git sources) */
};

enum ab_variant_kind { AB_VARIANT_BUILD, AB_VARIANT_RELINK, AB_VARIANT_RUNTIME };
enum ab_build_system { AB_BUILD_AUTOTOOLS, AB_BUILD_CMAKE, AB_BUILD_CARGO };

struct ab_replace {
	char *path;          /* the argv element (archive) to replace */
	char *with_variant;  /* label of the variant that provides the replacement */
	char *with_artifact; /* path relative to that variant's build dir */
};

struct ab_variant {
	char *label;
	enum ab_variant_kind kind;

	/* AB_VARIANT_BUILD */
	char *source;
	struct {
		enum ab_build_system system;
		struct ab_list configure; /* autotools configure args */
		struct ab_kvlist defines; /* cmake -D NAME=value, in recipe order */
		char *generator;          /* cmake generator, default "Unix Makefiles" */
		struct ab_list targets;   /* make / cmake --build targets; empty: default */
		int jobs;                 /* 0: use -j from the command line or nproc */
		struct ab_kvlist env;     /* extra environment for configure and build */
		/* cargo (builder/cargo.h) */
		char *profile;            /* cargo --profile; NULL: --release */
		struct ab_list features;  /* cargo --features, in recipe order */
		struct ab_list bins;      /* cargo --bin NAME each; empty: every binary */
		char *vendor;             /* a cargo vendor directory inside the source tree; NULL: Debian's registry */
		char *cargo, *rustc;      /* absolute paths of the tools to use; NULL: what PATH finds */
	} build;

	/*
	 * the {variant:LABEL:PATH} references of its configure arguments,
	 * define values and build env values (builder/varref.h), each once,
	 * in recipe order: it depends on those variants
	 */
	struct ab_varref *uses;
	size_t nuses;

	/* AB_VARIANT_RELINK */
	struct {
		char *from;        /* label of a build variant */
		char *link_txt;    /* path relative to from's build dir */
		struct ab_replace *replace;
		size_t nreplace;
		char *output;      /* output path relative to from's build dir */
		int layout;        /* "layout": a layout control (builder/layout.h) */
		int layout_seed;   /* "layout.seed" */
	} relink;

	/* AB_VARIANT_RUNTIME */
	char *runtime_of;

	/* any kind */
	struct ab_list artifacts; /* relative to the build dir */
	struct {
		int present;
		char *kind;       /* a registry name (provenance/alloc/allocreg.h) */
		char *archive;    /* relative to the build dir, may be NULL */
		char *vendored;   /* path inside the source tree, may be NULL */
		char *upstream;   /* source id, may be NULL */
	} allocator;
	struct {
		struct ab_kvlist env;
		struct ab_list unset;
	} runtime;
	/* build variants: compiled path-independently (builder/ccwrap.h); 0 for "reproducible": false */
	int reproducible;
	/* its steps run in the build sandbox (builder/isolation.h); 0 for "sandbox": false */
	int sandbox;
	struct {
		int present;
		char *version;          /* may be NULL */
		int secure;             /* mimalloc secure level 0 to 4; -1: not stated */
		struct ab_kvlist options; /* option name -> value the probe must report */
	} expect;                   /* what the probe must find (docs/recipe.md, "expect") */
	struct {
		struct ab_list args; /* arguments for a probed binary artifact (e.g. "-h") */
		int timeout;         /* seconds; 0: the default (docs/probes.md) */
	} probe;

	int line, col;
};

struct ab_recipe {
	pthread_mutex_t *patch_lock; /* over the sources' patch_bytes (a pointer: the recipe is shared const) */
	char *path;           /* as given */
	char *dir;            /* absolute directory of the recipe file, after symlinks (relative paths resolve there) */
	char sha256[65];      /* of the file's bytes */
	char *text;           /* those bytes (a copy for OUTDIR/recipe.json) */
	size_t len;
	int format;           /* "recipe": 1 */
	char *name;
	char *description;    /* may be NULL */
	struct ab_source *sources;
	size_t nsources;
	struct ab_variant *variants;
	size_t nvariants;
};

/* load, check and resolve a recipe file; reports all errors; *out freed with ab_recipe_free */
int ab_recipe_load(struct ab_recipe **out, const char *path);
/*
 * the same from memory; `name` is used in messages, errors go to `errs`
 * (stderr when NULL). Used by the fuzzer.
 */
int ab_recipe_parse(struct ab_recipe **out, const char *name, const char *text, size_t len, FILE *errs);
void ab_recipe_free(struct ab_recipe *r);

const struct ab_source *ab_recipe_source(const struct ab_recipe *r, const char *id);
const struct ab_variant *ab_recipe_variant(const struct ab_recipe *r, const char *label);
/* a path from the recipe (patches) resolved against the recipe's directory; caller frees */
char *ab_recipe_path(const struct ab_recipe *r, const char *p);

/* a patch of a source as it was read: its bytes and their SHA-256 */
struct ab_patch_bytes {
	int read;                    /* 0: not read yet */
	struct ab_buf text;
	char sha256[AB_HEX_LEN + 1];
};
/*
 * Patch i of s (resolved with ab_recipe_path) read and hashed once for
 * the recipe, by whoever asks first: the build's content key, a tree's
 * inputs and the tree it is applied to all name, and apply, the same
 * bytes. Thread-safe. AB_EFAIL (reported) when it cannot be read (asked
 * again, it is read again)
 */
int ab_recipe_patch(const struct ab_patch_bytes **out, const struct ab_recipe *r, const struct ab_source *s, size_t i);

/*
 * Variants to process for the given labels (all when nlabels is 0), with
 * everything they depend on, in dependency order (a relink after its `from`
 * and replacement variants, a runtime_of after its base). *order holds
 * indexes into r->variants; caller frees. Reports unknown labels.
 */
int ab_recipe_order(size_t **order, size_t *norder, const struct ab_recipe *r,
    char *const *labels, size_t nlabels);

/*
 * The one encoding of the dependencies between variants: the labels of
 * the variants v depends on, in the order the recipe names them (a
 * runtime_of variant: its runtime_of; a relink: its `from`, then the
 * variant of each replacement; a build variant: the variants its
 * {variant:...} references use), each label once. Stores them in deps,
 * which has room for ab_recipe_variant_ndeps_max(v); returns how many.
 */
size_t ab_recipe_variant_deps(const char **deps, const struct ab_variant *v);
size_t ab_recipe_variant_ndeps_max(const struct ab_variant *v);

/*
 * The overlay closure of a source, walked depth first: enter(arg, s, NULL,
 * 0) for s, then for each overlay of s in recipe order the same walk of
 * the overlaid source (via: that overlay entry, depth + 1), then leave(arg,
 * s, via, depth) once s's overlays are done. Either callback may be NULL.
 * A source overlaid in two places is walked twice. The loader refuses
 * unknown overlay sources and overlay cycles, so the walk ends: there is
 * no depth limit. A callback returns 0 to go on; any other value stops
 * the walk and is returned.
 */
typedef int ab_overlay_fn(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth);
int ab_recipe_overlay_walk(const struct ab_recipe *r, const struct ab_source *s, ab_overlay_fn *enter,
    ab_overlay_fn *leave, void *arg);

/* the variant that actually produced the binary of v (follows runtime_of) */
const struct ab_variant *ab_recipe_base_variant(const struct ab_recipe *r, const struct ab_variant *v);

/*
 * Unpinned git sources (a ref name instead of a 40-digit commit id) load
 * fine and have `unpinned` set. Commands that fetch or build refuse them
 * unless --allow-unpinned was given: ab_recipe_check_pins() reports every
 * unpinned source as
 *   allocbuild: FILE:LINE:COL: sources.X.git.commit: 'v5.3.0' is not a
 *   40-digit commit id (use --allow-unpinned to resolve it)
 * and returns -1 when there is one and allow_unpinned is 0.
 */
int ab_recipe_check_pins(const struct ab_recipe *r, int allow_unpinned);
/* the same for one source of r (what fetch checks before it fetches that source) */
int ab_recipe_check_pin(const struct ab_recipe *r, const struct ab_source *s, int allow_unpinned);

/*
 * ab_recipe_load/parse with flags. AB_RECIPE_REQUIRE_PINS reports unpinned
 * sources as errors together with every other error (what `validate` does
 * without --allow-unpinned).
 */
#define AB_RECIPE_REQUIRE_PINS 0x1
/* the largest recipe file read (docs/recipe.md); a larger one, or one that is not a regular file, is refused */
#define AB_RECIPE_MAX ((size_t)16 << 20)
int ab_recipe_load_ext(struct ab_recipe **out, const char *path, unsigned flags);
/* the same, the recipe's errors (FILE:LINE:COL: json.path: message lines) to errs; a file it cannot read is reported */
int ab_recipe_load_to(struct ab_recipe **out, const char *path, unsigned flags, FILE *errs);
int ab_recipe_parse_ext(struct ab_recipe **out, const char *name, const char *text, size_t len,
    FILE *errs, unsigned flags);

/* number of variants of a kind */
size_t ab_recipe_count(const struct ab_recipe *r, enum ab_variant_kind kind);

#endif
