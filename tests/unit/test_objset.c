/*
 * Unit tests of provenance/record/objset: a compile log's objects are the
 * last writing of each path below the build tree (joined to its
 * directory, "." and ".." resolved), without what is outside it or no
 * longer there; the set's digest is that of its sorted "DIGEST  PATH"
 * lines; two sets compared by path, the differing ones by directory.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../../provenance/record/objset.h"
#include "unit.h"

#define H(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c

/* every path but conftest.o is in the tree */
static int
in_tree(void *ctx, const char *path)
{
	(void)ctx;
	return strcmp(path, "conftest.o") != 0;
}

static void
test_parse_compare(void)
{
	const char *la =
	    H("1") "\t/b\tconftest.o\tconftest.c\tcc -c conftest.c\tmiss\n"
	    H("2") "\t/b/sub\t../obj/x.o\t../x.c\tcc -c ../x.c -o ../obj/x.o\tmiss\n"
	    H("3") "\t/b\talloc/m.o\tm.c\tcc -c m.c\n"
	    H("4") "\t/tmp\tt.o\tt.c\tcc -c t.c\tmiss\n"
	    H("5") "\t/b\t/b/alloc/m.o\tm.c\tcc -c m.c\thit\n"
	    "not a line\n";
	const char *lb =
	    H("2") "\t/b\tobj/x.o\tx.c\tcc -c x.c\tinherited\n"
	    H("6") "\t/b\talloc/m.o\tm.c\tcc -c m.c\tmiss\n"
	    H("7") "\t/b\tonly.o\tonly.c\tcc -c only.c\tmiss\n";
	struct ab_objset a, b;
	char hex[AB_HEX_LEN + 1];
	cJSON *cmp;
	char *text;

	ab_objset_parse(&a, la, "/b", in_tree, NULL);
	ab_objset_parse(&b, lb, "/b", in_tree, NULL);
	CHECK(a.paths.n == 2 && b.paths.n == 3);
	CHECK_STR(a.paths.v[0], "obj/x.o");
	CHECK_STR(a.paths.v[1], "alloc/m.o");
	/* alloc/m.o written twice: the last writing counts */
	CHECK_STR(a.sha.v[1], H("5"));
	ab_objset_digest(hex, &a);
	{
		char *lines = ab_sprintf("%s  alloc/m.o\n%s  obj/x.o\n", H("5"), H("2"));
		char want[AB_HEX_LEN + 1];

		ab_hash_buf(want, lines, strlen(lines));
		CHECK_STR(hex, want);
		free(lines);
	}
	cmp = ab_objset_compare(&a, "a", &b, "b");
	text = cJSON_PrintUnformatted(cmp);
	CHECK_STR(text, "{\"a\":\"a\",\"b\":\"b\",\"identical\":1,\"differ\":1,\"only_a\":0,\"only_b\":1,"
	    "\"differ_by_directory\":{\"alloc\":1},\"differing\":[\"alloc/m.o\"]}");
	cJSON_free(text);
	cJSON_Delete(cmp);
	ab_objset_release(&a);
	ab_objset_release(&b);
}

int
main(void)
{
	test_parse_compare();
	return unit_done();
}
