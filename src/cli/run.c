/* Placeholder for 'tally run' until its implementation lands (being built now). */
#include <stdio.h>
#include "cli/commands.h"

int cmd_run(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "tally: run: not built yet\n");
    return TALLY_EXIT_ERROR;
}
