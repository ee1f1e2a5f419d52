/* packsign trust check: validates a trust policy and prints it. */
#include "cli/cli.h"

const char cmd_trust_usage[] =
    "usage: packsign trust check --trust FILE [--json] [--at TIME]\n";

int
cmd_trust(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("not_implemented", "trust", "not implemented yet");
}
