/* 'tally trace anomalies': the anomalies of Schnorr, Legrand and Vincent's
 * paper found slice by slice (unfair sharing, waste, saturation and moving
 * bottlenecks, oscillation, slow start, burst then idle). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/anomalies.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tally trace anomalies TRACE [--from T1] [--to T2] [--slice S]\n"
            "       [--shares c1=1,c2=1] [--level TYPE]\n"
            "       [--threshold unfair=10,waste=50,saturation=95,activity=5] [--format text|json]\n"
            "       [--map RULE]... [--hierarchy FILE] [--each-slice]\n"
            "T1 and T2 (default: the trace's start and end) are t+ seconds from the trace's\n"
            "start, or an ISO date-time (UTC); the slices (default: a twentieth of it) cover\n"
            "that window; a window outside the trace is an error.\n"
            "Thresholds are percentages (unfair: percentage points of share).\n"
            "Findings of one kind, resource and subject on neighbouring slices are\n"
            "given as one (its slices counted, the detail of the surest slice);\n"
            "--each-slice gives every slice's finding on its own.\n"
            "Kinds: unfair, waste, saturation, oscillation, slow-start, burst-then-idle\n"
            "(work for a category after its server went idle: the Paje variable active.CATEGORY\n"
            "at 0, or no state of the state type active.CATEGORY).\n");
}

static double *parse_shares(const struct trace *t, const char *text)
{
    double *w = calloc(t->n_categories ? t->n_categories : 1, sizeof *w);
    if (!w)
        return NULL;
    char *copy = strdup(text), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        char *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : -1;
        if (!eq || end == eq + 1 || *end || v < 0) {
            tally_error("trace anomalies: --shares '%s': expected CATEGORY=WEIGHT,...", item);
            goto bad;
        }
        *eq = '\0';
        int c = trace_find_category(t, item);
        if (c < 0) {
            tally_error("trace anomalies: --shares: category '%s' is not in the trace", item);
            goto bad;
        }
        w[c] = v;
    }
    free(copy);
    return w;
bad:
    free(copy);
    free(w);
    return NULL;
}

static int parse_thresholds(struct anomaly_options *o, const char *text)
{
    char *copy = strdup(text), *save = NULL;
    int rc = 0;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '='), *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : -1;
        if (!eq || end == eq + 1 || *end || v <= 0 || v > 100) {
            tally_error("trace anomalies: --threshold '%s': expected NAME=PERCENT (0..100]", item);
            rc = -1;
            break;
        }
        *eq = '\0';
        if (!strcmp(item, "unfair"))
            o->unfair_points = v;
        else if (!strcmp(item, "waste"))
            o->waste_idle = v / 100;
        else if (!strcmp(item, "saturation"))
            o->saturation = v / 100;
        else if (!strcmp(item, "activity"))
            o->min_activity = v / 100;
        else {
            tally_error("trace anomalies: --threshold: unknown '%s' (unfair, waste, saturation, activity)",
                        item);
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

struct anomalies_args {
    struct anomaly_options ao;
    const char *shares, *format;
    const char *from_text, *to_text; /* resolved once the trace is read */
    bool each_slice;
};

static int anomalies_option(void *ctx, int opt, const char *arg)
{
    struct anomalies_args *a = ctx;
    switch (opt) {
    case 's':
        if (trace_parse_seconds("--slice", arg, &a->ao.slice) < 0)
            return TALLY_EXIT_ERROR;
        if (a->ao.slice <= 0) {
            tally_error("trace anomalies: --slice '%s': must be positive", arg);
            return TALLY_EXIT_ERROR;
        }
        return TRACE_OPTIONS_CONTINUE;
    case 'S': a->shares = arg; return TRACE_OPTIONS_CONTINUE;
    case 'T':
        if (parse_thresholds(&a->ao, arg) < 0)
            return TALLY_EXIT_ERROR;
        return TRACE_OPTIONS_CONTINUE;
    case 'l': a->ao.level = arg; return TRACE_OPTIONS_CONTINUE;
    case 'F': a->format = arg; return TRACE_OPTIONS_CONTINUE;
    case 'E': a->each_slice = true; return TRACE_OPTIONS_CONTINUE;
    case 'f': a->from_text = arg; return TRACE_OPTIONS_CONTINUE;
    case 't': a->to_text = arg; return TRACE_OPTIONS_CONTINUE;
    default: usage(stderr); return TALLY_EXIT_ERROR;
    }
}

int trace_cmd_anomalies(int argc, char **argv)
{
    static const struct option options[] = {
        {"slice", required_argument, NULL, 's'},
        {"shares", required_argument, NULL, 'S'},
        {"threshold", required_argument, NULL, 'T'},
        {"level", required_argument, NULL, 'l'},
        {"format", required_argument, NULL, 'F'},
        {"each-slice", no_argument, NULL, 'E'},
        {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    struct trace_read_options ropts = {0};
    struct anomalies_args args = {.format = "text"};
    int parsed = trace_parse_options(argc, argv, "h", options, usage, &ropts, anomalies_option,
                                     &args);
    if (parsed != TRACE_OPTIONS_CONTINUE)
        return parsed;
    struct anomaly_options ao = args.ao;
    const char *shares = args.shares, *format = args.format;
    if (strcmp(format, "text") && strcmp(format, "json")) {
        tally_error("trace anomalies: --format '%s': expected text or json", format);
        return TALLY_EXIT_ERROR;
    }
    struct trace t;
    if (trace_load_operand(argc, argv, &ropts, "trace anomalies: expected one TRACE file", usage,
                           &t) < 0)
        return TALLY_EXIT_ERROR;
    int status = TALLY_EXIT_ERROR;
    double *weights = NULL;
    struct anomaly *list = NULL;
    size_t n = 0;
    char why[512];
    if (shares && !(weights = parse_shares(&t, shares)))
        goto out;
    if ((args.from_text || args.to_text) &&
        trace_resolve_slice(&t, "trace anomalies", args.from_text, args.to_text, &ao.from, &ao.to) < 0)
        goto out;
    ao.shares = weights;
    if (trace_find_anomalies(&t, &ao, &list, &n, why, sizeof why) < 0) {
        tally_error("trace anomalies: %s", why);
        goto out;
    }
    if (!args.each_slice)
        n = anomalies_group(list, n);
    if (!strcmp(format, "json")) {
        json_t *j = anomalies_to_json(list, n);
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        puts(text ? text : "[]");
        free(text);
        json_decref(j);
    } else {
        char origin[64];
        trace_format_origin(&t, origin, sizeof origin);
        if (origin[0] && n)
            printf("# times are t+ seconds from the trace's start, t+0 = %s\n", origin);
        for (size_t i = 0; i < n; i++) {
            char slices[32] = "";
            if (list[i].slices > 1)
                snprintf(slices, sizeof slices, "%zu slices, ", list[i].slices);
            printf("[%.6g, %.6g] %-11s %s: %s (%s%.0f%% sure)\n", list[i].from - t.start,
                   list[i].to - t.start, anomaly_kind_name(list[i].kind), list[i].resource,
                   list[i].detail, slices, list[i].confidence * 100);
        }
        if (n == 0)
            printf("no anomaly found\n");
    }
    status = TALLY_EXIT_OK;
out:
    free(list);
    free(weights);
    trace_free(&t);
    return status;
}
