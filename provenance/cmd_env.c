/* placeholder: replaced by the issue that implements 'env' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_env(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "env");
	return AB_EXIT_USAGE;
}
