/* placeholder: replaced by the issue that implements 'hash' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_hash(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "hash");
	return AB_EXIT_USAGE;
}
