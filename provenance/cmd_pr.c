/* placeholder: replaced by the issue that implements 'pr' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_pr(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "pr");
	return AB_EXIT_USAGE;
}
