/* placeholder: replaced by the issue that implements 'fetch' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_fetch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "fetch");
	return AB_EXIT_USAGE;
}
