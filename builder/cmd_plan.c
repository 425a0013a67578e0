/* placeholder: replaced by the issue that implements 'plan' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_plan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "plan");
	return AB_EXIT_USAGE;
}
