/* placeholder while being written */
#include "cli/commands.h"
#include "cli/trace_common.h"
int trace_cmd_anomalies(int argc, char **argv) { (void)argc; (void)argv; return TALLY_EXIT_ERROR; }
