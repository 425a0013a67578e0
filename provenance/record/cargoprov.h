/*
 * cargoprov: what a cargo build resolved (docs/manifests.md, "Cargo
 * builds"): Cargo.lock's digest, every crate it locks with where it came
 * from and its checksum, and the jemalloc a crate bundles.
 *
 *   cJSON *rec;
 *   if (ab_cargoprov_read(&rec, "SRC", "/usr/share/cargo/registry") < 0) ...  reported
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

#include <cjson/cJSON.h>

int ab_cargoprov_read(cJSON **out, const char *src, const char *crates);

/* the packages of a Cargo.lock text as [{name, version, source, checksum}] (no source: omitted); a new array */
cJSON *ab_cargoprov_parse_lock(const char *text);

#endif
