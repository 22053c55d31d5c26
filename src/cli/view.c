/* Placeholder for 'tally view' until its implementation lands (being built now). */
#include <stdio.h>
#include "cli/commands.h"

int cmd_view(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "tally: view: not built yet\n");
    return TALLY_EXIT_ERROR;
}
