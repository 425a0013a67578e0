/*
 * cargoprov: what a cargo build resolved (docs/manifests.md, "Cargo
 * builds"): Cargo.lock's digest, every crate it locks with where it came
 * from and its checksum, and the jemalloc a crate bundles.
 *
 *   struct ab_cargo_record *rec;
 *   if (ab_cargoprov_read(&rec, "SRC", "/usr/share/cargo/registry") < 0) ...  reported
 *   ... rec->lock_sha256, rec->crates[i], rec->jemalloc.version ...
 *   cJSON *doc = ab_cargo_record_json(rec);   where it is written (state.json, the manifests)
 *   ab_cargo_record_free(rec);
 *
 * The record:
 *   {"lockfile": {"path": "Cargo.lock", "sha256": "..."},
 *    "crates_dir": "/usr/share/cargo/registry",
 *    "crates": [{"name": "jemalloc-sys", "version": "0.3.2",
 *                "source": "registry+https://github.com/rust-lang/crates.io-index",
 *                "checksum": "<Cargo.lock's>", "package_checksum": "<.cargo-checksum.json's>",
 *                "dir": "/usr/share/cargo/registry/jemalloc-sys-0.3.2", "dirHash": "..."}, ...],
 *    "jemalloc": {"crate": "jemalloc-sys", "crate_version": "0.3.2",
 *                 "version": "5.1.0-0-g61efbda...", "file": "configure/VERSION"}}
 * A checksum that is not 64 hex digits (Debian's crates say "Could not
 * get crate checksum") is kept as written and marked "checksum_valid":
 * false; the crate is then identified by the dirHash of its directory.
 * "dir" and "dirHash" are null for a crate not found in the crates dir;
 * "jemalloc" is absent when no crate bundles a jemalloc with a VERSION.
 * The workspace's own packages (no source) are not crates of the record.
 */
#ifndef AB_CARGOPROV_H
#define AB_CARGOPROV_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"

struct ab_cargo_crate {
	char *name, *version, *source;
	char *checksum;          /* Cargo.lock's, as written, or NULL */
	int checksum_valid;      /* 64 hex digits */
	char *package_checksum;  /* .cargo-checksum.json's "package", or NULL */
	char *dir;               /* in the crates dir; NULL: not found there (dirhash NULL too) */
	char *dirhash;
};

/* the record above, typed */
struct ab_cargo_record {
	char *lock_path;                  /* "Cargo.lock" */
	char lock_sha256[AB_HEX_LEN + 1];
	char *crates_dir;
	struct ab_cargo_crate *crates;
	size_t ncrates;
	struct {
		char *crate;              /* NULL: no crate bundles a jemalloc (the others NULL too) */
		char *crate_version, *version, *file;
	} jemalloc;
};

/* what the cargo build in src resolved, into *out (ab_cargo_record_free); AB_EFAIL reported */
int ab_cargoprov_read(struct ab_cargo_record **out, const char *src, const char *crates);
/* the record as it is written (see above); a new object */
cJSON *ab_cargo_record_json(const struct ab_cargo_record *r);
/* the same read back (an earlier build's state.json); NULL when doc is not such a record */
struct ab_cargo_record *ab_cargo_record_parse(const cJSON *doc);
void ab_cargo_record_free(struct ab_cargo_record *r);

/* the packages of a Cargo.lock text as [{name, version, source, checksum}] (no source: omitted); a new array */
cJSON *ab_cargoprov_parse_lock(const char *text);

#endif
