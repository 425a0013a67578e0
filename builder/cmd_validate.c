/* placeholder: replaced by the issue that implements 'validate' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_validate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "validate");
	return AB_EXIT_USAGE;
}
