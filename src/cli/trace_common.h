/* Shared by the 'tally trace' subcommands (src/cli/trace*.c): reading a trace
 * with the common --map/--hierarchy options, and the subcommand entry points. */
#ifndef TALLY_CLI_TRACE_COMMON_H
#define TALLY_CLI_TRACE_COMMON_H

#include "trace/trace.h"

/* Long options every reading subcommand accepts; handled by trace_common_option. */
#define TRACE_OPT_MAP 1001
#define TRACE_OPT_HIERARCHY 1002
#define TRACE_COMMON_LONG_OPTIONS                                                               \
    {"map", required_argument, NULL, TRACE_OPT_MAP},                                            \
        {"hierarchy", required_argument, NULL, TRACE_OPT_HIERARCHY}

/* Applies a common option (returns 1 when it was one, 0 when not, -1 on error
 * after printing it). */
int trace_common_option(struct trace_read_options *opts, int opt, const char *arg);
/* Reads the trace or prints "tally: FILE:LINE: why"; returns -1 on error. */
int trace_load(const char *path, const struct trace_read_options *opts, struct trace *t);
/* Parses a time or a number; prints an error naming the option on failure. */
int trace_parse_seconds(const char *option, const char *text, double *out);

int trace_cmd_aggregate(int argc, char **argv);
int trace_cmd_anomalies(int argc, char **argv);
int trace_cmd_from_runs(int argc, char **argv);
int trace_cmd_stats(int argc, char **argv);
int trace_cmd_export(int argc, char **argv);

#endif
