/*
 * sbom: the software bill of materials of an OUTDIR (docs/sbom.md), made
 * from the manifests the build recorded and nothing else, so that the
 * scanners compliance teams run (Trivy, Grype, Dependency-Track) see what
 * allocbuild knows of each binary: its source, the allocator in it, and a
 * vendored allocator's pedigree from the build's upstream-diff.
 *
 * CycloneDX 1.6 JSON: a component per artifact (an executable an
 * "application", an archive a "library"; hashes, the variant labels as
 * properties), per source (purl: pkg:github/OWNER/REPO@COMMIT or @TAG,
 * else pkg:generic with vcs_url or download_url and checksum), per vendored
 * allocator tree (the upstream release's purl and version, and
 * pedigree.ancestors: that release, with its archive's sha256 or its git
 * commit; pedigree.patches: one "unofficial" patch per differing file,
 * the unified diff the build recorded; pedigree.notes: the verdict and
 * the files left out of the copy, which are no patches), and the
 * dependency graph: the recipe -> each artifact; a program -> its source
 * and its allocator archive (or vendored tree); an archive -> its
 * vendored tree or source; a source -> the trees vendored in it. The same
 * OUTDIR gives the same bytes.
 *
 * The formats are a table (sbom.c); a new one is a row and its writer.
 */
#ifndef AB_SBOM_H
#define AB_SBOM_H

#include <cjson/cJSON.h>

#include "../record/bundle.h"

/* the format names, for usage and messages ("cyclonedx") */
extern const char *const ab_sbom_formats[];

/*
 * The SBOM of OUTDIR in format (NULL: cyclonedx) into *out (caller frees).
 * OUTDIR is verified first as `allocbuild verify` does, and only the
 * manifests SHA256SUMS lists are read. 0; AB_ECHECK when OUTDIR does not
 * verify (each problem reported); AB_EFAIL (reported) for an unknown
 * format, no OUTDIR, or a manifest that cannot be read.
 */
int ab_sbom_make(cJSON **out, const char *outdir, const char *format);

/*
 * The SBOM an OUTDIR keeps for pr's bundle and sign (docs/sbom.md): the
 * CycloneDX document as AB_SBOM_DOC and, with statement, an in-toto
 * Statement AB_SBOM_STATEMENT (predicate AB_SBOM_PREDICATE) whose subjects
 * are the artifacts it describes and whose predicate.byproducts name the
 * document with its sha256, so that `sign` signs it as a byproduct and
 * `verify --key` and docs/dsse-verify.py check it. Both written
 * atomically; the same OUTDIR gives the same bytes. The caller has
 * verified OUTDIR (sign, pr). 0 or AB_EFAIL (reported)
 */
#define AB_SBOM_DOC AB_SBOM_DIR "/bom.cdx.json"
#define AB_SBOM_STATEMENT AB_SBOM_DIR "/sbom.intoto.json"
#define AB_SBOM_PREDICATE "https://allocbuild.dev/sbom/v1"
int ab_sbom_write(const char *outdir, int statement);

#endif
