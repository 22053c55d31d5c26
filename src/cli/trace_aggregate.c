/* 'tally trace aggregate': per group at a hierarchy level and per category,
 * the time-averaged usage over a slice (eq. 2) summed over the group's
 * resources (eq. 3), the capacity and the idle part; where eq. 1 breaks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/aggregate.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tally trace aggregate TRACE [--from T1] [--to T2] [--level TYPE|root]\n"
            "                             [--category c1,c2] [--kind KIND] [--format table|csv|json]\n"
            "                             [--map RULE]... [--hierarchy FILE]\n"
            "Time-averaged capacity, usage per category and idle of each group over [T1, T2]\n"
            "(default: the whole trace) at level TYPE (a container type, any case; default root).\n"
            "T1 and T2 are t+ seconds from the trace's start (or a duration: 10min), or an ISO\n"
            "date-time (2026-11-25T15:06:55Z, UTC); a slice outside the trace is an error.\n");
}

static void print_table(const struct trace *t, const struct trace_aggregation *a, bool csv)
{
    if (csv)
        printf("group,type,kind,capacity");
    else {
        char origin[64], dated[96] = "";
        trace_format_origin(t, origin, sizeof origin);
        if (origin[0])
            snprintf(dated, sizeof dated, " (t+0 = %s)", origin);
        printf("# level %s, slice [%.15g, %.15g] s from the trace's start%s\n%-20s %-10s %-10s %14s",
               a->level, a->from - t->start, a->to - t->start, dated, "group", "type", "kind",
               "capacity");
    }
    for (size_t c = 0; c < t->n_categories; c++)
        if (!a->categories || a->categories[c])
            printf(csv ? ",%s" : " %14s", t->categories[c]);
    printf(csv ? ",idle\n" : " %14s\n", "idle");
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct trace_group *g = &a->groups[i];
        if (csv)
            printf("%s,%s,%s,%.9g", g->name, g->type, g->kind, g->capacity);
        else
            printf("%-20s %-10s %-10s %14.6g", g->name, g->type, g->kind, g->capacity);
        for (size_t c = 0; c < t->n_categories; c++)
            if (!a->categories || a->categories[c])
                printf(csv ? ",%.9g" : " %14.6g", g->usage[c]);
        printf(csv ? ",%.9g\n" : " %14.6g\n", g->idle);
    }
}

/* One stderr line per eq. 1 break overlapping the slice (at most 20, then a count). */
static void warn_violations(const struct trace *t, const json_t *json)
{
    const json_t *viol = json_object_get(json, "violations");
    size_t n = json_array_size(viol);
    for (size_t i = 0; i < n && i < 20; i++) {
        const json_t *v = json_array_get(viol, i);
        tally_error("warning: usage above capacity (eq. 1) on %s (%s) over [%.15g, %.15g]: "
                    "%.6g > %.6g",
                    json_string_value(json_object_get(v, "resource")),
                    json_string_value(json_object_get(v, "kind")),
                    json_real_value(json_object_get(v, "from")),
                    json_real_value(json_object_get(v, "to")),
                    json_real_value(json_object_get(v, "usage")),
                    json_real_value(json_object_get(v, "capacity")));
    }
    if (n > 20)
        tally_error("warning: %zu more intervals with usage above capacity", n - 20);
    (void)t;
}

struct aggregate_args {
    struct trace_aggregate_options aopts;
    bool have_from, have_to;
    const char *from_text, *to_text; /* resolved once the trace is read */
    const char *categories, *format;
};

static int aggregate_option(void *ctx, int opt, const char *arg)
{
    struct aggregate_args *a = ctx;
    switch (opt) {
    case 'f':
        a->from_text = arg;
        a->have_from = true;
        return TRACE_OPTIONS_CONTINUE;
    case 't':
        a->to_text = arg;
        a->have_to = true;
        return TRACE_OPTIONS_CONTINUE;
    case 'l': a->aopts.level = arg; return TRACE_OPTIONS_CONTINUE;
    case 'c': a->categories = arg; return TRACE_OPTIONS_CONTINUE;
    case 'k': a->aopts.kind = arg; return TRACE_OPTIONS_CONTINUE;
    case 'F': a->format = arg; return TRACE_OPTIONS_CONTINUE;
    default: usage(stderr); return TALLY_EXIT_ERROR;
    }
}

int trace_cmd_aggregate(int argc, char **argv)
{
    static const struct option options[] = {
        {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'},
        {"level", required_argument, NULL, 'l'},
        {"category", required_argument, NULL, 'c'},
        {"kind", required_argument, NULL, 'k'},
        {"format", required_argument, NULL, 'F'},
        {NULL, 0, NULL, 0},
    };
    struct trace_read_options ropts = {0};
    struct aggregate_args args = {.aopts = {.from = 0, .to = 0, .level = "root"}, .format = "table"};
    int parsed = trace_parse_options(argc, argv, "h", options, usage, &ropts, aggregate_option,
                                     &args);
    if (parsed != TRACE_OPTIONS_CONTINUE)
        return parsed;
    struct trace_aggregate_options aopts = args.aopts;
    bool have_from = args.have_from, have_to = args.have_to;
    const char *categories = args.categories, *format = args.format;
    if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json")) {
        tally_error("trace aggregate: --format '%s': expected table, csv or json", format);
        return TALLY_EXIT_ERROR;
    }
    struct trace t;
    if (trace_load_operand(argc, argv, &ropts, "trace aggregate: expected one TRACE file", usage,
                           &t) < 0)
        return TALLY_EXIT_ERROR;
    int status = TALLY_EXIT_ERROR;
    char why[512];
    bool *sel = NULL;
    struct trace_aggregation a = {0};
    if ((have_from || have_to) &&
        trace_resolve_slice(&t, "trace aggregate", args.from_text, args.to_text, &aopts.from, &aopts.to) < 0)
        goto out;
    if (!have_from && !have_to)
        aopts.from = t.start, aopts.to = t.end;
    if (categories && !(sel = trace_category_selection(&t, categories, why, sizeof why))) {
        tally_error("trace aggregate: --category: %s", why);
        goto out;
    }
    aopts.categories = sel;
    if (trace_aggregate(&t, &aopts, &a, why, sizeof why) < 0) {
        tally_error("trace aggregate: --level: %s", why);
        goto out;
    }
    json_t *json = trace_aggregation_to_json(&t, &a);
    warn_violations(&t, json);
    if (!strcmp(format, "json")) {
        char *text = json_dumps(json, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        if (text)
            puts(text);
        free(text);
    } else {
        print_table(&t, &a, !strcmp(format, "csv"));
    }
    json_decref(json);
    status = TALLY_EXIT_OK;
out:
    trace_aggregation_free(&a);
    free(sel);
    trace_free(&t);
    return status;
}
