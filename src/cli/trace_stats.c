/* 'tally trace stats': what a trace holds (containers, resources, categories,
 * events, eq. 1 breaks) and how long reading + indexing it and aggregating one
 * slice take (the figures bench/trace.bench.sh reports). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/aggregate.h"
#include "util/clock.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tally trace stats TRACE [--level TYPE|root] [--queries N] [--format text|json]\n"
                 "                         [--map RULE]... [--hierarchy FILE]\n"
                 "Counts, read+index time, and the mean time of N aggregations of slices\n"
                 "(each a tenth of the trace, spread over it) at the given level.\n");
}

struct stats_args {
    const char *level, *format;
    long queries;
};

static int stats_option(void *ctx, int opt, const char *arg)
{
    struct stats_args *a = ctx;
    switch (opt) {
    case 'l': a->level = arg; return TRACE_OPTIONS_CONTINUE;
    case 'q': {
        char *end;
        a->queries = strtol(arg, &end, 10);
        if (*end || a->queries < 1 || a->queries > 1000000) {
            tally_error("trace stats: --queries '%s': expected 1..1000000", arg);
            return TALLY_EXIT_ERROR;
        }
        return TRACE_OPTIONS_CONTINUE;
    }
    case 'F': a->format = arg; return TRACE_OPTIONS_CONTINUE;
    default: usage(stderr); return TALLY_EXIT_ERROR;
    }
}

int trace_cmd_stats(int argc, char **argv)
{
    static const struct option options[] = {
        {"level", required_argument, NULL, 'l'},
        {"queries", required_argument, NULL, 'q'},
        {"format", required_argument, NULL, 'F'},
        {NULL, 0, NULL, 0},
    };
    struct trace_read_options ropts = {0};
    struct stats_args args = {.level = "root", .format = "text", .queries = 10};
    int status = trace_parse_options(argc, argv, "h", options, usage, &ropts, stats_option,
                                     &args);
    if (status != TRACE_OPTIONS_CONTINUE)
        return status;
    const char *level = args.level, *format = args.format;
    long queries = args.queries;
    if (strcmp(format, "text") && strcmp(format, "json")) {
        tally_error("trace stats: --format '%s': expected text or json", format);
        return TALLY_EXIT_ERROR;
    }
    struct trace t;
    double t0 = clock_monotonic_seconds();
    if (trace_load_operand(argc, argv, &ropts, "trace stats: expected one TRACE file", NULL, &t) < 0)
        return TALLY_EXIT_ERROR;
    double read_seconds = clock_monotonic_seconds() - t0;
    size_t breakpoints = 0;
    for (size_t r = 0; r < t.n_resources; r++) {
        breakpoints += t.resources[r].capacity.n;
        for (size_t c = 0; c < t.n_categories; c++)
            breakpoints += t.resources[r].usage[c].n;
    }
    double query_seconds = 0;
    size_t groups = 0;
    char why[512];
    for (long q = 0; q < queries; q++) {
        double span = t.end - t.start, width = span / 10;
        double from = t.start + (span - width) * (double)q / (double)(queries > 1 ? queries - 1 : 1);
        struct trace_aggregate_options o = {.from = from, .to = from + width, .level = level};
        struct trace_aggregation a;
        double q0 = clock_monotonic_seconds();
        if (trace_aggregate(&t, &o, &a, why, sizeof why) < 0) {
            tally_error("trace stats: --level: %s", why);
            trace_free(&t);
            return TALLY_EXIT_ERROR;
        }
        query_seconds += clock_monotonic_seconds() - q0;
        groups = a.n_groups;
        trace_aggregation_free(&a);
    }
    query_seconds /= (double)queries;
    if (!strcmp(format, "json")) {
        json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:s,s:I}",
                              "events", (json_int_t)t.n_events, "containers",
                              (json_int_t)t.n_containers, "types", (json_int_t)t.n_types,
                              "resources", (json_int_t)t.n_resources, "categories",
                              (json_int_t)t.n_categories, "edges", (json_int_t)t.n_edges,
                              "breakpoints", (json_int_t)breakpoints, "states",
                              (json_int_t)t.n_states, "violations", (json_int_t)t.n_violations,
                              "start", t.start, "end", t.end, "read_index_seconds", read_seconds,
                              "query_seconds", query_seconds, "level", level, "groups",
                              (json_int_t)groups);
        char *text = json_dumps(o, JSON_INDENT(2));
        puts(text ? text : "{}");
        free(text);
        json_decref(o);
    } else {
        char origin[64];
        trace_format_date(t.start, origin, sizeof origin);
        printf("events        %zu\ncontainers    %zu (%zu types)\nresources     %zu\n"
               "categories    %zu\nedges         %zu\nbreakpoints   %zu\nviolations    %zu\n"
               "time          t+0 .. t+%.6g s (trace time %.15g .. %.15g%s%s)\nread+index    %.3f s\n"
               "query         %.3f ms (mean of %ld slices at level %s, %zu groups)\n",
               t.n_events, t.n_containers, t.n_types, t.n_resources, t.n_categories, t.n_edges,
               breakpoints, t.n_violations, t.end - t.start, t.start, t.end, origin[0] ? "; t+0 = " : "",
               origin, read_seconds, query_seconds * 1e3,
               queries, level, groups);
    }
    trace_free(&t);
    return TALLY_EXIT_OK;
}
