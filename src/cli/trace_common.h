/* Shared by the 'tally trace' subcommands (src/cli/trace*.c): parsing their
 * options together with the common --map/--hierarchy ones, reading the TRACE
 * operand, and the subcommand entry points. */
#ifndef TALLY_CLI_TRACE_COMMON_H
#define TALLY_CLI_TRACE_COMMON_H

#include <getopt.h>
#include <stdio.h>

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

/* The page's time: t+ seconds from the trace's start. A trace whose start is
 * a date (from-runs: epoch seconds after 2001) says it once, as UTC. */
/* Writes "t+12.5" (seconds from the start; "t-3" before it) for a trace time. */
void trace_format_t(const struct trace *t, double time, char *buf, size_t len);
/* Writes "2026-11-25T15:06:55.120Z" when the trace is dated, "" otherwise. */
void trace_format_origin(const struct trace *t, char *buf, size_t len);
/* --from/--to: t+ seconds (or a duration, 10min) from the trace's start, or
 * an ISO date-time YYYY-MM-DDTHH:MM:SS[.frac][Z] (UTC) for a dated trace;
 * the absolute trace time in *out. Prints an error naming the option. */
int trace_resolve_time(const struct trace *t, const char *option, const char *text, double *out);
/* A slice [from, to] that misses the trace entirely is an error naming the
 * trace's span ("CMD: the slice t+A..t+B s is outside the trace, which spans
 * t+0..t+S s from DATE"). Returns -1 after printing it. */
int trace_check_slice(const struct trace *t, const char *cmd, double from, double to);
/* The slice of --from/--to (texts as trace_resolve_time takes them; NULL: the
 * trace's start, its end) as absolute trace times in *from and *to: a finite
 * time each, from before to ("CMD: --from t+A s is not before --to t+B s"),
 * overlapping the trace (trace_check_slice). Returns -1 after printing why. */
int trace_resolve_slice(const struct trace *t, const char *cmd, const char *from_text,
                        const char *to_text, double *from, double *to);

/* What an option handler returns to go on parsing (exit statuses are >= 0). */
#define TRACE_OPTIONS_CONTINUE (-1)
/* Applies one of a subcommand's own options (opt is getopt_long's value, '?'
 * or ':' for a bad option) to ctx. Returns
 * TRACE_OPTIONS_CONTINUE, or the exit status the subcommand returns now. */
typedef int (*trace_option_handler)(void *ctx, int opt, const char *arg);

/* Runs getopt_long over argv (from argv[1]) with the subcommand's own long
 * options (own_options, ending with {NULL, 0, NULL, 0}) followed by --help
 * ('h' in shortopts) and the common --map/--hierarchy. --help prints
 * usage(stdout); common options go into ropts, all others to
 * handle(ctx, ...). Returns TRACE_OPTIONS_CONTINUE once every option is parsed
 * (optind is then the first operand), else the exit status to return
 * (TALLY_EXIT_OK after --help, TALLY_EXIT_ERROR after a bad common option, or
 * the handler's). */
int trace_parse_options(int argc, char **argv, const char *shortopts,
                        const struct option *own_options, void (*usage)(FILE *out),
                        struct trace_read_options *ropts, trace_option_handler handle, void *ctx);

/* Reads the one TRACE operand left at argv[optind] with ropts into t. When
 * there is not exactly one, prints "tally: <expected>" (then usage(stderr)
 * when usage is not NULL). Returns -1 on error, after printing it. */
int trace_load_operand(int argc, char **argv, const struct trace_read_options *ropts,
                       const char *expected, void (*usage)(FILE *out), struct trace *t);

int trace_cmd_aggregate(int argc, char **argv);
int trace_cmd_anomalies(int argc, char **argv);
int trace_cmd_from_runs(int argc, char **argv);
int trace_cmd_stats(int argc, char **argv);
int trace_cmd_export(int argc, char **argv);
int trace_cmd_diff(int argc, char **argv);
int trace_cmd_measure_host(int argc, char **argv);

#endif
