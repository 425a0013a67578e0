/*
 * fuzz_tree: libFuzzer target for the archive side of upstream-diff. Any
 * input must be read as an archive (then compared with itself and its
 * members loaded, as --diff does) or rejected with a message; it must
 * never crash, leak or read out of bounds. The parallel bzip2 decoder is
 * also run on the raw input. `make check` replays tests/fuzz/corpus/tree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/bz2.h"
#include "../../provenance/tree/tree.h"
#include "../../provenance/tree/updiff.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct ab_tree *t = NULL;
	struct ab_bz2 *z = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ab-fuzz-tree-%ld.bin", (long)getpid());
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (ab_tree_read(&t, path, -1, 1) == 0) {
		struct ab_updiff *u = ab_updiff_new(t, t, 1);

		FUZZ_OUTCOME("archive: %zu entries, %zu files, strip %d", t->n, t->nfiles, t->strip);
		for (size_t i = 0; i < t->n; i++)
			t->v[i].wanted = 1;
		ab_tree_load(t, 1 << 20);
		ab_updiff_free(u);
		ab_tree_free(t);
	} else {
		FUZZ_OUTCOME("archive: refused");
	}
	unlink(path);
	if (ab_bz2_open(&z, data, size, 2) == 0) {
		const void *p;
		int blocks = 0;

		while (ab_bz2_read(z, &p) > 0)
			blocks++;
		FUZZ_OUTCOME("bzip2: %d reads", blocks);
		ab_bz2_free(z);
	} else {
		FUZZ_OUTCOME("bzip2: not bzip2");
	}
	return 0;
}
