/* What 'tally contract check' and 'tally contract watch' print for a level,
 * and their --on-violation action: one function for both (contract_output.c), so
 * the online and offline paths print the same lines. */
#ifndef TALLY_CLI_CONTRACT_OUTPUT_H
#define TALLY_CLI_CONTRACT_OUTPUT_H

#include "contract/monitor.h"

struct check_output {
    const char *command;      /* "contract check" or "contract watch", for messages */
    int json;
    double threshold;
    const char *on_violation;
    long actions_failed;
};

/* A contract_level_fn (ctx: struct check_output): a JSON line per level
 * (--format json) or the explanation of an overall level at or above the
 * threshold (text); runs on_violation at an overall level's onset. */
void contract_print_level(void *ctx, const struct contract_level *l);

int cmd_contract_watch(int argc, char **argv);

#endif
