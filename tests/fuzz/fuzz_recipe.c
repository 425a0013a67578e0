/*
 * fuzz_recipe: libFuzzer target for the recipe loader. Any input must load
 * or be rejected with messages, never crash, leak or read out of bounds.
 * `make fuzz` runs it; `make check` replays tests/fuzz/corpus/recipe.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../builder/recipe.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ab_recipe *r = NULL;

	if (ab_recipe_parse_ext(&r, "fuzz.json", (const char *)data, size, FUZZ_MESSAGES(), AB_RECIPE_REQUIRE_PINS) == 0) {
		size_t *order = NULL, n = 0;

		FUZZ_OUTCOME("accepted: %zu source%s, %zu variant%s", r->nsources, r->nsources == 1 ? "" : "s",
		    r->nvariants, r->nvariants == 1 ? "" : "s");
		/* exercise the accessors on whatever loaded */
		if (ab_recipe_order(&order, &n, r, NULL, 0) == 0) {
			for (size_t i = 0; i < n; i++)
				(void)ab_recipe_base_variant(r, &r->variants[order[i]]);
		}
		free(order);
		ab_recipe_free(r);
	} else {
		FUZZ_OUTCOME("rejected");
	}
	return 0;
}
