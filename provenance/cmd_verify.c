/* placeholder: replaced by the issue that implements 'verify' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "verify");
	return AB_EXIT_USAGE;
}
