/* placeholder: replaced by the issue that implements 'relink' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_relink(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "relink");
	return AB_EXIT_USAGE;
}
