/* placeholder: replaced by the issue that implements 'build' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_build(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "build");
	return AB_EXIT_USAGE;
}
