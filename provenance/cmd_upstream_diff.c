/* placeholder: replaced by the issue that implements 'upstream_diff' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_upstream_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "upstream_diff");
	return AB_EXIT_USAGE;
}
