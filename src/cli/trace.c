/* Placeholder for 'tally trace' until its implementation lands (being built now). */
#include <stdio.h>
#include "cli/commands.h"

int cmd_trace(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "tally: trace: not built yet\n");
    return TALLY_EXIT_ERROR;
}
