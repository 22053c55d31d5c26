/* Entry points of tally's subcommands, dispatched by src/main.c (one file per
 * subcommand under src/cli/, as git does). Each returns the process exit status. */
#ifndef TALLY_CLI_COMMANDS_H
#define TALLY_CLI_COMMANDS_H

#include <stdbool.h>

#include "core/exit.h" /* what each returns */

int cmd_run(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_top(int argc, char **argv);
/* tally view --live APP (view_live.c) */
bool view_live_requested(int argc, char **argv);
int cmd_view_live(int argc, char **argv);
/* tally view --files PREFIX.files.json -o PAGE (view_files.c) */
bool view_files_requested(int argc, char **argv);
int cmd_view_files(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_request(int argc, char **argv);
int cmd_rm(int argc, char **argv);

/* True when tally was started under resource_monitor's name (see rm_compat.c):
 * it then takes resource_monitor's command line (cmd_rm). */
bool rm_compat_invoked_as(const char *argv0);
int cmd_mpi(int argc, char **argv);
int cmd_contract(int argc, char **argv);

#endif
