/* Placeholder for 'tally archive' until its implementation lands (being built now). */
#include <stdio.h>
#include "cli/commands.h"

int cmd_archive(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "tally: archive: not built yet\n");
    return TALLY_EXIT_ERROR;
}
