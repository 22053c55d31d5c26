/* placeholder while being written */
#include "cli/commands.h"
#include "cli/trace_common.h"
int trace_cmd_from_runs(int argc, char **argv) { (void)argc; (void)argv; return TALLY_EXIT_ERROR; }
