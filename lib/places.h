/*
 * places: the places of the author's machine that nothing allocbuild
 * publishes names (a manifest, a run record, the evidence bundle: docs/pr.md
 * promises no path of the author's machine). In a text, the absolute path
 * of OUTDIR (as given, made absolute, and as the kernel resolves it)
 * becomes "OUTDIR", that of the current directory ".", $HOME "~"; at each
 * place the longest that matches, and only where a path's component ends
 * ("/o" is not "/other"); a place of "/" or shorter is none. The one rule,
 * for the build's manifests and the run records alike.
 *
 * A record made elsewhere (a shard's, a copied OUTDIR's) keeps the places
 * of the process that made it (ab_places_json, state.json's "places"): its
 * paths are hidden by those, in the same pass as the writer's own.
 *
 *   struct ab_places p;
 *   ab_places_init(&p, outdir);              the places of this process now
 *   char *s = ab_places_hide(&p, 1, text);   caller frees
 *   ab_places_hide_json(&p, 1, doc);         every string of doc, in place
 *   ab_places_release(&p);
 */
#ifndef AB_PLACES_H
#define AB_PLACES_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ab_places {
	const char *outdir_abs, *outdir_real; /* OUTDIR made absolute, and resolved; NULL without one */
	const char *cwd, *home;               /* the current directory and $HOME; NULL when unknown */
};

/*
 * the places of this process, with OUTDIR outdir (may be NULL), owned
 * until ab_places_release (a caller may also fill the struct with strings
 * of its own, and not release it)
 */
void ab_places_init(struct ab_places *p, const char *outdir);
void ab_places_release(struct ab_places *p);
/* does p hold any place? */
int ab_places_any(const struct ab_places *p);

/* {"outdir", "outdir_real", "cwd", "home"}, each present when known (caller frees) */
cJSON *ab_places_json(const struct ab_places *p);
/* the same read back into *p (owned: ab_places_release); a field that is not a string is unknown */
void ab_places_parse(struct ab_places *p, const cJSON *doc);

/* s with every place of the n sets ps hidden, the longest first; caller frees */
char *ab_places_hide(const struct ab_places *ps, size_t n, const char *s);
/* every string value of doc, in place (keys are names, not paths: kept) */
void ab_places_hide_json(const struct ab_places *ps, size_t n, cJSON *doc);

#endif
