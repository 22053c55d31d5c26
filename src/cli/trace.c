/* 'tally trace': categorized resource traces (seed 000). Dispatches to the
 * subcommands in src/cli/trace_*.c (what they share is in trace_common.c). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "util/error.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommands[] = {
    {"aggregate", trace_cmd_aggregate, "time-slice usage per group and category (eq. 2, 3)"},
    {"anomalies", trace_cmd_anomalies, "unfair sharing, waste, saturation, moving bottlenecks, oscillation, slow start, burst then idle"},
    {"from-runs", trace_cmd_from_runs, "build a Paje trace from 'tally run --category --time-series' outputs"},
    {"export", trace_cmd_export, "re-write a trace as Paje (tally's own variable names)"},
    {"diff", trace_cmd_diff, "compare two traces: changes per resource, category and phase, in words"},
    {"measure-host", trace_cmd_measure_host, "this host's disk and network bandwidths, a line of from-runs' --capacity"},
    {"stats", trace_cmd_stats, "what a trace holds, and read/index/query times"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: tally trace <subcommand> [<args>]\n\nsubcommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(out, "  %-12s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out, "\nCommon options of the reading subcommands:\n"
                 "  --map capacity=VAR[,usage-prefix=P][,multiplier=VAR][,kind=NAME]\n"
                 "                 variable names of capacity and per-category usage\n"
                 "                 (repeatable; replaces the SimGrid defaults)\n"
                 "  --hierarchy FILE  lines 'CHILD PARENT [PARENT-TYPE]' grouping containers\n"
                 "See man tally-trace.\n");
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TALLY_EXIT_ERROR;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return TALLY_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    tally_error("trace: unknown subcommand '%s' (see 'tally trace --help')", argv[1]);
    return TALLY_EXIT_ERROR;
}
