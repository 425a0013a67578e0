/* placeholder: replaced by the issue that implements 'identify' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_identify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "identify");
	return AB_EXIT_USAGE;
}
