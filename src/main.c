/* tally's entry point: a table of subcommands and the dispatch to them. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "version.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"run", cmd_run, "run a command and measure (and limit) what its process tree uses"},
    {"archive", cmd_archive, "store summaries; query, stats, predict, outliers"},
    {"trace", cmd_trace, "categorized resource traces: from-runs, aggregate, anomalies, export, stats"},
    {"view", cmd_view, "visual analysis page (treemap, topology) of a trace"},
    {"agent", cmd_agent, "the user's live monitor: follows registered tasks, answers requests"},
    {"request", cmd_request, "send OMIS-style requests to the agent, print the JSON replies"},
    {"top", cmd_top, "live terminal view of an application on all its hosts"},
    {"rm", cmd_rm, "resource_monitor's command line (Makeflow, Work Queue) on tally"},
    {"mpi", cmd_mpi, "analyses of an instrumented MPI run: report, predict"},
    {"contract", cmd_contract, "performance contracts: build from baselines, check runs (Vraalsen, Aydt, Mendes and Reed, Performance Contracts)"},
};

static void print_usage(FILE *out)
{
    fprintf(out, "usage: tally [--version] [--help] <command> [<args>]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'tally <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
    if (argc > 0 && rm_compat_invoked_as(argv[0])) /* the build/resource_monitor symlink */
        return cmd_rm(argc, argv);
    if (argc < 2) {
        print_usage(stderr);
        return TALLY_EXIT_ERROR;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("tally %s\n", TALLY_VERSION);
        return TALLY_EXIT_OK;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        print_usage(stdout);
        return TALLY_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tally: unknown command '%s' (see 'tally --help')\n", name);
    return TALLY_EXIT_ERROR;
}
