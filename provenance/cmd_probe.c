/* placeholder: replaced by the issue that implements 'probe' */
#include "../builder/cmd.h"
#include "../builder/util.h"

int
cmd_probe(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ab_error("'%s' is not implemented yet", "probe");
	return AB_EXIT_USAGE;
}
